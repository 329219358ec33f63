// NUMA01_THREADLOCAL-style convergence, and the balancing-off baseline.
#include <gtest/gtest.h>

#include "sim_fixture.h"

namespace numasim {
namespace {

using testing::thread_local_setup;

TEST(ThreadLocalScenario, ConvergesToLocalHintFaults) {
    System sys(load_preset("tiny-2n"), load_profile("v6.1"), 7);
    auto s = thread_local_setup(sys, 4, 256, 0, 20.0);
    Engine eng(sys);
    // Convergence takes a few scan passes; count the hint faults after it.
    eng.run(12 * NSEC_PER_SEC);
    const uint64_t faults0 = sys.counters[Vm::numa_hint_faults];
    const uint64_t local0 = sys.counters[Vm::numa_hint_faults_local];
    eng.run(40 * NSEC_PER_SEC);
    const auto& c = sys.counters;
    const uint64_t late_faults = c[Vm::numa_hint_faults] - faults0;
    const uint64_t late_local = c[Vm::numa_hint_faults_local] - local0;
    ASSERT_GT(late_faults, 0u);
    EXPECT_GE(static_cast<double>(late_local) / static_cast<double>(late_faults), 0.90);
    EXPECT_GT(c[Vm::numa_hint_faults], 0u);
    EXPECT_LE(c[Vm::numa_hint_faults_local], c[Vm::numa_hint_faults]);
    // Two threads run on node 1: their 2 x 65536 pages move there.
    EXPECT_GE(c[Vm::numa_pages_migrated], 120000u);
    EXPECT_LE(c[Vm::numa_pages_migrated], 140000u);
    // After convergence nearly all hint faults are local.
    const uint64_t local = c[Vm::numa_hint_faults_local];
    EXPECT_GE(static_cast<double>(local) / c[Vm::numa_hint_faults], 0.75);
}

TEST(ThreadLocalScenario, BalancingOffLeavesCountersAtZero) {
    NumaBalancingKnobs k = load_profile("v6.12");
    k.numa_balancing = 0;
    System sys(load_preset("tiny-2n"), k, 7);
    auto s = thread_local_setup(sys, 4, 64, 0, 3.0);
    Engine eng(sys);
    eng.run(10 * NSEC_PER_SEC);
    const auto& c = sys.counters;
    for (Vm v : {Vm::numa_pte_updates, Vm::numa_huge_pte_updates, Vm::numa_hint_faults,
                 Vm::numa_hint_faults_local, Vm::numa_pages_migrated})
        EXPECT_EQ(c[v], 0u) << kVmNames[static_cast<size_t>(v)];
    EXPECT_EQ(c.sched_move_numa + c.sched_swap_numa + c.sched_stick_numa, 0u);
}

}  // namespace
}  // namespace numasim
