// `numasim calibrate` end to end on this host. The measured figures vary with the host and its
// load: on a loaded 2-core CI box a 2 s budget still yields figures, so the checks are the file's
// structure and loose plausibility bounds (HostTiming in the names marks the tests whose numbers
// come from the host's timing), never exact values.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "machine/machine_file.h"
#include "numasim_process.h"

namespace numasim::test {
namespace {

// An idle DRAM load on any machine numasim models takes tens to hundreds of ns; on a busy
// virtual machine with a short budget it may reach several hundred.
constexpr double kMinLatencyNs = 20, kMaxLatencyNs = 1000;
// From one slow channel to many-channel HBM.
constexpr double kMinBandwidthGbs = 0.5, kMaxBandwidthGbs = 1000;

TEST(CalibrateCli, HostTimingWritesAMachineFileThatRunAccepts) {
    const std::string path = scratch_path("host.toml");
    const Output o = run_numasim("calibrate --time-budget 2s -o " + path);
    ASSERT_EQ(o.status, 0) << o.out;
    // Progress: the hwloc line, one line per node pair with its runs and spread, the end.
    EXPECT_NE(o.out.find("numasim calibrate: hwloc: "), std::string::npos) << o.out;
    EXPECT_NE(o.out.find("node 0 -> node 0: latency "), std::string::npos) << o.out;
    EXPECT_NE(o.out.find(" runs, "), std::string::npos) << o.out;
    EXPECT_NE(o.out.find("numasim calibrate: done in "), std::string::npos) << o.out;

    const Topology t = load_machine_file(path);
    EXPECT_EQ(t.name, "calibrated-host");
    const double latency = t.hw.latency(10);
    EXPECT_GE(latency, kMinLatencyNs);
    EXPECT_LE(latency, kMaxLatencyNs);
    EXPECT_GE(t.hw.dram_bandwidth_gbs, kMinBandwidthGbs);
    EXPECT_LE(t.hw.dram_bandwidth_gbs, kMaxBandwidthGbs);
    const std::string text = read_text(path);
    EXPECT_NE(text.find("# measured: idle pointer-chase latency at SLIT 10"), std::string::npos);
    EXPECT_NE(text.find("# measured: read bandwidth of all a node's CPUs from its own memory"),
              std::string::npos);
    // What it cannot measure says where it comes from.
    EXPECT_NE(text.find("# not measured: kept from numasim's generic figures"), std::string::npos)
        << text;

    const Output run =
        run_numasim("run examples/knobs.toml --machine " + path + " --duration 1s --iterations 1");
    EXPECT_EQ(run.status, 0) << run.out;
    EXPECT_NE(run.out.find("calibrated-host"), std::string::npos) << run.out;
}

// Without -o the file goes to standard output; --quiet leaves standard error empty, so the whole
// output is the machine file. --like names the preset the unmeasured figures come from.
TEST(CalibrateCli, HostTimingPrintsTheFileAndKeepsThePresetsFigures) {
    const Output o = run_numasim("calibrate --time-budget 1s --quiet --like cascadelake-2s");
    ASSERT_EQ(o.status, 0) << o.out;
    ASSERT_EQ(o.out.rfind("# Measured by numasim calibrate", 0), 0u) << o.out;
    const Topology t = load_machine_text(o.out, "stdout");
    EXPECT_DOUBLE_EQ(t.hw.cpu_ghz, 2.5);  // Xeon Gold 6248's nominal clock, as the preset says
    EXPECT_NE(o.out.find("kept from preset cascadelake-2s"), std::string::npos);
}

// Bad options fail at once, with exit 2, naming the option, before anything is measured or
// written.
TEST(CalibrateCli, BadOptionsNameTheOption) {
    const std::string path = scratch_path("never.toml");
    struct Case {
        std::string args, names;
    };
    for (const Case& c : std::vector<Case>{
             {"--like nosuch", "--like: 'nosuch': no such machine preset"},
             {"--time-budget 0s", "--time-budget: 0s is outside 1s..3600s"},
             {"--time-budget -5s", "--time-budget"},
             {"--time-budget 2000min", "--time-budget: 2000min is outside"},
             {"--time-budget soon", "--time-budget: not a duration"},
             {"--oracle nosuch", "command line: --oracle: unknown machine 'nosuch'"},
         }) {
        const Output o = run_numasim("calibrate " + c.args + " -o " + path);
        EXPECT_EQ(o.status, 2) << c.args << "\n" << o.out;
        EXPECT_EQ(o.out.rfind("numasim: error: ", 0), 0u) << o.out;
        EXPECT_NE(o.out.find(c.names), std::string::npos) << o.out;
        EXPECT_EQ(o.out.find("numasim calibrate: hwloc"), std::string::npos) << o.out;
        EXPECT_FALSE(std::filesystem::exists(path)) << c.args;
    }
    const Output o = run_numasim("calibrate -o /nonexistent-dir/x.toml");
    EXPECT_EQ(o.status, 2) << o.out;
    EXPECT_NE(o.out.find("numasim: error: --output: /nonexistent-dir/x.toml: cannot create"),
              std::string::npos)
        << o.out;
    EXPECT_EQ(o.out.find("numasim calibrate: hwloc"), std::string::npos) << o.out;
}

}  // namespace
}  // namespace numasim::test
