// `numasim import damon` end to end: the scenario it writes loads and runs, twice to the same
// bytes, like any other; a bad profile is exit 2 with one line naming the file, and no output.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>

#include "cli/numasim_process.h"

namespace numasim::test {
namespace {

TEST(ImportCli, ScenarioRunsDeterministically) {
    const std::string toml = scratch_path("replay.toml");
    const Output imp = run_numasim(
        "import damon tests/replay/fixtures/damo-hot-cold.json "
        "--blocks 2 --threads 2 --machine tiny-2n -o " +
        toml);
    ASSERT_EQ(imp.status, 0) << imp.out;
    const Output a = run_numasim("run " + toml + " --json");
    const Output b = run_numasim("run " + toml + " --json");
    ASSERT_EQ(a.status, 0) << a.out;
    EXPECT_EQ(a.out, b.out);
    // Both blocks are mapped and faulted in: 1024 pages each.
    EXPECT_NE(a.out.find("\"region\": \"b0\""), std::string::npos);
    EXPECT_NE(a.out.find("\"region\": \"b1\""), std::string::npos);
    EXPECT_NE(a.out.find("\"finished\": true"), std::string::npos) << a.out.substr(0, 2000);
}

// The round trip the importer exists for: two processes monitored together for 20 s over 64 MiB
// each, one seen accessed in every sampling interval, the other in one interval of every 20th
// window. Replayed with two threads each (a single-threaded process traps no faults on its
// local pages), the hot one's threads take more NUMA hinting faults than the cold one's.
TEST(ImportCli, HotRegionTakesMoreHintingFaults) {
    const std::string trace = scratch_path("two.txt");
    {
        std::ofstream f(trace);
        const uint64_t base = 0x7f0000000000, end = base + (uint64_t{64} << 20);
        for (int i = 0; i < 200; ++i) {
            const std::string ts =
                std::to_string((i + 1) / 10) + "." + std::to_string((i + 1) % 10) + "00000";
            f << "kdamond.0 1 [000] " << ts << ": damon:damon_aggregated: target_id=1 "
              << "nr_regions=1 " << base << "-" << end << ": 20 " << i << "\n";
            f << "kdamond.0 1 [000] " << ts << ": damon:damon_aggregated: target_id=2 "
              << "nr_regions=1 " << base << "-" << end << ": " << (i % 20 == 0 ? 1 : 0) << " " << i
              << "\n";
        }
    }
    const std::string toml = scratch_path("two.toml");
    const Output imp =
        run_numasim("import damon " + trace + " --threads 2 --machine tiny-2n -o " + toml);
    ASSERT_EQ(imp.status, 0) << imp.out;
    const Output run = run_numasim("run " + toml + " --json");
    ASSERT_EQ(run.status, 0) << run.out;
    const auto j = nlohmann::json::parse(run.out);
    std::map<std::string, long> faults;  // per process: its threads' total_numa_faults
    const std::regex total(R"(total_numa_faults\s*:\s*(\d+))");
    for (const auto& t : j.at("tasks")) {
        std::smatch m;
        const std::string ps = t.at("proc_sched").get<std::string>();
        ASSERT_TRUE(std::regex_search(ps, m, total)) << ps;
        faults[t.at("comm").get<std::string>()] += std::stol(m[1]);
    }
    EXPECT_GT(faults["target1"], 0);
    EXPECT_GT(faults["target0"], 2 * faults["target1"]);
}

TEST(ImportCli, BadProfileIsExitTwoWithoutOutput) {
    const std::string bad = scratch_path("bad.json");
    { std::ofstream(bad) << "[{\"target_id\": 0, \"snapshots\": ["; }
    const std::string out = scratch_path("out.toml");
    const Output r = run_numasim("import damon " + bad + " -o " + out);
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.out.rfind("numasim: error: " + bad + ": line 1: invalid JSON", 0), 0u) << r.out;
    EXPECT_FALSE(std::filesystem::exists(out));
}

}  // namespace
}  // namespace numasim::test
