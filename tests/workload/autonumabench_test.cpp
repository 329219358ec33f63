#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "engine/process.h"
#include "helpers.h"
#include "program/autonumabench_spec.h"

namespace numasim {
namespace {

TEST(Autonumabench, SizingFollowsPreprocAwk) {
    const Topology m = load_preset("haswell-2s-24c");  // 2 nodes, 48 CPUs
    const auto n01 = autonuma_sizing("NUMA01", m);
    EXPECT_EQ(n01.processes, 2);
    EXPECT_EQ(n01.threads, 24);
    EXPECT_EQ(n01.bytes, uint64_t{3} << 30);
    EXPECT_EQ(n01.loops, 50);
    const auto tl = autonuma_sizing("NUMA01_THREADLOCAL", m);
    EXPECT_EQ(tl.loops, 1000);
    EXPECT_TRUE(tl.thread_local_slices);
    EXPECT_EQ(autonuma_sizing("NUMA02", m).threads, 48);
    EXPECT_EQ(autonuma_sizing("NUMA02", m).loops, 800);
    EXPECT_EQ(autonuma_sizing("NUMA02", m).bytes, uint64_t{1} << 30);
    EXPECT_EQ(autonuma_sizing("NUMA02_SMT", m).threads, 24);
}

TEST(Autonumabench, UnknownTestNamesTheKey) {
    try {
        test::run_workload("tiny-2n", "[[workload]]\ntype='autonumabench'\ntest='NUMA03'\n", 0);
        FAIL();
    } catch (const InputError& e) {
        EXPECT_EQ(e.file(), "test.toml");
        EXPECT_NE(e.where().find("test"), std::string::npos);
    }
}

// NUMA01 on a 2-node 48-CPU machine: 2 processes x (main + 24 threads), and the bound first
// bzero puts both processes' 3 GiB on the first-touch node.
TEST(Autonumabench, Numa01FirstTouchesEverythingOnOneNode) {
    auto r = test::run_workload(
        "haswell-2s-24c",
        "[[workload]]\ntype='autonumabench'\ntest='NUMA01'\nfirst_touch_node=1\nloops=0\n", 20);
    int procs = 0, threads = 0;
    std::map<int, Nanos> last_worker_exit;  // per process
    for (const auto& t : r.sys->tasks) {
        if (t->workload != 0) continue;
        ++threads;
        procs += t->pid == t->tgid;
        EXPECT_EQ(t->exit_time >= 0, true);
        if (t->pid != t->tgid)
            last_worker_exit[t->tgid] = std::max(last_worker_exit[t->tgid], t->exit_time);
    }
    EXPECT_EQ(procs, 2);
    EXPECT_EQ(threads, 50);
    // The main threads only fork, mmap and create the threads, then sleep in pthread_join()
    // until the last of them has exited.
    for (const auto& t : r.sys->tasks)
        if (t->workload == 0 && t->pid == t->tgid) {
            EXPECT_LT(t->utime, 10 * NSEC_PER_MSEC);
            EXPECT_GE(t->exit_time, last_worker_exit[t->tgid]);
        }
    int mms = 0;
    for (const auto& mm : r.sys->mms) {
        Region* b = find_region(*mm, "buffer");
        if (!b) continue;
        ++mms;
        EXPECT_EQ(b->count, (uint64_t{3} << 30) / kPages4K.size());
        EXPECT_EQ(b->pages_on(1), b->count);
        EXPECT_EQ(b->pages_on(0), 0u);
    }
    EXPECT_EQ(mms, 2);
    const WorkloadResult m = r.w->result(*r.sys);
    EXPECT_TRUE(test::figure<bool>(m, "finished"));
    EXPECT_GT(test::figure<double>(m, "elapsed_s"), 0.0);
    EXPECT_GT(test::figure<double>(m, "user_s"), 0.0);
}

// preproc.awk's halves on 4 nodes of one CPU each: NODEMASK1 = nodes 0-1 (0x3), NODEMASK2 =
// nodes 2-3 (0xc). numa01.c's parent (proc 0) takes SECOND_HALF, its child (proc 1) FIRST_HALF;
// INVERSE_BIND turns the child's NODEMASK1 into NODEMASK2 and leaves the parent's alone.
TEST(Autonumabench, BindingsFollowNuma01AndPreprocAwk) {
    const Topology m = load_preset("tiny-4n");
    const AutonumaBinding parent = autonuma_binding(AutonumaBind::Hard, m, 0);
    EXPECT_EQ(parent.cpus, (std::vector<int>{2, 3}));
    EXPECT_EQ(parent.nodes, 0xcu);
    const AutonumaBinding child = autonuma_binding(AutonumaBind::Hard, m, 1);
    EXPECT_EQ(child.cpus, (std::vector<int>{0, 1}));
    EXPECT_EQ(child.nodes, 0x3u);
    const AutonumaBinding inv_parent = autonuma_binding(AutonumaBind::Inverse, m, 0);
    EXPECT_EQ(inv_parent.cpus, (std::vector<int>{2, 3}));
    EXPECT_EQ(inv_parent.nodes, 0xcu);
    const AutonumaBinding inv_child = autonuma_binding(AutonumaBind::Inverse, m, 1);
    EXPECT_EQ(inv_child.cpus, (std::vector<int>{0, 1}));
    EXPECT_EQ(inv_child.nodes, 0xcu);
}

// The bound builds on 2 nodes: every thread of a process stays on its half's CPUs and its whole
// buffer is on its MPOL_BIND node; a bound VMA is no NUMA balancing's (vma_policy_mof), so no
// hinting fault is taken. Under INVERSE_BIND both buffers are on node 1.
TEST(Autonumabench, HardAndInverseBindPlaceEachProcess) {
    for (const char* bind : {"hard", "inverse"}) {
        SCOPED_TRACE(bind);
        auto r = test::run_workload("tiny-2n",
                                    std::string("[[workload]]\ntype='autonumabench'\n"
                                                "test='NUMA01'\nsize='64MiB'\nloops=2\nbind='") +
                                        bind + "'\n",
                                    20);
        const bool inverse = std::string(bind) == "inverse";
        std::map<int, int> cpu_node_of_tgid;  // the node each process's threads may run on
        const int first_tgid = r.sys->tasks.front()->tgid;
        for (const auto& t : r.sys->tasks) {
            if (t->workload != 0) continue;
            const int node = t->tgid == first_tgid ? 1 : 0;  // parent: SECOND_HALF
            cpu_node_of_tgid[t->tgid] = node;
            for (int c = 0; c < r.sys->nr_cpus(); ++c)
                EXPECT_EQ(t->allowed(c), r.sys->topo.node_of(c) == node) << "cpu " << c;
        }
        EXPECT_EQ(cpu_node_of_tgid.size(), 2u);
        int mms = 0;
        for (const auto& mm : r.sys->mms) {
            Region* b = find_region(*mm, "buffer");
            if (!b) continue;
            ++mms;
            const int tgid = mm->tasks.front()->tgid;
            const int mem_node = inverse ? 1 : cpu_node_of_tgid.at(tgid);
            EXPECT_EQ(b->pages_on(mem_node), b->count);
        }
        EXPECT_EQ(mms, 2);
        EXPECT_EQ(r.sys->counters[Vm::numa_hint_faults], 0u);
        const WorkloadResult w = r.w->result(*r.sys);
        EXPECT_TRUE(test::figure<bool>(w, "finished"));
        EXPECT_EQ(test::figure<std::string>(w, "bind"), bind);
    }
}

TEST(Autonumabench, BindErrorsNameTheKey) {
    const InputError numa02 = test::parse_error(
        "[[workload]]\ntype='autonumabench'\ntest='NUMA02'\nsize='64MiB'\nbind='hard'\n");
    EXPECT_NE(numa02.where().find("bind"), std::string::npos);
    EXPECT_NE(std::string(numa02.what()).find("only NUMA01"), std::string::npos);
    const InputError bad = test::parse_error(
        "[[workload]]\ntype='autonumabench'\ntest='NUMA01'\nsize='64MiB'\nbind='soft'\n");
    EXPECT_NE(std::string(bad.what()).find("hard"), std::string::npos);
    // INVERSE_BIND puts both 3 GiB buffers on node 1 of 2 GiB.
    const InputError room = test::parse_error(
        "[[workload]]\ntype='autonumabench'\ntest='NUMA01'\nsize='1536MiB'\nbind='inverse'\n");
    EXPECT_NE(std::string(room.what()).find("bound to nodes holding"), std::string::npos);
}

// NUMA02: the main thread zeroes the buffer, then NCPUS threads work on their own slices while
// it waits in pthread_join().
TEST(Autonumabench, Numa02StartsOneThreadPerCpuAfterTheMainThreadZeroes) {
    auto r = test::run_workload(
        "tiny-4n", "[[workload]]\ntype='autonumabench'\ntest='NUMA02'\nsize='64MiB'\nloops=2\n",
        10);
    int threads = 0;
    for (const auto& t : r.sys->tasks)
        threads += t->workload == 0;
    EXPECT_EQ(threads, r.sys->nr_cpus() + 1);
    const WorkloadResult m = r.w->result(*r.sys);
    EXPECT_TRUE(test::figure<bool>(m, "finished"));
    EXPECT_EQ(test::figure<int64_t>(m, "threads_per_process"), r.sys->nr_cpus());
    // Main thread's node holds everything it zeroed (first touch, default policy).
    Region* b = find_region(*r.sys->mms[0], "buffer");
    ASSERT_NE(b, nullptr);
    EXPECT_EQ(b->present, b->count);
}

}  // namespace
}  // namespace numasim
