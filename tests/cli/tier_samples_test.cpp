// `--sample` on a tiered machine (docs/reports.md, "Time series"): tiers.csv holds each memory
// tier's resident pages and the pages promoted into and demoted from it, adding up to the
// run's counters, and the HTML report draws them; on a machine with one tier neither the table
// nor the charts appear.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
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

TEST(TierSamples, AddUpToTheRunsCountersAndAreDrawn) {
    const std::string dir = scratch_path("tiered");
    const Output o = run_numasim(
        "run examples/tiering-demotion.toml --set numa_balancing=2 --set demotion_enabled=true "
        "--json --sample 10s --out-dir " +
        dir);
    ASSERT_EQ(o.status, 0) << o.out;
    const nlohmann::json j = run_json(o.out);
    ASSERT_TRUE(j["samples"].contains("tiers"));
    const nlohmann::json& t = j["samples"]["tiers"];
    EXPECT_EQ(t["columns"], nlohmann::json({"time_s", "tier", "resident_pages", "promoted",
                                            "demoted", "promoted_per_s", "demoted_per_s"}));
    // cascadelake-2s-pmem under v6.6: memory_tier4 (DRAM) and memory_tier22 (PMEM).
    uint64_t promoted_top = 0, demoted_top = 0, promoted_low = 0, demoted_low = 0;
    for (const auto& row : t["rows"]) {
        const int tier = row[1].get<int>();
        ASSERT_TRUE(tier == 4 || tier == 22) << tier;
        (tier == 4 ? promoted_top : promoted_low) += row[3].get<uint64_t>();
        (tier == 4 ? demoted_top : demoted_low) += row[4].get<uint64_t>();
    }
    const nlohmann::json& v = j["vmstat"];
    EXPECT_GT(demoted_top, 0u) << v.dump();
    EXPECT_EQ(promoted_top, v["pgpromote_success"].get<uint64_t>());
    EXPECT_EQ(demoted_top,
              v["pgdemote_kswapd"].get<uint64_t>() + v["pgdemote_direct"].get<uint64_t>());
    EXPECT_EQ(promoted_low, 0u);  // nothing is promoted into the lowest tier
    EXPECT_EQ(demoted_low, 0u);   // nor demoted from it
    ASSERT_EQ(run_numasim("report " + dir + " --html " + dir + "/r.html").status, 0);
    EXPECT_NE(read_text(dir + "/r.html").find("<h2>Memory tiers</h2>"), std::string::npos);
}

TEST(TierSamples, NoTableOnAMachineWithOneTier) {
    const std::string dir = scratch_path("flat");
    const Output o = run_numasim(
        "run examples/knobs.toml --duration 3s --json --sample 1s "
        "--out-dir " +
        dir);
    ASSERT_EQ(o.status, 0) << o.out;
    const nlohmann::json j = run_json(o.out);
    EXPECT_FALSE(j["samples"].contains("tiers"));
    for (const auto& e : std::filesystem::recursive_directory_iterator(dir))
        EXPECT_NE(e.path().filename(), "tiers.csv") << e.path();
    ASSERT_EQ(run_numasim("report " + dir + " --html " + dir + "/r.html").status, 0);
    EXPECT_EQ(read_text(dir + "/r.html").find("Memory tiers"), std::string::npos);
}

}  // namespace
}  // namespace numasim::test
