// vma_is_accessed in each release shape, and task_numa_work's budget and offsets.
#include "numab_fixture.h"

namespace numasim::test {
namespace {

struct VmaAccess : ::testing::Test {
    NumabWorld w;
    Mm* mm = nullptr;
    Task* p = nullptr;
    Vma* vma = nullptr;
    void SetUp() override {
        mm = &w.new_mm();
        p = &w.new_task(*mm, 1000, 0);
        w.new_task(*mm, 1001, 1);
        vma = &w.new_vma(*mm, 64, 0);
        VmaNumabState ns;
        ns.start_scan_seq = 4;
        ns.prev_scan_seq = 4;
        vma->numab_state = ns;
        mm->numa_scan_seq = 5;
        mm->numa_scan_offset = 0;
    }
    bool accessed(VmaScanSelection s, bool per_vma, bool guard) {
        w.sys.knobs.vma_scan = s;
        w.sys.knobs.per_vma_start_scan_seq = per_vma;
        w.sys.knobs.starvation_guard = guard;
        return vma_is_accessed(w.sys, *mm, *vma, *p);
    }
};

TEST_F(VmaAccess, AllScansEverything) {
    EXPECT_TRUE(accessed(VmaScanSelection::All, false, false));
}

TEST_F(VmaAccess, V66UsesMmWideFirstTwoPasses) {
    EXPECT_FALSE(accessed(VmaScanSelection::PidsActive, false, false));  // seq 5 >= 2
    mm->numa_scan_seq = 1;
    EXPECT_TRUE(accessed(VmaScanSelection::PidsActive, false, false));
}

TEST_F(VmaAccess, V68CountsPassesPerVma) {
    // 5 - start_scan_seq 4 = 1 < 2
    EXPECT_TRUE(accessed(VmaScanSelection::PidsActiveForced, true, false));
    vma->numab_state->start_scan_seq = 3;
    EXPECT_FALSE(accessed(VmaScanSelection::PidsActiveForced, true, false));
}

TEST_F(VmaAccess, PidBitInEitherSlot) {
    const unsigned bit = hash_32(1000, 6);  // 61
    vma->numab_state->pids_active[0][0] = uint64_t{1} << bit;
    EXPECT_TRUE(accessed(VmaScanSelection::PidsActive, false, false));
    vma->numab_state->pids_active[0][0] = 0;
    vma->numab_state->pids_active[1][0] = uint64_t{1} << bit;
    EXPECT_TRUE(accessed(VmaScanSelection::PidsActive, false, false));
    vma->numab_state->pids_active[1][0] = uint64_t{1} << 22;  // pid 1001's bit
    EXPECT_FALSE(accessed(VmaScanSelection::PidsActive, false, false));
}

TEST_F(VmaAccess, Bitmap128UsesSevenBitsOverTwoWords) {
    w.sys.knobs.pids_active_bits = 128;
    const unsigned bit = hash_32(1000, 7);  // 123: word 1, bit 59
    vma->numab_state->pids_active[1][1] = uint64_t{1} << (bit - 64);
    EXPECT_TRUE(accessed(VmaScanSelection::PidsActive, false, false));
}

TEST_F(VmaAccess, V67FinishesPartialVma) {
    mm->numa_scan_offset = vma->start + kPages4K.size();
    EXPECT_FALSE(accessed(VmaScanSelection::PidsActive, false, false));  // v6.6: no such rule
    EXPECT_TRUE(accessed(VmaScanSelection::PidsActiveForced, false, false));
    EXPECT_EQ(
        w.sys.counters.sched_skip_vma_numa[static_cast<size_t>(SkipVmaReason::IgnorePidInactive)],
        1u);
}

TEST_F(VmaAccess, V612StarvationGuard) {
    vma->numab_state->prev_scan_seq = 1;  // 5 > 1 + 2 threads
    EXPECT_FALSE(accessed(VmaScanSelection::PidsActiveForced, false, false));
    EXPECT_TRUE(accessed(VmaScanSelection::PidsActiveForced, false, true));
    vma->numab_state->prev_scan_seq = 3;  // 5 > 3 + 2 is false
    EXPECT_FALSE(accessed(VmaScanSelection::PidsActiveForced, false, true));
}

TEST(VmaPidBit, SetOnHintFaultIntoCurrentSlot) {
    NumabWorld w;
    Mm& mm = w.new_mm();
    Task& p = w.new_task(mm, 1000, 0);
    Vma& vma = w.new_vma(mm, 8, 0);
    vma_set_access_pid_bit(w.sys, vma, p);  // no numab_state yet: nothing
    vma.numab_state = VmaNumabState{};
    vma_set_access_pid_bit(w.sys, vma, p);
    EXPECT_EQ(vma.numab_state->pids_active[1][0], uint64_t{1} << 61);
    EXPECT_EQ(vma.numab_state->pids_active[0][0], 0u);
}

struct ScanWork : ::testing::Test {
    NumabWorld w;
    Mm* mm = nullptr;
    Task* p = nullptr;
    void SetUp() override {
        w.sys.knobs.vma_scan = VmaScanSelection::All;
        mm = &w.new_mm();
        p = &w.new_task(*mm, 1000, 0);
        w.new_task(*mm, 1001, 2);
        w.sys.now = 10 * NSEC_PER_SEC;
        mm->numa_next_scan = TICK_NSEC;  // due
        p->numa_scan_period = 1000;
    }
};

TEST_F(ScanWork, BudgetStopsInsideTheVmaAtTheWindow) {
    // 512 MiB present: the 256 MiB window (65536 pages) ends halfway.
    Vma& vma = w.new_vma(*mm, 131072, 0);
    const double ns = task_numa_work(w.sys, *p);
    EXPECT_GT(ns, 0.0);
    EXPECT_EQ(w.sys.counters[Vm::numa_pte_updates], 65536u);
    EXPECT_EQ(mm->numa_scan_offset, vma.start + 65536 * kPages4K.size());
    EXPECT_EQ(mm->numa_scan_seq, 0);
    // node_stamp: 2 ticks for winning plus 32x the scan's kernel time.
    EXPECT_EQ(p->node_stamp, 2 * TICK_NSEC + static_cast<Nanos>(32 * ns));
    // Next window: rate-limited until numa_next_scan.
    EXPECT_EQ(task_numa_work(w.sys, *p), 0.0);
    w.sys.now += 2 * NSEC_PER_SEC;
    task_numa_work(w.sys, *p);
    EXPECT_EQ(w.sys.counters[Vm::numa_pte_updates], 131072u);
    // The budget ran out exactly at the VMA's end: the kernel leaves the offset there and
    // completes the pass on the next window.
    EXPECT_EQ(mm->numa_scan_seq, 0);
    EXPECT_EQ(mm->numa_scan_offset, vma.end);
    // Next window: nothing after the offset, so the pass completes (seq 1) and the walk
    // restarts at 0; every PTE is PROT_NONE already, so it runs off the end again (seq 2).
    w.sys.now += 2 * NSEC_PER_SEC;
    task_numa_work(w.sys, *p);
    EXPECT_EQ(mm->numa_scan_seq, 2);
    EXPECT_EQ(w.sys.counters[Vm::numa_pte_updates], 131072u);
}

// With 64 KiB pages (ppc64) scan_size_mb is counted in them: 256 MiB is 4096 pages, and the
// window over 512 MiB present (8192 pages) ends halfway, at the same address as with 4 KiB.
TEST_F(ScanWork, WindowIsScanSizeIn64KPages) {
    w.sys.topo.hw.pages = kPages64KRadix;
    Mm& mm64 = w.new_mm();
    Task& t = w.new_task(mm64, 1002, 0);
    w.new_task(mm64, 1003, 2);
    mm64.numa_next_scan = TICK_NSEC;
    t.numa_scan_period = 1000;
    Vma& vma = w.new_vma(mm64, 8192, 0);
    EXPECT_EQ(vma.end - vma.start, uint64_t{512} << 20);
    task_numa_work(w.sys, t);
    EXPECT_EQ(w.sys.counters[Vm::numa_pte_updates], 4096u);
    EXPECT_EQ(mm64.numa_scan_offset, vma.start + (uint64_t{256} << 20));
}

// MAP_SHARED anonymous memory is shmem: vma_policy_mof() asks its get_policy op, which has no
// MPOL_F_MOF policy to give (not even after mbind()), so task_numa_work skips it as unsuitable.
// The same pages mapped privately are scanned.
TEST_F(ScanWork, SharedAnonymousMemoryIsUnsuitable) {
    Vma& shm = w.new_vma(*mm, 64, 0);
    shm.vm_flags |= VM_SHARED;
    task_numa_work(w.sys, *p);
    EXPECT_EQ(w.sys.counters[Vm::numa_pte_updates], 0u);
    shm.policy = MemPolicy{MpolMode::Bind, 1, 0};
    w.sys.now += 2 * NSEC_PER_SEC;
    task_numa_work(w.sys, *p);
    EXPECT_EQ(w.sys.counters[Vm::numa_pte_updates], 0u);
    shm.vm_flags &= ~VM_SHARED;
    shm.policy.reset();
    w.sys.now += 2 * NSEC_PER_SEC;
    task_numa_work(w.sys, *p);
    EXPECT_EQ(w.sys.counters[Vm::numa_pte_updates], 64u);
}

// A task under MPOL_BIND (no MPOL_F_MOF) finds every VMA unsuitable before any numab_state is
// allocated, yet its walk runs off the end and completes a pass. This is the first-touching main
// thread of the oracle's numa01tl on the real 6.12 kernel (docs/oracle.md, "The real 6.12 kernel
// against the v6.12 profile": 312 and 234 unsuitable skips, all its own). Once the policy is
// dropped, the next walk allocates the states at numa_scan_seq 1 and so waits out scan_delay; the
// one after that scans both VMAs, within the first two passes counted from start_scan_seq.
TEST_F(ScanWork, BoundTaskWalksEveryVmaAsUnsuitableAndEndsThePass) {
    w.sys.knobs.vma_scan = VmaScanSelection::PidsActiveForced;  // v6.12's rules
    w.sys.knobs.per_vma_start_scan_seq = true;
    w.sys.knobs.starvation_guard = true;
    w.sys.knobs.scan_delay_ms = 1000;
    const auto count = [&](SkipVmaReason r) {
        return w.sys.counters.sched_skip_vma_numa[static_cast<size_t>(r)];
    };
    Vma& a = w.new_vma(*mm, 64, 0);
    Vma& b = w.new_vma(*mm, 64, 0);
    p->has_mempolicy = true;
    p->mempolicy = MemPolicy{MpolMode::Bind, 1, 0};
    task_numa_work(w.sys, *p);
    EXPECT_EQ(count(SkipVmaReason::Unsuitable), 2u);
    EXPECT_EQ(w.sys.counters[Vm::numa_pte_updates], 0u);
    EXPECT_FALSE(a.numab_state.has_value());
    EXPECT_FALSE(b.numab_state.has_value());
    EXPECT_EQ(mm->numa_scan_seq, 1);  // reset_ptenuma_scan() at the end of the list
    EXPECT_EQ(mm->numa_scan_offset, 0u);

    p->has_mempolicy = false;
    w.sys.now += 2 * NSEC_PER_SEC;
    task_numa_work(w.sys, *p);
    EXPECT_EQ(count(SkipVmaReason::ScanDelay), 2u);
    ASSERT_TRUE(a.numab_state.has_value());
    EXPECT_EQ(a.numab_state->start_scan_seq, 1);
    EXPECT_EQ(a.numab_state->next_scan, w.sys.now + NSEC_PER_SEC);
    EXPECT_EQ(mm->numa_scan_seq, 2);

    w.sys.now += 2 * NSEC_PER_SEC;
    task_numa_work(w.sys, *p);
    EXPECT_EQ(w.sys.counters[Vm::numa_pte_updates], 128u);  // seq 2 - start 1 < 2: exempt
    EXPECT_EQ(count(SkipVmaReason::PidInactive), 0u);
    EXPECT_EQ(count(SkipVmaReason::Unsuitable), 2u);
}

TEST_F(ScanWork, EmptyRangesUseOnlyTheVirtualCap) {
    // 4 GiB VMA with only its last page present: the walk gives up after 8 x 256 MiB.
    Vma& vma = w.new_vma(*mm, 1048576, 0, false);
    vma.present.set(1048575);
    task_numa_work(w.sys, *p);
    EXPECT_EQ(w.sys.counters[Vm::numa_pte_updates], 0u);
    EXPECT_EQ(mm->numa_scan_offset, vma.start + 8 * 65536 * kPages4K.size());
}

TEST_F(ScanWork, PidInactiveVmaIsForcedOnlyInV67) {
    w.sys.knobs.vma_scan = VmaScanSelection::PidsActive;
    w.sys.knobs.per_vma_start_scan_seq = false;
    w.sys.knobs.starvation_guard = false;
    Vma& vma = w.new_vma(*mm, 64, 0);
    mm->numa_scan_seq = 5;
    VmaNumabState ns;
    ns.next_scan = 0;
    ns.pids_active_reset = 100 * NSEC_PER_SEC;
    ns.start_scan_seq = 0;
    ns.prev_scan_seq = 4;
    vma.numab_state = ns;
    task_numa_work(w.sys, *p);
    EXPECT_EQ(w.sys.counters[Vm::numa_pte_updates], 0u);  // v6.6: skipped, no retry

    w.sys.knobs.vma_scan = VmaScanSelection::PidsActiveForced;
    w.sys.now += 2 * NSEC_PER_SEC;
    task_numa_work(w.sys, *p);
    EXPECT_EQ(w.sys.counters[Vm::numa_pte_updates], 64u);  // forced on the retry
    EXPECT_GE(w.sys.counters.sched_skip_vma_numa[static_cast<size_t>(SkipVmaReason::PidInactive)],
              1u);
    EXPECT_EQ(vma.numab_state->prev_scan_seq, mm->numa_scan_seq);
}

TEST_F(ScanWork, FourPassPrefersMultiTaskVmas) {
    w.sys.knobs.vma_scan = VmaScanSelection::FourPass;
    w.sys.knobs.starvation_guard = false;
    Vma& a = w.new_vma(*mm, 64, 0);  // touched by nobody
    Vma& b = w.new_vma(*mm, 64, 0);  // touched by two other tasks
    mm->numa_scan_seq = 5;
    for (Vma* v : {&a, &b}) {
        VmaNumabState ns;
        ns.pids_active_reset = 100 * NSEC_PER_SEC;
        ns.prev_scan_seq = 4;
        v->numab_state = ns;
    }
    b.numab_state->pids_active[1][0] = (uint64_t{1} << 3) | (uint64_t{1} << 9);
    task_numa_work(w.sys, *p);
    EXPECT_EQ(b.protnone.count(0, 64), 64u);  // level 2
    EXPECT_EQ(a.protnone.count(0, 64), 64u);  // level 4: forced, one VMA
}

TEST_F(ScanWork, TickQueuesWorkOnTaskCpuTime) {
    p->sum_exec_runtime = 999 * NSEC_PER_MSEC;
    task_tick_numa(w.sys, *p);
    EXPECT_FALSE(p->numa_work_pending);
    p->sum_exec_runtime = 1001 * NSEC_PER_MSEC;
    task_tick_numa(w.sys, *p);
    EXPECT_TRUE(p->numa_work_pending);
    EXPECT_EQ(p->node_stamp, 1000 * NSEC_PER_MSEC);
}

}  // namespace
}  // namespace numasim::test
