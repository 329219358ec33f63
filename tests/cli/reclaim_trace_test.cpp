// Reclaim's trace events in a whole run (docs/tiering.md, "Reclaim's trace events and CPU
// time"): examples/tiering-demotion.toml in mode 2 with demotion_enabled writes as many lines
// of each event as its counter in the run's JSON says, kswapd's under its own thread; a run
// without demotion_enabled writes none of them.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "numasim_process.h"

namespace numasim::test {
namespace {

// The JSON document of a run's output, after the notes that stderr (folded in) puts first: the
// scenario's [[variant]] tables are not run by `run`.
nlohmann::json run_json(const std::string& out) {
    const size_t at = out.rfind("\n{", out.find("\"elapsed_s\""));
    return nlohmann::json::parse(at == std::string::npos ? out : out.substr(at + 1));
}

// Lines per event name of an ftrace text ("...: NAME: fields"), and lines whose context column
// is kswapd's.
struct TraceCounts {
    std::map<std::string, uint64_t> events;
    uint64_t kswapd_context = 0;
};

TraceCounts count_events(const std::string& text) {
    TraceCounts c;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        if (line.empty() || line[0] == '#') continue;
        const size_t colon = line.find(": ");
        if (colon == std::string::npos) continue;
        const size_t end = line.find(':', colon + 2);
        ++c.events[line.substr(colon + 2, end - colon - 2)];
        if (line.find(" kswapd") != std::string::npos && line.find("kswapd") < colon)
            ++c.kswapd_context;
    }
    return c;
}

TEST(ReclaimTrace, EveryEventIsCountedOnce) {
    const std::string trace = scratch_path("demotion.txt");
    const Output o = run_numasim(
        "run examples/tiering-demotion.toml --set numa_balancing=2 --set demotion_enabled=true "
        "--json --trace " +
        trace + " --trace-events all,mm_migrate_pages_start");
    ASSERT_EQ(o.status, 0) << o.out;
    const nlohmann::json j = run_json(o.out);
    const TraceCounts t = count_events(read_text(trace));
    const nlohmann::json& v = j["vmstat"];
    for (const char* name :
         {"mm_vmscan_wakeup_kswapd", "mm_vmscan_kswapd_wake", "mm_vmscan_kswapd_sleep",
          "mm_vmscan_direct_reclaim_begin", "mm_vmscan_direct_reclaim_end",
          "mm_vmscan_lru_shrink_inactive", "mm_vmscan_lru_shrink_active"}) {
        const uint64_t counted = v[name].get<uint64_t>();
        EXPECT_EQ(t.events.count(name) ? t.events.at(name) : 0, counted) << name;
    }
    EXPECT_GT(v["mm_vmscan_kswapd_wake"].get<uint64_t>(), 0u);
    EXPECT_GT(v["mm_vmscan_lru_shrink_inactive"].get<uint64_t>(), 0u);
    // mm_migrate_pages: promotions and demotion passes alike; a start before each.
    const uint64_t migrate = j["sched"]["mm_migrate_pages"].get<uint64_t>();
    EXPECT_EQ(t.events.at("mm_migrate_pages"), migrate);
    EXPECT_EQ(t.events.at("mm_migrate_pages_start"), migrate);
    // kswapd's events are under its thread: its wakes, sleeps and at least its scans.
    EXPECT_GE(t.kswapd_context, v["mm_vmscan_kswapd_wake"].get<uint64_t>() +
                                    v["mm_vmscan_kswapd_sleep"].get<uint64_t>());
    // kswapd's CPU time by node: node 0's, whose cold filler it demotes, is not 0.
    const nlohmann::json& stime = j["kswapd_stime_ns"];
    ASSERT_EQ(stime.size(), 4u);
    EXPECT_GT(stime[0].get<uint64_t>(), 0u);
}

TEST(ReclaimTrace, NoReclaimEventsWithoutDemotion) {
    const std::string trace = scratch_path("mode2.txt");
    const Output o =
        run_numasim("run examples/tiering-demotion.toml --set numa_balancing=2 --json --trace " +
                    trace + " --trace-events 'vmscan:*,sched_move_numa'");
    ASSERT_EQ(o.status, 0) << o.out;
    EXPECT_NE(o.out.find("\"vmstat\""), std::string::npos);
    EXPECT_EQ(o.out.find("kswapd_stime_ns"), std::string::npos);
    const TraceCounts t = count_events(read_text(trace));
    for (const auto& [name, n] : t.events)
        EXPECT_EQ(name.rfind("mm_vmscan_", 0), std::string::npos) << name << " " << n;
}

TEST(ReclaimTrace, StartIsSelectedByNameOnly) {
    // A mode-1 run that migrates: migrate:* has its mm_migrate_pages, not their starts.
    const std::string args = "run examples/streams.toml --duration 10s --iterations 1 --trace - ";
    const Output glob = run_numasim(args + "--trace-events 'migrate:*'");
    ASSERT_EQ(glob.status, 0) << glob.out;
    EXPECT_NE(glob.out.find(": mm_migrate_pages: "), std::string::npos);
    EXPECT_EQ(glob.out.find("mm_migrate_pages_start"), std::string::npos);
    const Output named = run_numasim(args + "--trace-events mm_migrate_pages_start");
    ASSERT_EQ(named.status, 0) << named.out;
    EXPECT_NE(named.out.find(": mm_migrate_pages_start: mode=MIGRATE_ASYNC reason=numa_misplaced"),
              std::string::npos);
}

}  // namespace
}  // namespace numasim::test
