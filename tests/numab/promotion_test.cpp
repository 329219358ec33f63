// Memory tiering's promotion (numab/promotion.cpp and its callers), worked by hand on the
// cascadelake-2s-pmem preset under v6.6: nodes 0-1 DRAM (96 GiB each, the top tier), nodes 2-3
// Optane PMEM (756 GiB each, the slower tier). HZ is 250, so the clock moves in 4 ms steps.
#include "mm/kswapd_driver.h"
#include "mm/vmscan.h"
#include "numab/numab.h"
#include "numab_fixture.h"
#include "sim/clock.h"

namespace numasim::test {
namespace {

constexpr int kDram = 0, kPmem = 2;

NumaBalancingKnobs mode(int m) {
    NumaBalancingKnobs k;
    k.numa_balancing = m;
    return k;
}

struct Promotion : ::testing::Test {
    NumabWorld w{mode(2), "cascadelake-2s-pmem"};
    void SetUp() override { w.sys.set_kernel_release("v6.6"); }
    void at_ms(int64_t ms) { w.sys.now = ms * 1000000; }
    NodeMemory& dram() { return w.sys.mem.nodes[kDram]; }
    // Node 0 with less than max(1 GiB, 96 GiB / 16 = 6 GiB) free above its promo watermark.
    void fill_dram() { dram().free_pages = dram().wmark_promo + 1000; }
    uint64_t& candidates() { return w.sys.counters.pgpromote_candidate[kDram]; }
};

TEST_F(Promotion, TheTiersOfThePreset) {
    EXPECT_TRUE(w.sys.has_slow_tier);
    EXPECT_TRUE(w.sys.node_is_toptier(kDram));
    EXPECT_FALSE(w.sys.node_is_toptier(kPmem));
}

TEST_F(Promotion, LatencyIsTheTimeSinceTheScanInMs) {
    PageFrame f;
    at_ms(5000);  // jiffies 1250
    EXPECT_EQ(jiffies_to_msecs(w.sys), 5000u);
    folio_xchg_access_time(f, 4200);
    EXPECT_EQ(numa_hint_fault_latency(w.sys, f), 800u);
    // The fault stamped the folio with its own time.
    EXPECT_EQ(f.last_cpupid(), 5000u);
    EXPECT_EQ(numa_hint_fault_latency(w.sys, f), 0u);
}

TEST_F(Promotion, LatencyWrapsWithTheTwentyFourBitField) {
    // The field keeps 24 bits of ms: a scan at 16777200 ms (2^24 - 16) and a fault at 2^24 +
    // 5000 ms (4 h 40 min later than 5 s) are 5016 ms apart.
    static_assert(PAGE_ACCESS_TIME_BUCKETS == 0 && PAGE_ACCESS_TIME_MASK == 0xFFFFFF);
    PageFrame f;
    folio_xchg_access_time(f, 16777200);
    at_ms((int64_t{1} << 24) + 5000);
    EXPECT_EQ(numa_hint_fault_latency(w.sys, f), 5016u);
    // Stored modulo 2^24: the stamp of 2^24 + 5000 ms reads back as 5000.
    EXPECT_EQ(f.last_cpupid(), 5000u);
    // A scan 2^24 ms before the fault looks like one at the same instant.
    folio_xchg_access_time(f, 100);
    at_ms((int64_t{1} << 24) + 100);
    EXPECT_EQ(numa_hint_fault_latency(w.sys, f), 0u);
}

TEST_F(Promotion, ThresholdMovesByAnEighthTowardTheRateLimit) {
    // 1 MB/s = 256 pages of 4 KiB per second; over scan_period_max (60 s) the reference is
    // 256 * 60000 / 1000 = 15360 candidates, the band 13824 (90 %) to 16896 (110 %). The
    // threshold's step is 2 * 1000 / 16 = 125 ms, between 125 and 2000.
    const uint64_t rl = 256;
    at_ms(61000);  // 61000 - 0 > 60000: the first period ends
    candidates() = 20000;
    numa_promotion_adjust_threshold(w.sys, kDram, rl, 1000);
    EXPECT_EQ(dram().nbp_threshold, 875u);  // too many: 1000 - 125
    EXPECT_EQ(dram().nbp_th_start, 61000u);
    EXPECT_EQ(dram().nbp_th_nr_cand, 20000u);
    at_ms(121000);  // exactly 60000 later: not past the period yet
    candidates() = 30000;
    numa_promotion_adjust_threshold(w.sys, kDram, rl, 1000);
    EXPECT_EQ(dram().nbp_threshold, 875u);
    at_ms(121004);  // 10000 candidates in the period: too few, up by 125
    numa_promotion_adjust_threshold(w.sys, kDram, rl, 1000);
    EXPECT_EQ(dram().nbp_threshold, 1000u);
    at_ms(181008);  // 15000 in the band: unchanged
    candidates() = 45000;
    numa_promotion_adjust_threshold(w.sys, kDram, rl, 1000);
    EXPECT_EQ(dram().nbp_threshold, 1000u);
    EXPECT_EQ(dram().nbp_th_nr_cand, 45000u);
    // Periods without candidates raise it to 2000 and no further: 8 steps, then it stays.
    for (int i = 1; i <= 9; ++i) {
        at_ms(181008 + i * 60004);
        numa_promotion_adjust_threshold(w.sys, kDram, rl, 1000);
        EXPECT_EQ(dram().nbp_threshold, std::min(1000u + 125u * static_cast<unsigned>(i), 2000u));
    }
    // Periods with twice the reference lower it to 125 and no further.
    for (int i = 1; i <= 16; ++i) {
        at_ms(181008 + (9 + i) * 60004);
        candidates() += 30720;
        numa_promotion_adjust_threshold(w.sys, kDram, rl, 1000);
        EXPECT_EQ(dram().nbp_threshold, i < 15 ? 2000u - 125u * static_cast<unsigned>(i) : 125u);
    }
}

TEST_F(Promotion, RateLimitCountsCandidatesInOneSecondWindows) {
    const uint64_t rl = 256;  // 1 MB/s
    at_ms(2000);              // 2000 - 0 > 1000: a window starts, with this candidate in it
    EXPECT_FALSE(numa_promotion_rate_limit(w.sys, kDram, rl, 1));
    EXPECT_EQ(dram().nbp_rl_start, 2000u);
    EXPECT_EQ(dram().nbp_rl_nr_cand, 1u);
    for (int i = 1; i < 256; ++i)
        EXPECT_FALSE(numa_promotion_rate_limit(w.sys, kDram, rl, 1)) << i;
    EXPECT_TRUE(numa_promotion_rate_limit(w.sys, kDram, rl, 1));  // 256 after the window's first
    EXPECT_EQ(candidates(), 257u);
    at_ms(3000);  // not past a second since 2000
    EXPECT_TRUE(numa_promotion_rate_limit(w.sys, kDram, rl, 512));
    at_ms(3004);  // a new window
    EXPECT_FALSE(numa_promotion_rate_limit(w.sys, kDram, rl, 512));
    EXPECT_EQ(dram().nbp_rl_nr_cand, 257u + 512u + 512u);
}

TEST_F(Promotion, FreeSpaceEnoughPromotesWithoutCountingACandidate) {
    PageFrame f;
    at_ms(10000);
    folio_xchg_access_time(f, 0);  // 10 s ago: far colder than the threshold
    dram().nbp_threshold = 500;
    EXPECT_TRUE(pgdat_free_space_enough(w.sys, kDram));
    EXPECT_TRUE(numa_promote_hot_folio(w.sys, f, kDram, 1));
    EXPECT_EQ(dram().nbp_threshold, 0u);  // reset
    EXPECT_EQ(candidates(), 0u);
    // 6 GiB (96 GiB / 16, above 1 GiB) above the promo mark is the line: 1572864 pages.
    dram().free_pages = dram().wmark_promo + 1572864;
    EXPECT_FALSE(pgdat_free_space_enough(w.sys, kDram));
    dram().free_pages += 1;
    EXPECT_TRUE(pgdat_free_space_enough(w.sys, kDram));
}

TEST_F(Promotion, OnlyPagesFaultingWithinTheThresholdAreCandidates) {
    fill_dram();
    PageFrame hot, cold;
    at_ms(100000);
    folio_xchg_access_time(hot, 99500);   // 500 ms before the fault
    folio_xchg_access_time(cold, 98000);  // 2000 ms before
    // The first call also ends the first threshold period (100000 > 60000): no candidates yet,
    // far below the reference, so the threshold rises to 1125 before the page is judged.
    EXPECT_TRUE(numa_promote_hot_folio(w.sys, hot, kDram, 1));
    EXPECT_EQ(dram().nbp_threshold, 1125u);
    EXPECT_EQ(candidates(), 1u);
    EXPECT_FALSE(numa_promote_hot_folio(w.sys, cold, kDram, 1));
    EXPECT_EQ(candidates(), 1u);
    // A THP counts its 512 pages.
    folio_xchg_access_time(hot, 99900);
    EXPECT_TRUE(numa_promote_hot_folio(w.sys, hot, kDram, 512));
    EXPECT_EQ(candidates(), 513u);
    // With the rate limit at 0 MB/s every candidate is over it, but still counted.
    w.sys.knobs.numa_balancing_promote_rate_limit_MBps = 0;
    folio_xchg_access_time(hot, 99900);
    EXPECT_FALSE(numa_promote_hot_folio(w.sys, hot, kDram, 1));
    EXPECT_EQ(candidates(), 514u);
}

struct PromotionScan : Promotion {
    Mm* mm = nullptr;
    Task* t1 = nullptr;
    void SetUp() override {
        Promotion::SetUp();
        mm = &w.new_mm();
        t1 = &w.new_task(*mm, 1000, 0);
        w.new_task(*mm, 1001, 1);  // two threads: the single-thread rule 5 does not apply
    }
    unsigned long scan(Vma& vma) {
        double ns = 0;
        return change_prot_numa(w.sys, *t1, vma, vma.start, vma.end, ns);
    }
};

TEST_F(PromotionScan, ModeTwoScansOnlyTheSlowTierAndStampsIt) {
    Vma& on_dram = w.new_vma(*mm, 64, kDram);
    Vma& on_pmem = w.new_vma(*mm, 64, kPmem);
    at_ms(7000);
    EXPECT_EQ(scan(on_dram), 0u);
    EXPECT_EQ(scan(on_pmem), 64u);
    EXPECT_EQ(on_dram.frame(0).last_cpupid(), CPUPID_UNSET);
    EXPECT_EQ(on_pmem.frame(0).last_cpupid(), 7000u);
    EXPECT_EQ(on_pmem.frame(63).last_cpupid(), 7000u);
    EXPECT_EQ(w.sys.counters[Vm::numa_pte_updates], 64u);
}

TEST_F(PromotionScan, ModeThreeScansBothTiersAndStampsTheSlowOne) {
    w.sys.knobs.numa_balancing = 3;
    Vma& on_dram = w.new_vma(*mm, 64, kDram);
    Vma& on_pmem = w.new_vma(*mm, 64, kPmem);
    at_ms(7000);
    EXPECT_EQ(scan(on_dram), 64u);
    EXPECT_EQ(scan(on_pmem), 64u);
    EXPECT_EQ(on_dram.frame(5).last_cpupid(), CPUPID_UNSET);
    EXPECT_EQ(on_pmem.frame(5).last_cpupid(), 7000u);
}

TEST_F(PromotionScan, ModeOneScansBothTiersAndStampsNothing) {
    w.sys.knobs.numa_balancing = 1;
    Vma& on_pmem = w.new_vma(*mm, 64, kPmem);
    at_ms(7000);
    EXPECT_EQ(scan(on_pmem), 64u);
    EXPECT_EQ(on_pmem.frame(5).last_cpupid(), CPUPID_UNSET);
}

TEST_F(PromotionScan, ModeTwoOnAnUntieredKernelScansNothing) {
    w.sys.set_kernel_release("v4.19");  // no tiers: every node top tier
    Vma& on_pmem = w.new_vma(*mm, 64, kPmem);
    EXPECT_EQ(scan(on_pmem), 0u);
}

TEST_F(PromotionScan, ModeTwoFaultPromotesAndLeavesTheTaskStatistics) {
    Vma& on_pmem = w.new_vma(*mm, 64, kPmem);
    at_ms(7000);
    scan(on_pmem);
    at_ms(7400);
    do_numa_page(w.sys, *t1, on_pmem, 3, false);
    EXPECT_EQ(on_pmem.frame(3).nid, kDram);
    EXPECT_EQ(w.sys.counters[Vm::numa_pages_migrated], 1u);
    EXPECT_EQ(w.sys.counters.pgpromote_success[kDram], 1u);
    // The promoted folio's cpupid is reset: the stamp is no (cpu, pid) on the top tier.
    EXPECT_EQ(on_pmem.frame(3).last_cpupid(), CPUPID_UNSET);
    // task_numa_fault counted the promoted page on node 0, as a first (private) fault.
    EXPECT_EQ(t1->numa_faults[task_faults_idx(w.sys, NUMA_MEMBUF, kDram, 1)], 1u);
    // A fault left on PMEM (node 2 as target is refused: the DRAM node is "full" now) is not
    // counted in the task's statistics.
    fill_dram();
    dram().free_pages = dram().wmark_high;  // below high + 1: migrate_balanced_pgdat fails
    at_ms(7404);
    const auto before = t1->numa_faults;
    do_numa_page(w.sys, *t1, on_pmem, 4, false);
    EXPECT_EQ(on_pmem.frame(4).nid, kPmem);
    EXPECT_EQ(t1->numa_faults, before);
    EXPECT_EQ(w.sys.counters.wakeup_kswapd_calls, 1u);
    EXPECT_EQ(w.sys.counters.pgpromote_candidate[kDram], 1u);
}

// With demotion on, a promotion that finds node 0 below its high watermark wakes node 0's
// kswapd and fails (migrate_balanced_pgdat): a candidate, no success. kswapd makes room only
// when it runs, at its tick, so a second fault before then fails the same way (and finds kswapd
// awake: no new wakeup); the first fault after it promotes.
TEST_F(PromotionScan, APromotionBeforeKswapdHasRunIsACandidateNotASuccess) {
    w.sys.knobs.demotion_enabled = true;
    Vma& filler = w.new_vma(*mm, 64, kDram);  // cold: nothing ever accessed it
    Vma& on_pmem = w.new_vma(*mm, 64, kPmem);
    at_ms(7000);
    scan(on_pmem);
    dram().free_pages = dram().wmark_high;  // short of high + 1 (and far below promo)
    at_ms(7400);                            // 400 ms: within the 1000 ms hot threshold
    do_numa_page(w.sys, *t1, on_pmem, 3, false);
    const Counters& c = w.sys.counters;
    EXPECT_EQ(on_pmem.frame(3).nid, kPmem);
    EXPECT_EQ(candidates(), 1u);
    EXPECT_EQ(c.pgpromote_success[kDram], 0u);
    EXPECT_EQ(c.wakeup_kswapd_calls, 1u);
    EXPECT_EQ(c.mm_vmscan_wakeup_kswapd, 1u);
    EXPECT_EQ(c.pgdemote_kswapd, 0u);
    EXPECT_EQ(dram().kswapd.state, KswapdState::Woken);
    do_numa_page(w.sys, *t1, on_pmem, 4, false);
    EXPECT_EQ(on_pmem.frame(4).nid, kPmem);
    EXPECT_EQ(candidates(), 2u);
    EXPECT_EQ(c.pgpromote_success[kDram], 0u);
    EXPECT_EQ(c.wakeup_kswapd_calls, 2u);
    EXPECT_EQ(c.mm_vmscan_wakeup_kswapd, 1u);
    // kswapd runs (woken at the fault's time, on an idle CPU of node 0): it demotes the 64 cold
    // pages to node 0's target, node 2. Node 0 is still short of its promo mark (the tiering
    // mode's balance), so it goes round until it gives up.
    mmtest::run_kswapd_until(w.sys, w.sys.now + TICK_NSEC);
    EXPECT_EQ(c.pgdemote_kswapd, 64u);
    EXPECT_EQ(filler.frame(0).nid, kPmem);
    EXPECT_EQ(dram().free_pages, dram().wmark_high + 64);
    EXPECT_EQ(dram().kswapd_failures, MAX_RECLAIM_RETRIES);
    do_numa_page(w.sys, *t1, on_pmem, 5, false);
    EXPECT_EQ(on_pmem.frame(5).nid, kDram);
    EXPECT_EQ(candidates(), 3u);
    EXPECT_EQ(c.pgpromote_success[kDram], 1u);
}

TEST_F(PromotionScan, ModeOneMigratesASlowTierPageOnItsSecondFault) {
    w.sys.knobs.numa_balancing = 1;
    Vma& on_pmem = w.new_vma(*mm, 64, kPmem);
    at_ms(7000);
    scan(on_pmem);
    // First fault: the unset tag is no valid cpupid, so no migration and no task statistics.
    do_numa_page(w.sys, *t1, on_pmem, 3, false);
    EXPECT_EQ(on_pmem.frame(3).nid, kPmem);
    EXPECT_TRUE(t1->numa_faults.empty() ||
                t1->numa_faults[task_faults_idx(w.sys, NUMA_MEMBUF, kPmem, 1)] == 0);
    // Second fault (after another scan): the tag is t1's, so the page moves, counted as a
    // promotion by v6.6.
    scan(on_pmem);
    do_numa_page(w.sys, *t1, on_pmem, 3, false);
    EXPECT_EQ(on_pmem.frame(3).nid, kDram);
    EXPECT_EQ(w.sys.counters.pgpromote_success[kDram], 1u);
    EXPECT_EQ(w.sys.counters.pgpromote_candidate[kDram], 0u);
}

TEST_F(PromotionScan, VersionSixTwelveCountsPromotionsInTieringModeOnly) {
    w.sys.set_kernel_release("v6.12");
    w.sys.knobs.numa_balancing = 1;
    Vma& on_pmem = w.new_vma(*mm, 64, kPmem);
    scan(on_pmem);
    do_numa_page(w.sys, *t1, on_pmem, 3, false);
    scan(on_pmem);
    do_numa_page(w.sys, *t1, on_pmem, 3, false);
    EXPECT_EQ(on_pmem.frame(3).nid, kDram);
    EXPECT_EQ(w.sys.counters[Vm::numa_pages_migrated], 1u);
    EXPECT_EQ(w.sys.counters.pgpromote_success[kDram], 0u);
}

}  // namespace
}  // namespace numasim::test
