// Demotion in whole runs (docs/tiering.md, "Step 3: demotion"): examples/tiering-demotion.toml,
// a working set larger than node 0's DRAM on cascadelake-2s-pmem under v6.6, numa_balancing=2,
// with demotion_enabled off and on.
#include <gtest/gtest.h>

#include <string>

#include "experiment/overrides.h"
#include "experiment/run.h"
#include "experiment/scenario.h"

namespace numasim {
namespace {

RunResult run_example(bool demotion) {
    const Scenario sc =
        load_scenario_file(std::string(NUMASIM_SOURCE_DIR) + "/examples/tiering-demotion.toml",
                           {parse_override("numa_balancing.numa_balancing=2", "test"),
                            parse_override(std::string("numa_balancing.demotion_enabled=") +
                                               (demotion ? "true" : "false"),
                                           "test")});
    return run_once(sc, sc.seed);
}

// The pages of process `comm`'s region `region` on node `nid` at the end of the run.
uint64_t pages_on(const RunResult& r, const std::string& comm, const std::string& region, int nid) {
    uint64_t n = 0;
    for (const MappingPages& m : r.regions)
        if (m.comm == comm && m.region == region) n += m.node_pages.at(static_cast<size_t>(nid));
    return n;
}

constexpr uint64_t kBufferPages = 1048576;  // 4 GiB of 4 KiB pages

TEST(TieringDemotion, ColdDramPagesMakeRoomForTheHotPmemPages) {
    const RunResult off = run_example(false);
    const RunResult on = run_example(true);
    // Off: nothing is reclaimed, the filler keeps node 0, promotion stops at the watermark with
    // less than the buffer's hot quarter in DRAM.
    EXPECT_FALSE(off.counters.reclaim_reported);
    EXPECT_EQ(off.counters.pgdemote_kswapd, 0u);
    EXPECT_EQ(pages_on(off, "filler", "dram", 2), 0u);
    EXPECT_LT(pages_on(off, "sweeper", "buffer", 0), kBufferPages / 4);
    // On: kswapd, woken by the promotions that found node 0 full, demoted the cold filler to
    // PMEM, and promotion went on: both counters run, and the hot quarter is in DRAM.
    const Counters& c = on.counters;
    EXPECT_TRUE(c.reclaim_reported);
    EXPECT_GT(c.pgdemote_kswapd, 0u);
    EXPECT_EQ(c.pgsteal_kswapd, c.pgdemote_kswapd);
    EXPECT_GE(c.pgscan_kswapd, c.pgsteal_kswapd);
    EXPECT_GT(c.pgpromote_success[0], off.counters.pgpromote_success[0]);
    EXPECT_GT(c.mm_vmscan_kswapd_wake, 0u);
    EXPECT_EQ(c.oom_alloc_failures, 0u);
    EXPECT_LT(pages_on(on, "filler", "dram", 0), pages_on(off, "filler", "dram", 0));
    EXPECT_GT(pages_on(on, "filler", "dram", 2), 0u);
    EXPECT_GE(pages_on(on, "sweeper", "buffer", 0), kBufferPages / 4);
    // Demoted pages (to node 2) and promoted ones are all the page migrations there were.
    EXPECT_EQ(c[Vm::pgmigrate_success],
              c.pgdemote_kswapd + c.pgdemote_direct + c[Vm::numa_pages_migrated]);
}

}  // namespace
}  // namespace numasim
