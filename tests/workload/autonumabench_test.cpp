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
