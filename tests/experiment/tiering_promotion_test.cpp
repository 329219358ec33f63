// examples/tiering-promotion.toml under numa_balancing 0, 1 and 2 (v6.6, cascadelake-2s-pmem):
// four threads on node 0 write a 2 GiB buffer bound to the PMEM node 2 and then read its hot
// quarter under the default policy. Node 0 has ~96 GiB free, far above max(1 GiB, 6 GiB) over
// its promo watermark, so in mode 2 every PMEM page that faults is promoted at once, without
// counting a candidate (pgdat_free_space_enough).
#include <gtest/gtest.h>

#include <string>

#include "experiment/overrides.h"
#include "experiment/run.h"
#include "experiment/scenario.h"
#include "experiment/sweep.h"

namespace numasim {
namespace {

RunResult run_mode(int mode, const std::string& profile = "v6.6") {
    const ScenarioOverrides ov = {
        parse_override("check_invariants=true", "test"), parse_override("duration=6s", "test"),
        parse_override("profile=" + profile, "test"),
        parse_override("numa_balancing.numa_balancing=" + std::to_string(mode), "test")};
    const Scenario sc = load_scenario_file(
        std::string(NUMASIM_SOURCE_DIR) + "/examples/tiering-promotion.toml", ov);
    return run_once(sc, sc.seed);
}

uint64_t total(const std::vector<uint64_t>& v) {
    return node_stat_total(v);
}

TEST(TieringPromotion, ModeTwoPromotesHotPmemPagesToTheTasksNode) {
    const RunResult r = run_mode(2);
    const Counters& c = r.counters;
    EXPECT_TRUE(c.promotion_possible);
    // Most of the hot quarter (131072 pages) faults within 6 s; the cold pages fault too, less.
    EXPECT_GT(c[Vm::numa_pages_migrated], 131072u / 2);
    // Every NUMA migration is a promotion, all to node 0, the node the tasks run on.
    EXPECT_EQ(total(c.pgpromote_success), c[Vm::numa_pages_migrated]);
    EXPECT_EQ(c.pgpromote_success[0], c[Vm::numa_pages_migrated]);
    // Free space enough: promoted without the hot-threshold test, so no candidates.
    EXPECT_EQ(total(c.pgpromote_candidate), 0u);
    EXPECT_EQ(c.mm_vmscan_wakeup_kswapd, 0u);
    // The node stats are figures for sweeps and compare rules as the vm events are.
    EXPECT_EQ(run_metric(r, "vmstat.pgpromote_success"),
              static_cast<double>(c[Vm::numa_pages_migrated]));
    EXPECT_EQ(run_metric(r, "vmstat.pgpromote_candidate"), 0.0);
    EXPECT_NO_THROW(
        check_sweep_metrics({"vmstat.pgpromote_success", "vmstat.pgpromote_candidate"}));
    // Mode 2 scans only the slow tier: each PMEM page once (it faults, then lives in DRAM),
    // hence as many PTE updates as hinting faults, give or take the pages scanned last.
    EXPECT_LE(c[Vm::numa_hint_faults], c[Vm::numa_pte_updates]);
    EXPECT_LE(c[Vm::numa_pte_updates], c[Vm::numa_hint_faults] + 65536);
}

TEST(TieringPromotion, ModeZeroLeavesThePagesOnPmem) {
    const RunResult r = run_mode(0);
    EXPECT_EQ(r.counters[Vm::numa_pages_migrated], 0u);
    EXPECT_EQ(total(r.counters.pgpromote_success), 0u);
    EXPECT_EQ(r.counters[Vm::numa_hint_faults], 0u);
}

TEST(TieringPromotion, ModeOneMovesThemAsMisplacedPagesCountedAsPromotionsBeforeV6_12) {
    // Mode 1 treats node 2 as any remote node: pages move to the faulting CPU's node on their
    // second hinting fault. v6.6 counts such a move in pgpromote_success, v6.12 does not.
    const RunResult v66 = run_mode(1);
    EXPECT_GT(v66.counters[Vm::numa_pages_migrated], 0u);
    EXPECT_EQ(total(v66.counters.pgpromote_success), v66.counters[Vm::numa_pages_migrated]);
    EXPECT_EQ(total(v66.counters.pgpromote_candidate), 0u);
    // The DRAM pages are scanned too: more PTE updates than pages ever on PMEM.
    EXPECT_GT(v66.counters[Vm::numa_pte_updates], 524288u);
    const RunResult v612 = run_mode(1, "v6.12");
    EXPECT_GT(v612.counters[Vm::numa_pages_migrated], 0u);
    EXPECT_EQ(total(v612.counters.pgpromote_success), 0u);
}

}  // namespace
}  // namespace numasim
