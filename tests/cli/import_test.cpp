// `numasim import damon` end to end: the scenario it writes loads and runs, twice to the same
// bytes, like any other; a bad profile is exit 2 with one line naming the file, and no output.
#include <gtest/gtest.h>

#include <filesystem>

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
