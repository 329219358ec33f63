// kswapd as a task of the scheduler (mm/vmscan.h), driven through the engine on
// cascadelake-2s-pmem under v6.6: node 0 (CPUs of socket 0, 96 GiB DRAM) demotes to node 2.
#include <gtest/gtest.h>

#include <vector>

#include "engine/engine.h"
#include "kernel/system.h"
#include "mm/fault.h"
#include "mm/lru_add.h"
#include "mm/mm_fixture.h"
#include "mm/vma.h"
#include "mm/vmscan.h"
#include "sched_fixture.h"

namespace numasim {
namespace {

struct KswapdTask : ::testing::Test {
    mmtest::World w{"cascadelake-2s-pmem"};
    schedtest::Programs programs;
    std::vector<Task*> pinned;  // one CPU-bound task on each CPU of node 0

    void SetUp() override {
        w.sys.set_kernel_release("v6.6");
        w.sys.knobs.demotion_enabled = true;
        // 40000 cold pages on node 0: far more than the 25167 that take it from below its low
        // watermark to above its high one (96 GiB * 10 / 10000 = 25165 pages between marks).
        Mm& mm = mm_create(w.sys);
        Vma& v = do_mmap(w.sys, mm, 40000 * kPages4K.size(), VM_READ | VM_WRITE, "anon");
        Task& toucher = w.task_on(0);
        for (uint64_t i = 0; i < 40000; ++i)
            handle_mm_fault(w.sys, toucher, v, i, true);
        lru_add_drain_all(w.sys);
        for (int cpu : w.sys.topo.nodes[0].cpus) {
            Phase ph = schedtest::cpu_work(10 * NSEC_PER_SEC);
            ph.set_affinity = std::vector<int>{cpu};
            pinned.push_back(&programs.fork(w.sys, nullptr, {ph}));
        }
    }
    NodeMemory& node(int nid) { return w.sys.mem.nodes[static_cast<size_t>(nid)]; }
};

// Every CPU of node 0 runs a task of its own; kswapd0, woken at 1 ms from CPU 0, must share one
// of them. In the 40 ms after, its node's CPUs give exactly 36 x 40 ms to their tasks and
// kswapd together (none of it to a node 1 CPU, none lost); kswapd gets part, not all, of a CPU,
// is preempted, and has not finished: 25167 pages need at least 25 ms of scans alone
// (RECLAIM_SCAN_FOLIO_NS each), more than a shared CPU gives it in 40 ms.
TEST_F(KswapdTask, KswapdSharesItsNodesBusyCpusAsATask) {
    Engine eng(w.sys);
    eng.run(NSEC_PER_MSEC);
    const std::vector<int>& cpus = w.sys.topo.nodes[0].cpus;
    for (size_t i = 0; i < cpus.size(); ++i)
        ASSERT_EQ(pinned[i]->cpu, cpus[i]);
    Nanos before = 0;
    for (const Task* t : pinned)
        before += t->sum_exec_runtime;
    // (A task forked onto node 1 paid its context switch there before it moved.)
    std::vector<Nanos> node1_busy;
    for (int cpu : w.sys.topo.nodes[1].cpus)
        node1_busy.push_back(w.sys.rqs[static_cast<size_t>(cpu)].busy_time);
    // Node 0 below its low watermark without touching 25 M pages: the pages taken from its free
    // count leave its present count too (as if reserved), so that the pages in use still match
    // the allocated frames, which the invariant checker (on in the sanitizer build) compares.
    const uint64_t taken = node(0).free_pages - (node(0).wmark_low - 1);
    node(0).present_pages -= taken;
    node(0).free_pages -= taken;
    wakeup_kswapd(w.sys, 0, {cpus[0], 0, TraceGfp::HighuserMovableZero});
    ASSERT_EQ(w.sys.kswapd.size(), static_cast<size_t>(w.sys.nr_nodes()));
    const Task& k = *w.sys.kswapd[0];
    EXPECT_EQ(k.state, TaskState::Sleeping);
    eng.run(41 * NSEC_PER_MSEC);
    // Bound to node 0's CPUs, and on one of them.
    EXPECT_EQ(k.nr_cpus_allowed, static_cast<int>(cpus.size()));
    EXPECT_EQ(w.sys.cpu_to_node(k.cpu), 0);
    EXPECT_NE(k.state, TaskState::Sleeping);
    Nanos after = 0;
    for (const Task* t : pinned)
        after += t->sum_exec_runtime;
    EXPECT_EQ(after - before + k.sum_exec_runtime,
              static_cast<Nanos>(cpus.size()) * 40 * NSEC_PER_MSEC);
    EXPECT_GT(k.sum_exec_runtime, 0);
    EXPECT_LT(k.sum_exec_runtime, 40 * NSEC_PER_MSEC);
    EXPECT_GE(k.nivcsw, 1u);
    // Its CPU time is its system time (and the refill of a move, if the balancer moved it).
    EXPECT_EQ(k.stime + k.utime, k.sum_exec_runtime);
    EXPECT_EQ(static_cast<uint64_t>(k.stime), w.sys.counters.kswapd_stime_ns[0]);
    EXPECT_EQ(node(0).kswapd.state, KswapdState::Running);
    EXPECT_FALSE(pgdat_balanced(w.sys, 0));
    EXPECT_GT(w.sys.counters.pgdemote_kswapd, 0u);
    // A kernel thread: no mm, so no NUMA scan work and no faults.
    EXPECT_EQ(k.mm, nullptr);
    EXPECT_FALSE(k.numa_work_pending);
    EXPECT_EQ(k.nr_faults, 0u);
    // The node 1 CPUs stayed idle.
    for (size_t i = 0; i < node1_busy.size(); ++i) {
        const int cpu = w.sys.topo.nodes[1].cpus[i];
        EXPECT_EQ(w.sys.rqs[static_cast<size_t>(cpu)].busy_time, node1_busy[i]) << cpu;
    }
}

}  // namespace
}  // namespace numasim
