// The v3.8-v3.13 switches: each part of the scheduler side of NUMA balancing off on its own,
// against the same call with it on.
#include "numab_fixture.h"

namespace numasim::test {
namespace {

// One placement pass with 40 new private faults on node 0, all local (the numbers of
// Placement.HalvesOldFaultsAndAddsNew): MEM 100 -> 90, preferred node 0, and with the scan
// period at 1000 ms: ps_ratio 10 >= 7, diff = (10 - 7) x ceil(1000 / 10) = 300 -> 1300 ms.
Task& placement_pass(NumabWorld& w) {
    Mm& mm = w.new_mm();
    Task& p = w.new_task(mm, 1000, 0);
    w.give_faults(p);
    p.numa_faults[task_faults_idx(w.sys, NUMA_MEM, 0, 1)] = 100;
    p.numa_faults[task_faults_idx(w.sys, NUMA_MEMBUF, 0, 1)] = 40;
    p.total_numa_faults = 100;
    p.numa_faults_locality[1] = 40;
    p.numa_scan_period = 1000;
    mm.numa_scan_seq = 1;
    task_numa_placement(w.sys, p);
    return p;
}

TEST(NumaHistory, PlacementOnSetsPreferredNodeAndAdaptsScanPeriod) {
    NumabWorld w;
    Task& p = placement_pass(w);
    EXPECT_EQ(p.numa_faults[task_faults_idx(w.sys, NUMA_MEM, 0, 1)], 90u);
    EXPECT_EQ(p.numa_preferred_nid, 0);
    EXPECT_EQ(p.numa_scan_period, 1300u);
}

TEST(NumaHistory, NoPreferredNidKeepsStatisticsButPrefersNothing) {
    NumabWorld w;
    w.sys.knobs.numa_preferred_nid = false;
    Task& p = placement_pass(w);
    EXPECT_EQ(p.numa_faults[task_faults_idx(w.sys, NUMA_MEM, 0, 1)], 90u);
    EXPECT_EQ(p.numa_preferred_nid, NUMA_NO_NODE);
    EXPECT_EQ(p.numa_scan_period, 1300u);
}

TEST(NumaHistory, NoScanAdaptKeepsTheScanPeriod) {
    NumabWorld w;
    w.sys.knobs.numa_scan_adapt = false;
    Task& p = placement_pass(w);
    EXPECT_EQ(p.numa_preferred_nid, 0);
    EXPECT_EQ(p.numa_scan_period, 1000u);
    EXPECT_EQ(p.numa_faults_locality[1], 40u);  // update_task_scan_period did not reset it
}

// p runs on CPU 0 (node 0) and prefers node 1, where all its faults are and both CPUs idle:
// task_numa_migrate takes an idle CPU there (imbalance 1 - 0 = 1 is allowed).
Task& misplaced(NumabWorld& w) {
    Mm& mm = w.new_mm();
    Task& p = w.new_task(mm, 1000, 0, true);
    w.set_mem_faults(p, 1, 0, 100);
    sched_setnuma(w.sys, p, 1);
    return p;
}

TEST(NumaHistory, TaskMigrateMovesTowardThePreferredNode) {
    NumabWorld w;
    Task& p = misplaced(w);
    numa_migrate_preferred(w.sys, p);
    EXPECT_EQ(w.sys.cpu_to_node(p.cpu), 1);
    EXPECT_EQ(w.sys.counters.sched_move_numa, 1u);
}

TEST(NumaHistory, NoTaskMigrateLeavesTheTaskWhereItIs) {
    NumabWorld w;
    w.sys.knobs.numa_task_migrate = false;
    Task& p = misplaced(w);
    numa_migrate_preferred(w.sys, p);
    EXPECT_EQ(p.cpu, 0);
    EXPECT_EQ(w.sys.counters.sched_move_numa, 0u);
    EXPECT_EQ(w.sys.counters.sched_stick_numa, 0u);
    EXPECT_EQ(p.numa_preferred_nid, 1);  // the preference itself stays
}

// A fault on a page last touched by another pid (4242 on CPU 3) is shared: with groups the
// task gets a group of its own (task_numa_group); without, the fault stays a shared one.
TEST(NumaHistory, GroupsOnAndOff) {
    for (const bool groups : {true, false}) {
        NumabWorld w;
        w.sys.knobs.numa_groups = groups;
        Mm& mm = w.new_mm();
        Task& p = w.new_task(mm, 1000, 0, true);
        task_numa_fault(w.sys, p, cpu_pid_to_cpupid(3, 4242), 0, 1, 0);
        EXPECT_EQ(p.numa_group != nullptr, groups);
        EXPECT_EQ(w.sys.numa_groups.size(), groups ? 1u : 0u);
        EXPECT_EQ(p.numa_faults[task_faults_idx(w.sys, NUMA_MEMBUF, 0, 0)], 1u);  // shared
        EXPECT_EQ(p.numa_faults[task_faults_idx(w.sys, NUMA_MEMBUF, 0, 1)], 0u);
    }
}

}  // namespace
}  // namespace numasim::test
