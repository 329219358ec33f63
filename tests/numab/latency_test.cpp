// Latency accounting of task_numa_work and of NUMA moves (kernel/latency.h) on a hand-built
// world: a scan of known size records the time the cost model gives it, one call per run of the
// task work; a NUMA move onto an idle CPU waits for nothing, onto a busy one until it is picked;
// remote-stall ticks of the same microsecond add up as one run, exactly.
#include "kernel/latency.h"

#include "mm/tlb.h"
#include "numab_fixture.h"

namespace numasim::test {
namespace {

struct LatencyScan : ::testing::Test {
    NumabWorld w;
    LatencyRecorder rec;
    Mm* mm = nullptr;
    Task* p = nullptr;
    void SetUp() override {
        w.sys.knobs.vma_scan = VmaScanSelection::All;
        w.sys.latency = &rec;
        mm = &w.new_mm();
        p = &w.new_task(*mm, 1000, 0, true);
        w.sys.now = 10 * NSEC_PER_SEC;
        mm->numa_next_scan = TICK_NSEC;  // due
        p->numa_scan_period = 1000;
    }
};

TEST_F(LatencyScan, ScanOfKnownSizeRecordsItsCost) {
    // 256 MiB present on node 1 (the whole 256 MiB window, 65536 PTEs; a single-threaded
    // task's pages on its own node would be left alone), on a CPU no other CPU shares the mm
    // with (no TLB shootdown): 65536 x PTE_UPDATE_CYCLES (7) = 458752 cycles at 2.5 GHz
    // (tiny-2n) = 183500.8 ns, charged as 183500 ns.
    w.new_vma(*mm, 65536, 1);
    p->numa_work_pending = true;
    task_work_run(w.sys, *p);
    EXPECT_FALSE(p->numa_work_pending);
    EXPECT_EQ(p->kernel_debt, 183500);
    const LatencyHists& h = *rec.of(p->index);
    const auto k = static_cast<size_t>(LatencyKind::NumaWork);
    EXPECT_EQ(h.usecs[k].count(), 1u);
    EXPECT_EQ(h.usecs[k].slot(8), 1u);  // 183 us: "128 -> 255"
    EXPECT_EQ(h.msecs[k].slot(1), 1u);  // 0 ms: "0 -> 1"
    EXPECT_EQ(h.sum_ns[k], 183500u);
    // The next run finds the mm rate-limited: a call that does nothing, as funclatency counts it.
    p->numa_work_pending = true;
    task_work_run(w.sys, *p);
    EXPECT_EQ(h.usecs[k].count(), 2u);
    EXPECT_EQ(h.usecs[k].slot(1), 1u);
    EXPECT_EQ(h.sum_ns[k], 183500u);
}

TEST_F(LatencyScan, NothingRecordedWithoutARecorder) {
    w.sys.latency = nullptr;
    w.new_vma(*mm, 65536, 1);
    p->numa_work_pending = true;
    task_work_run(w.sys, *p);
    EXPECT_EQ(p->kernel_debt, 183500);
    EXPECT_EQ(rec.of(p->index), nullptr);
}

TEST(LatencyRecorder, TlbShootdownIpisAreRecordedOnTheInterruptedTask) {
    NumabWorld w;
    LatencyRecorder rec;
    w.sys.latency = &rec;
    Mm& mm = w.new_mm();
    Task& a = w.new_task(mm, 1000, 0, true);
    Task& b = w.new_task(mm, 1001, 2, true);
    switch_mm_irqs_off(w.sys, 0, &mm);
    switch_mm_irqs_off(w.sys, 2, &mm);
    // a's CPU changes PTEs: b takes one interrupt of TLB_FLUSH_IPI_NS (1 us, "0 -> 1");
    // repeating the flush for a run of 4 more pages adds 4 at once.
    TlbFlushLog log;
    flush_tlb_mm_range(w.sys, mm, a.cpu, &log);
    repeat_tlb_flushes(w.sys, log, 4);
    const auto k = static_cast<size_t>(LatencyKind::TlbIpi);
    ASSERT_NE(rec.of(b.index), nullptr);
    EXPECT_EQ(rec.of(b.index)->usecs[k].slot(1), 5u);
    EXPECT_EQ(rec.of(b.index)->usecs[k].count(), 5u);
    EXPECT_EQ(rec.of(b.index)->sum_ns[k], 5000u);
    EXPECT_EQ(b.kernel_debt, 5000);
    // The initiator's cost is part of its own operation's (the scan or the fault).
    EXPECT_TRUE(rec.of(a.index)->empty());
}

TEST(LatencyRecorder, NumaMoveWaitsUntilPicked) {
    NumabWorld w;
    LatencyRecorder rec;
    w.sys.latency = &rec;
    Mm& mm = w.new_mm();
    const Task& p = w.new_task(mm, 1000, 0);
    const auto k = static_cast<size_t>(LatencyKind::NumaMoveRunq);
    // Running at once where it lands: no wait.
    rec.numa_moved(p, true, 5000);
    // Queued behind another task at runqueue clock 10 us, picked at 14.5 us: 4 us.
    rec.numa_moved(p, false, 10000);
    rec.picked(p, 14500);
    // A later pick without a move records nothing.
    rec.picked(p, 20000);
    const LatencyHists& h = *rec.of(p.index);
    EXPECT_EQ(h.usecs[k].count(), 2u);
    EXPECT_EQ(h.usecs[k].slot(1), 1u);  // 0 us
    EXPECT_EQ(h.usecs[k].slot(3), 1u);  // 4 us: "4 -> 7"
    EXPECT_EQ(h.sum_ns[k], 4500u);
}

TEST(LatencyRecorder, RemoteStallTicksAddUpInRunsOfLikeMicroseconds) {
    NumabWorld w;
    LatencyRecorder rec;
    Mm& mm = w.new_mm();
    const Task& p = w.new_task(mm, 1000, 0);
    const Task& q = w.new_task(mm, 1000, 0);
    const auto k = static_cast<size_t>(LatencyKind::RemoteStall);
    // A tick before any user progress records nothing.
    rec.tick(p);
    EXPECT_EQ(rec.of(p.index), nullptr);
    // Ticks of 1500.4 ns (truncated to 1500) and 1999.9 ns (1999, the same microsecond, in
    // two steps), then 2000 ns, 1999 ns (below the run's microsecond) and one with none: the
    // 1 us, 2 us, 1 us and 0 us events, the first two one run, the sum of whole ns exact.
    rec.remote_stall(p, 1500.4);
    rec.tick(p);
    rec.remote_stall(p, 999.9);
    rec.remote_stall(p, 1000.0);
    rec.tick(p);
    LatencyRecorder::RemoteStall& r = rec.remote_of(p);  // a catch-up's way: looked up once
    r.pending_ns += 2000.0;
    rec.tick(p, r);
    r.pending_ns += 1999.0;
    rec.tick(p, r);
    rec.tick(p, r);
    const LatencyHists& h = *rec.of(p.index);
    EXPECT_EQ(h.usecs[k].count(), 5u);
    EXPECT_EQ(h.usecs[k].slot(1), 4u);  // "0 -> 1": 1, 1, 1 and 0 us
    EXPECT_EQ(h.usecs[k].slot(2), 1u);  // "2 -> 3": 2 us
    EXPECT_EQ(h.msecs[k].slot(1), 5u);
    EXPECT_EQ(h.sum_ns[k], 1500u + 1999u + 2000u + 1999u);
    // Reading the histograms closed the run; the next tick starts another.
    rec.remote_stall(p, 2500.0);
    rec.tick(p);
    EXPECT_EQ(rec.of(p.index)->usecs[k].count(), 6u);
    EXPECT_EQ(rec.of(p.index)->sum_ns[k], 1500u + 1999u + 2000u + 1999u + 2500u);
    // A task of its own that has made no user progress records nothing.
    rec.tick(q);
    EXPECT_EQ(rec.of(q.index), nullptr);
}

TEST(LatencyRecorder, LikeChargesInARowGoToTheirOwnSlots) {
    // record() keeps the slots of the last time it took: runs of like and unlike times, on two
    // tasks, each in the buckets of its own time.
    NumabWorld w;
    LatencyRecorder rec;
    Mm& mm = w.new_mm();
    const Task& p = w.new_task(mm, 1000, 0);
    const Task& q = w.new_task(mm, 1000, 0);
    const auto k = static_cast<size_t>(LatencyKind::MigrationWait);
    rec.record(p, LatencyKind::MigrationWait, 0);             // the first time: 0
    rec.record(p, LatencyKind::MigrationWait, -5);            // as 0
    rec.record(q, LatencyKind::MigrationWait, 2'500'000, 3);  // 2500 us, 2 ms
    rec.record(p, LatencyKind::MigrationWait, 2'500'000);
    rec.record(p, LatencyKind::MigrationWait, 7'000);  // 7 us
    rec.record(q, LatencyKind::MigrationWait, 7'000, 2);
    rec.record(q, LatencyKind::MigrationWait, 2'500'000);
    const LatencyHists& hp = *rec.of(p.index);
    EXPECT_EQ(hp.usecs[k].count(), 4u);
    EXPECT_EQ(hp.usecs[k].slot(1), 2u);   // "0 -> 1"
    EXPECT_EQ(hp.usecs[k].slot(3), 1u);   // 7 us: "4 -> 7"
    EXPECT_EQ(hp.usecs[k].slot(12), 1u);  // 2500 us: "2048 -> 4095"
    EXPECT_EQ(hp.msecs[k].slot(1), 3u);   // 0, 0 and 0 ms
    EXPECT_EQ(hp.msecs[k].slot(2), 1u);   // 2 ms: "2 -> 3"
    EXPECT_EQ(hp.sum_ns[k], 2'507'000u);
    const LatencyHists& hq = *rec.of(q.index);
    EXPECT_EQ(hq.usecs[k].slot(12), 4u);
    EXPECT_EQ(hq.usecs[k].slot(3), 2u);
    EXPECT_EQ(hq.msecs[k].slot(2), 4u);
    EXPECT_EQ(hq.msecs[k].slot(1), 2u);
    EXPECT_EQ(hq.sum_ns[k], 4u * 2'500'000u + 14'000u);
}

}  // namespace
}  // namespace numasim::test
