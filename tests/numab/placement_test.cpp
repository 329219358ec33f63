// Placement, scan-period adaptation and scan-period bounds with hand-worked numbers.
#include "numab_fixture.h"

namespace numasim::test {
namespace {

TEST(Placement, HalvesOldFaultsAndAddsNew) {
    NumabWorld w;
    Mm& mm = w.new_mm();
    Task& p = w.new_task(mm, 1000, 0);
    w.give_faults(p);
    const int mem = task_faults_idx(w.sys, NUMA_MEM, 0, 1);
    const int membuf = task_faults_idx(w.sys, NUMA_MEMBUF, 0, 1);
    p.numa_faults[mem] = 100;
    p.numa_faults[membuf] = 40;
    p.total_numa_faults = 100;
    p.numa_faults_locality[1] = 40;
    mm.numa_scan_seq = 1;  // a pass completed since p last looked
    task_numa_placement(w.sys, p);
    // MEM += MEMBUF - MEM/2 = 100 + 40 - 50 = 90; the buffer is emptied.
    EXPECT_EQ(p.numa_faults[mem], 90u);
    EXPECT_EQ(p.numa_faults[membuf], 0u);
    EXPECT_EQ(p.total_numa_faults, 90u);
    EXPECT_EQ(p.numa_scan_seq, 1);
    EXPECT_EQ(p.numa_preferred_nid, 0);
    // Once per pass: a second call in the same pass changes nothing.
    p.numa_faults[membuf] = 10;
    task_numa_placement(w.sys, p);
    EXPECT_EQ(p.numa_faults[mem], 90u);
}

TEST(ScanPeriod, SlotArithmetic) {
    NumabWorld w;
    Mm& mm = w.new_mm();
    Task& p = w.new_task(mm, 1000, 0);
    p.numa_scan_period_max = 60000;
    // Empty mm: one window, task_scan_min = max(1000/(2560/256), 1000/1) = 1000.
    p.numa_scan_period = 1000;
    p.numa_faults_locality[0] = 2;  // remote
    p.numa_faults_locality[1] = 8;  // local: lr_ratio 8
    // private 10, shared 0: ps_ratio 10 >= 7, diff = (10-7) * ceil(1000/10) = 300.
    update_task_scan_period(w.sys, p, 0, 10);
    EXPECT_EQ(p.numa_scan_period, 1300u);
    EXPECT_EQ(p.numa_faults_locality[0], 0u);
    EXPECT_EQ(p.numa_faults_locality[1], 0u);

    // lr 3, ps 5: speed up by (7 - 5) slots of ceil(2000/10) = 200 -> 1600.
    p.numa_scan_period = 2000;
    p.numa_faults_locality[0] = 7;
    p.numa_faults_locality[1] = 3;
    update_task_scan_period(w.sys, p, 5, 5);
    EXPECT_EQ(p.numa_scan_period, 1600u);

    // Clamped at task_scan_min: 1000 - 7*100 -> 1000.
    p.numa_scan_period = 1000;
    p.numa_faults_locality[0] = 10;
    p.numa_faults_locality[1] = 0;
    update_task_scan_period(w.sys, p, 10, 0);  // lr 0, ps 0
    EXPECT_EQ(p.numa_scan_period, 1000u);
}

TEST(ScanPeriod, DoublesOnMigrationFailureAndKeepsLocality) {
    NumabWorld w;
    Mm& mm = w.new_mm();
    Task& p = w.new_task(mm, 1000, 0);
    p.numa_scan_period_max = 3000;
    p.numa_scan_period = 2000;
    p.numa_faults_locality[0] = 1;
    p.numa_faults_locality[1] = 9;
    p.numa_faults_locality[2] = 1;  // a migration failed in this pass
    update_task_scan_period(w.sys, p, 0, 10);
    EXPECT_EQ(p.numa_scan_period, 3000u);      // min(max, 2 * 2000)
    EXPECT_EQ(p.numa_faults_locality[2], 1u);  // not cleared: sticks to the next pass
    EXPECT_EQ(p.numa_faults_locality[1], 9u);
    // No local and no shared faults (local + shared == 0) also doubles.
    p.numa_faults_locality[2] = 0;
    p.numa_faults_locality[1] = 0;
    p.numa_scan_period = 1000;
    update_task_scan_period(w.sys, p, 0, 10);
    EXPECT_EQ(p.numa_scan_period, 2000u);
}

// The step that paces the forced walk through numa01's thread stacks (docs/validation.md,
// inactive-vma): a thread's first hinting fault of a pass runs placement before the fault is
// counted, finds nothing recorded (local + shared == 0), doubles the thread's period and moves
// the mm's next scan to now + that period, past the 1 s a sibling's walk had just set.
TEST(ScanPeriod, FirstFaultOfAPassWithNothingRecordedMovesTheMmsNextScan) {
    NumabWorld w;
    Mm& mm = w.new_mm();
    w.new_vma(mm, 262144, 0);  // 1 GiB on node 0: 4 windows, task_scan_max = 60000 / 4 = 15000
    Task& p = w.new_task(mm, 1000, 0);
    ASSERT_EQ(p.numa_scan_period, 1000u);  // scan_delay: a new thread's period
    // Five passes completed while nothing was scannable; p has never placed.
    mm.numa_scan_seq = 5;
    w.sys.now = msecs_to_ns(30'000);
    mm.numa_next_scan = msecs_to_ns(31'000);  // a sibling's walk at 30 s, its period 1000 ms

    task_numa_fault(w.sys, p, CPUPID_UNSET, 0, 1, TNF_FAULT_LOCAL);
    EXPECT_EQ(p.numa_scan_seq, 5);
    EXPECT_EQ(p.numa_scan_period, 2000u);               // min(15000, 2 * 1000)
    EXPECT_EQ(mm.numa_next_scan, msecs_to_ns(32'000));  // 30 s + 2000 ms
    EXPECT_EQ(p.numa_faults_locality[1], 1u);           // counted after placement

    // Later faults of the same pass do not place again, so they leave the gate alone.
    w.sys.now = msecs_to_ns(32'000);
    mm.numa_next_scan = msecs_to_ns(33'000);
    task_numa_fault(w.sys, p, CPUPID_UNSET, 0, 1, TNF_FAULT_LOCAL);
    EXPECT_EQ(p.numa_scan_period, 2000u);
    EXPECT_EQ(mm.numa_next_scan, msecs_to_ns(33'000));

    // The next pass finds the two local private faults: ps_ratio 10, so the period grows by
    // (10 - 7) slots of ceil(2000 / 10) = 600 ms, and the gate is not touched.
    mm.numa_scan_seq = 6;
    w.sys.now = msecs_to_ns(34'000);
    mm.numa_next_scan = msecs_to_ns(35'000);
    task_numa_fault(w.sys, p, CPUPID_UNSET, 0, 1, TNF_FAULT_LOCAL);
    EXPECT_EQ(p.numa_scan_seq, 6);
    EXPECT_EQ(p.numa_scan_period, 2600u);
    EXPECT_EQ(mm.numa_next_scan, msecs_to_ns(35'000));
}

TEST(ScanPeriod, BoundsFollowRss) {
    NumabWorld w;
    Mm& mm = w.new_mm();
    Task& p = w.new_task(mm, 1000, 0);
    // 1 GiB resident = 262144 pages = 4 windows of 256 MiB.
    w.new_vma(mm, 262144, 0);
    EXPECT_EQ(task_scan_min(w.sys, p), 250u);    // max(100, 1000/4)
    EXPECT_EQ(task_scan_max(w.sys, p), 15000u);  // 60000/4
    EXPECT_EQ(task_scan_start(w.sys, p), 250u);
    // In a group of 2 with only shared faults the start period doubles:
    // 250 * refcount 2 * (shared 199 + 1) / (0 + 199 + 1) = 500; max 15000 * 2 = 30000.
    NumaGroup g;
    g.refcount = 2;
    g.faults.assign(static_cast<size_t>(4 * w.sys.nr_nodes()), 0);
    g.faults[task_faults_idx(w.sys, NUMA_MEM, 0, 0)] = 199;
    p.numa_group = &g;
    EXPECT_EQ(task_scan_start(w.sys, p), 500u);
    EXPECT_EQ(task_scan_max(w.sys, p), 30000u);
    p.numa_group = nullptr;
}

TEST(ScanPeriod, ScanMinFloorAtSmallRss) {
    NumabWorld w;
    Mm& mm = w.new_mm();
    Task& p = w.new_task(mm, 1000, 0);
    w.new_vma(mm, 16, 0);
    EXPECT_EQ(task_scan_min(w.sys, p), 1000u);  // one window: scan_period_min
    EXPECT_EQ(task_scan_max(w.sys, p), 60000u);
}

}  // namespace
}  // namespace numasim::test
