// numasim-guest --calibrate-ms: the line of one node pair reads back to the same figures, the
// runner takes the option without a scenario, and the static binary measures this host's nodes
// as it measures a qemu guest's.
#include "guest/calibrate.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cctype>
#include <filesystem>

#include "guest/runner.h"
#include "oracle/guest_log.h"
#include "oracle/subprocess.h"

namespace numasim::guest {
namespace {

TEST(GuestCalibrate, LineCarriesEveryFigureExactly) {
    PairMeasurement m;
    m.from = 1;
    m.to = 0;
    m.latency_ns = run_stats({131.25, 0.1 + 0.2, 140});
    m.read_gbs = run_stats({12.5});
    m.write_gbs = run_stats({6, 7});
    const std::string line = calibrate_line(m);
    ASSERT_EQ(line.rfind("calibrate from=1 to=0 placed=1 ", 0), 0u) << line;
    const KeyValues kv = parse_key_values(line.substr(line.find(' ') + 1));
    EXPECT_EQ(std::stod(kv.at("latency_ns")), 131.25);
    EXPECT_EQ(std::stod(kv.at("latency_ns_min")), 0.1 + 0.2);  // the shortest exact decimal
    EXPECT_EQ(kv.at("latency_ns_runs"), "3");
    EXPECT_EQ(std::stod(kv.at("latency_ns_max")), 140);
    EXPECT_EQ(std::stod(kv.at("read_gbs")), 12.5);
    EXPECT_EQ(std::stod(kv.at("write_gbs")), 6.5);
    EXPECT_EQ(kv.at("write_gbs_runs"), "2");
}

TEST(GuestCalibrate, NeedsNoScenario) {
    EXPECT_EQ(parse_runner_args({"--calibrate-ms", "500"}).calibrate_ms, 500);
    // As the oracle's init passes it: the scenario path first, which calibration ignores.
    EXPECT_EQ(parse_runner_args({"/oracle/scenario.toml", "--calibrate-ms", "9"}).calibrate_ms, 9);
    EXPECT_THROW(parse_runner_args({"--calibrate-ms"}), std::invalid_argument);
    EXPECT_THROW(parse_runner_args({}), std::invalid_argument);
}

// One line per pair of a node with CPUs and a node with memory, in a second.
TEST(GuestCalibrate, TheStaticBinaryMeasuresThisHostsNodes) {
    if (access("/sys/devices/system/node/node0", F_OK) != 0) GTEST_SKIP() << "no NUMA sysfs";
    int nodes = 0;
    for (const auto& e : std::filesystem::directory_iterator("/sys/devices/system/node"))
        nodes += e.path().filename().string().rfind("node", 0) == 0 &&
                 std::isdigit(static_cast<unsigned char>(e.path().filename().string()[4]));
    const CommandResult r = run_command({NUMASIM_GUEST_BINARY, "--calibrate-ms", "1000"},
                                        {.timeout_s = 60, .cwd = "", .on_line = {}});
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const BootLog b = parse_boot_log(r.output);
    EXPECT_TRUE(b.errors.empty()) << r.output;
    ASSERT_GE(b.calibrations.size(), 1u) << r.output;
    EXPECT_LE(b.calibrations.size(), static_cast<size_t>(nodes * nodes));
    EXPECT_EQ(b.progress.size(), b.calibrations.size());
    for (const KeyValues& kv : b.calibrations) {
        EXPECT_GT(std::stod(kv.at("latency_ns")), 0) << r.output;
        EXPECT_GT(std::stod(kv.at("read_gbs")), 0) << r.output;
        EXPECT_GE(std::stoi(kv.at("write_gbs_runs")), 3) << r.output;
    }
}

}  // namespace
}  // namespace numasim::guest
