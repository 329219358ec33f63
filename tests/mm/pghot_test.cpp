// pghot (mm/pghot.{h,cpp}, mm/pghot_record.{h,cpp}), worked by hand. The record's clock is
// jiffies at HZ = 250: a time bucket is 128 jiffies = 512 ms, the 32 buckets wrap every 4096
// jiffies = 16384 ms, and the series' default window is 3000 ms. The world is the
// cascadelake-2s-pmem preset under v6.12 in mode 2 with the pghot knob: node 0 DRAM (top tier),
// node 2 the PMEM of socket 0.
#include "mm/pghot.h"
#include "../numab/numab_fixture.h"
#include "sim/clock.h"

namespace numasim::test {
namespace {

constexpr unsigned kWindow = PGHOT_DEFAULT_FREQ_WINDOW_MS;
constexpr unsigned kThreshold = PGHOT_DEFAULT_FREQ_THRESHOLD;
constexpr uint8_t kReady = 0x80;

TEST(PghotRecord, TwoAccessesWithinTheWindowMakeAPageReady) {
    uint8_t phi = 0;
    // jiffies 1000 is bucket 7 (896..1023). An empty record reads as bucket 0: 1000 & 0xF80 =
    // 896 jiffies = 3584 ms ago, past the 3000 ms window, so the count starts at 1.
    EXPECT_FALSE(pghot_update_record(phi, 1000, kWindow, kThreshold));
    EXPECT_EQ(phi, 1 | (7 << 2));
    // jiffies 1250 is bucket 9: (1152 - 896) = 256 jiffies = 1024 ms after bucket 7, within the
    // window: the count is 2, the threshold, and the page is ready.
    EXPECT_EQ(pghot_access_latency(7, 1250), 1024u);
    EXPECT_TRUE(pghot_update_record(phi, 1250, kWindow, kThreshold));
    EXPECT_EQ(phi, kReady | 2 | (9 << 2));
    // A third access counts to 3 (PGHOT_FREQ_MAX) and a fourth stays there; ready stays set.
    EXPECT_TRUE(pghot_update_record(phi, 1300, kWindow, kThreshold));
    EXPECT_TRUE(pghot_update_record(phi, 1310, kWindow, kThreshold));
    EXPECT_EQ(phi, kReady | 3 | (10 << 2));
}

TEST(PghotRecord, AnAccessAfterTheWindowStartsTheCountOver) {
    uint8_t phi = 0;
    pghot_update_record(phi, 1000, kWindow, kThreshold);  // bucket 7
    // jiffies 1800 is bucket 14: (1792 - 896) = 896 jiffies = 3584 ms later, past 3000 ms.
    EXPECT_EQ(pghot_access_latency(7, 1800), 3584u);
    EXPECT_FALSE(pghot_update_record(phi, 1800, kWindow, kThreshold));
    EXPECT_EQ(phi, 1 | (14 << 2));
    // With a threshold of 1 (the series' setting for its NUMAB2 runs) one access is enough.
    uint8_t one = 0;
    EXPECT_TRUE(pghot_update_record(one, 1000, kWindow, 1));
}

TEST(PghotRecord, TheTimeWrapsWithItsFiveBits) {
    uint8_t phi = 0;
    pghot_update_record(phi, 4000, kWindow, kThreshold);  // bucket 31 (3968..4095)
    // jiffies 4200 is bucket 32, stored as 0: (0 - 3968) & 0xF80 = 128 jiffies = 512 ms later.
    EXPECT_EQ(pghot_access_latency(31, 4200), 512u);
    EXPECT_TRUE(pghot_update_record(phi, 4200, kWindow, kThreshold));
    EXPECT_EQ(phi, kReady | 2 | (0 << 2));
}

TEST(PghotRecord, KmigratedTakesOnlyReadyRecordsAndClearsThem) {
    uint8_t phi = 1 | (7 << 2);
    unsigned freq = 9, time = 9;
    EXPECT_FALSE(pghot_get_record(phi, freq, time));
    EXPECT_EQ(phi, 1 | (7 << 2));
    phi = kReady | 2 | (9 << 2);
    EXPECT_TRUE(pghot_get_record(phi, freq, time));
    EXPECT_EQ(freq, 2u);
    EXPECT_EQ(time, 9u);
    EXPECT_EQ(phi, 0);
}

constexpr int kDram = 0, kPmem = 2;

NumaBalancingKnobs pghot_mode2() {
    NumaBalancingKnobs k;
    k.numa_balancing = 2;
    k.pghot = true;
    return k;
}

struct Pghot : ::testing::Test {
    NumabWorld w{pghot_mode2(), "cascadelake-2s-pmem"};
    Mm* mm = nullptr;
    Vma* vma = nullptr;
    Task* t = nullptr;
    void SetUp() override {
        w.sys.set_kernel_release("v6.12");
        mm = &w.new_mm();
        vma = &w.new_vma(*mm, 8, kPmem);
        t = &w.new_task(*mm, 100, 0, true);  // CPU 0, on node 0
    }
    void at_jiffies(int64_t j) { w.sys.now = j * TICK_NSEC; }
    // A hinting fault on page idx, which the scan made PROT_NONE.
    void hint_fault(uint64_t idx) {
        vma->protnone.set(idx);
        do_numa_page(w.sys, *t, *vma, idx, false);
    }
    const Counters& c() const { return w.sys.counters; }
};

TEST_F(Pghot, TheFaultRecordsAndKmigratedPromotesOnItsTimer) {
    ASSERT_TRUE(pghot_active(w.sys));
    at_jiffies(1000);
    hint_fault(3);
    // The fault left the page on PMEM and restored the PTE; the access is recorded.
    EXPECT_EQ(vma->frame(3).nid, kPmem);
    EXPECT_FALSE(vma->protnone.test(3));
    EXPECT_EQ(c().pghot_recorded_hintfaults, 1u);
    EXPECT_EQ(c().pghot_recorded_accesses, 1u);
    EXPECT_EQ(c()[Vm::numa_pages_migrated], 0u);
    EXPECT_FALSE(kmigrated_due(w.sys));  // not ready after one access
    at_jiffies(1250);
    hint_fault(3);
    EXPECT_EQ(pghot_phi(vma->frame(3)), kReady | 2 | (9 << 2));
    // Ready at 5000 ms; kmigrated's 100 ms timer next fires at 5000 ms itself.
    EXPECT_TRUE(kmigrated_due(w.sys));
    kmigrated_tick(w.sys);
    // Node 0 has far more than max(1 GiB, 96 GiB / 16) free above its promo watermark: the
    // page goes without the threshold or the rate limit (pgpromote_candidate_nrl).
    EXPECT_EQ(vma->frame(3).nid, kDram);
    EXPECT_EQ(c().pgpromote_success[kDram], 1u);
    EXPECT_EQ(c().pgpromote_candidate_nrl, 1u);
    EXPECT_EQ(c().pgpromote_candidate[kDram], 0u);
    EXPECT_EQ(c()[Vm::numa_pages_migrated], 1u);
    EXPECT_EQ(c()[Vm::pgmigrate_success], 1u);
    EXPECT_EQ(c().mm_migrate_pages, 1u);  // one migrate_pages() for the batch
    EXPECT_FALSE(kmigrated_due(w.sys));
}

TEST_F(Pghot, TheTimerDelaysThePassToTheNextHundredMs) {
    at_jiffies(1000);
    hint_fault(1);
    at_jiffies(1251);  // 5004 ms: ready now, the timer fired at 5000 ms
    hint_fault(1);
    EXPECT_FALSE(kmigrated_due(w.sys));
    at_jiffies(1275);  // 5100 ms
    EXPECT_TRUE(kmigrated_due(w.sys));
}

TEST_F(Pghot, WithoutFreeSpaceTheRateLimitAndThresholdDecide) {
    NodeMemory& dram = w.sys.mem.nodes[kDram];
    dram.free_pages = dram.wmark_promo + 1000;  // well under max(1 GiB, 6 GiB) above promo
    // Bucket 9 taken at jiffies 1250 + 700 = 1950: (1920 - 1152) = 768 jiffies = 3072 ms, at
    // or above the 3000 ms reference threshold: refused, not even a candidate.
    at_jiffies(1950);
    EXPECT_FALSE(kmigrated_should_migrate_memory(w.sys, 1, kDram, 9));
    EXPECT_EQ(c().pgpromote_candidate[kDram], 0u);
    // 1024 ms old: a candidate, and within the rate limit (65536 MB/s).
    at_jiffies(1250 + 256);
    EXPECT_TRUE(kmigrated_should_migrate_memory(w.sys, 1, kDram, 9));
    EXPECT_EQ(c().pgpromote_candidate[kDram], 1u);
    // A rate limit of 0 MB/s refuses every candidate after counting it.
    w.sys.knobs.numa_balancing_promote_rate_limit_MBps = 0;
    EXPECT_FALSE(kmigrated_should_migrate_memory(w.sys, 1, kDram, 9));
    EXPECT_EQ(c().pgpromote_candidate[kDram], 2u);
    EXPECT_EQ(c().pgpromote_candidate_nrl, 0u);
}

TEST_F(Pghot, ARefusedPageLosesItsRecord) {
    w.sys.knobs.numa_balancing_promote_rate_limit_MBps = 0;
    NodeMemory& dram = w.sys.mem.nodes[kDram];
    dram.free_pages = dram.wmark_promo + 1000;
    at_jiffies(1000);
    hint_fault(2);
    at_jiffies(1250);
    hint_fault(2);
    kmigrated_tick(w.sys);
    EXPECT_EQ(vma->frame(2).nid, kPmem);
    EXPECT_EQ(c().pgpromote_candidate[kDram], 1u);
    // The record was taken: two more accesses are needed before kmigrated looks again.
    EXPECT_EQ(pghot_phi(vma->frame(2)), 0);
    EXPECT_FALSE(kmigrated_due(w.sys));
}

TEST_F(Pghot, AFullTargetFailsTheMigrationAndWakesKswapd) {
    NodeMemory& dram = w.sys.mem.nodes[kDram];
    dram.free_pages = dram.wmark_high;  // no room above the high watermark
    at_jiffies(1000);
    hint_fault(4);
    at_jiffies(1250);
    hint_fault(4);
    // The pass at jiffies 1250 (the timer's 5000 ms) takes the bucket-9 record, 0 ms old: a
    // candidate within the rate limit; then migrate_misplaced_folio_prepare() finds node 0 at
    // its high watermark and wakes its kswapd.
    kmigrated_tick(w.sys);
    EXPECT_EQ(vma->frame(4).nid, kPmem);
    EXPECT_EQ(c().wakeup_kswapd_calls, 1u);
    EXPECT_EQ(c().pgpromote_candidate[kDram], 1u);
    EXPECT_EQ(c().pgpromote_success[kDram], 0u);
}

TEST_F(Pghot, KmigratedMovesTheRecordedPageNotItsPmdBlock) {
    // Two PMD-sized blocks of base pages; the second block's first page is already in DRAM.
    Vma& big = w.new_vma(*mm, 2 * w.sys.pages().pmd_nr(), kPmem);
    const uint64_t block = w.sys.pages().pmd_nr(), idx = block + 3;
    big.frame(block).nid = kDram;
    vma = &big;
    at_jiffies(1000);
    hint_fault(idx);
    at_jiffies(1250);
    hint_fault(idx);
    kmigrated_tick(w.sys);
    EXPECT_EQ(big.frame(idx).nid, kDram);
    EXPECT_EQ(big.frame(block + 1).nid, kPmem);
    EXPECT_EQ(c().pgpromote_success[kDram], 1u);
    EXPECT_EQ(c()[Vm::numa_pages_migrated], 1u);
}

TEST(PghotOff, TheKnobAloneDoesNothingOutsideTieringMode) {
    NumaBalancingKnobs k;
    k.numa_balancing = 1;
    k.pghot = true;
    NumabWorld w{k, "cascadelake-2s-pmem"};
    w.sys.set_kernel_release("v6.12");
    EXPECT_FALSE(pghot_active(w.sys));
    EXPECT_FALSE(w.sys.counters.pghot_reported);
}

}  // namespace
}  // namespace numasim::test
