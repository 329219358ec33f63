// Promotion in whole runs on cascadelake-2s-pmem under v6.6 (docs/tiering.md, "Step 2").
//
// kFreeDram: four threads on node 0 write a 2 GiB buffer bound to the PMEM node 2 and then read
// its hot quarter under the default policy, with node 0's ~96 GiB free: far more than max(1 GiB,
// 6 GiB) over its promo watermark, so in mode 2 every PMEM page that faults is promoted at once,
// without counting a candidate (pgdat_free_space_enough). examples/tiering-promotion.toml runs
// the same after a filler has taken 94 GiB of node 0: the hot-threshold path and the watermark.
#include <gtest/gtest.h>

#include <string>

#include "experiment/overrides.h"
#include "experiment/run.h"
#include "experiment/scenario.h"
#include "experiment/sweep.h"

namespace numasim {
namespace {

constexpr const char* kFreeDram = R"([scenario]
name = "tiering-free"
machine = "cascadelake-2s-pmem"
profile = "v6.6"
duration = "6s"
iterations = 1
seed = 1

[[workload]]
type = "streams"
name = "tiering"

[[workload.process]]
name = "sweeper"
threads = 4

[[workload.process.region]]
name = "buffer"
size = "2GiB"
kind = "private"

[[workload.process.thread]]
phases = [
  { affinity = "node:0", policy = "bind", nodes = [2], streams = [ { region = "buffer", write_fraction = 1.0, per_thread = true } ], rate_gbs = 10.0, work = "512MiB" },
  { policy = "default", streams = [ { region = "buffer", pattern = "hotset", hot_fraction = 0.25, hot_share = 0.95 } ], rate_gbs = 4.0, work = "1GiB", ops_per_byte = 0.001, repeat = 1000000 },
]
)";

RunResult run_mode(int mode, const std::string& profile = "v6.6") {
    const ScenarioOverrides ov = {
        parse_override("check_invariants=true", "test"), parse_override("duration=6s", "test"),
        parse_override("profile=" + profile, "test"),
        parse_override("numa_balancing.numa_balancing=" + std::to_string(mode), "test")};
    const Scenario sc = load_scenario_text(kFreeDram, "free-dram.toml", ov);
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
    EXPECT_EQ(c.wakeup_kswapd_calls, 0u);
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

TEST(TieringPromotion, FullDramTakesTheHotPathAndStopsAtTheWatermark) {
    const Scenario sc =
        load_scenario_file(std::string(NUMASIM_SOURCE_DIR) + "/examples/tiering-promotion.toml",
                           {parse_override("numa_balancing.numa_balancing=2", "test")});
    const RunResult r = run_once(sc, sc.seed);
    const Counters& c = r.counters;
    // Every promotion passed the threshold test first: candidates at least the promotions.
    EXPECT_GT(c.pgpromote_success[0], 0u);
    EXPECT_GE(c.pgpromote_candidate[0], c.pgpromote_success[0]);
    EXPECT_EQ(c.pgpromote_success[0], c[Vm::numa_pages_migrated]);
    // Node 0 had 2 GiB free besides the filler: promotion filled it to the high watermark, then
    // every further promotion asked kswapd for room that nothing makes.
    EXPECT_GT(c.wakeup_kswapd_calls, 0u);
    EXPECT_LT(c.pgpromote_success[0], 524288u);
    // numa_pages_migrated's pages and the 94 GiB filler left node 0 at most its high watermark
    // plus one migration's worth above the edge (the check is against high + 1 page).
    const double free_gib = 96.0 - 94.0 - static_cast<double>(c.pgpromote_success[0]) / 262144.0;
    EXPECT_LT(free_gib, 0.25);
}

}  // namespace
}  // namespace numasim
