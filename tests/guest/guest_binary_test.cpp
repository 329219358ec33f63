// Runs the static numasim-guest on the host's own kernel (whatever NUMA nodes it has) with a
// tiny scenario: the lines it prints are what the oracle reads from a qemu guest.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "oracle/guest_log.h"
#include "oracle/subprocess.h"

namespace numasim {
namespace {

std::string write_temp(const std::string& name, const std::string& text) {
    const auto path =
        std::filesystem::temp_directory_path() / (name + "." + std::to_string(::getpid()));
    std::ofstream(path) << text;
    return path.string();
}

constexpr const char* kScenario = R"(
[scenario]
machine = "tiny-2n"
[[workload]]
type = "streams"
[[workload.process]]
name = "two"
threads = 2
[[workload.process.region]]
name = "buffer"
size = "8MiB"
first_touch = "node:0"
[[workload.process.thread]]
phases = [ { streams = [ { region = "buffer", write_fraction = 1.0, per_thread = true } ], rate_gbs = 1.0, work = "64MiB" } ]
)";

BootLog run_guest(const std::string& name, const std::vector<std::string>& extra,
                  const std::string& scenario = kScenario) {
    std::vector<std::string> argv = {NUMASIM_GUEST_BINARY, write_temp(name + ".toml", scenario)};
    argv.insert(argv.end(), extra.begin(), extra.end());
    const CommandResult r = run_command(argv, {.timeout_s = 60, .cwd = "", .on_line = {}});
    EXPECT_EQ(r.exit_code, 0) << r.output;
    return parse_boot_log(r.output);
}

TEST(GuestBinary, RunsTheStreamsProgramOnThisKernel) {
    if (access("/sys/devices/system/node/node0", F_OK) != 0) GTEST_SKIP() << "no NUMA sysfs";
    const BootLog b = run_guest("guest-test-run", {"--duration-ms", "20000", "--progress-ms", "0"});
    EXPECT_TRUE(b.errors.empty()) << b.errors.front();
    ASSERT_EQ(b.tasks.size(), 2u);
    for (const auto& t : b.tasks) {
        EXPECT_EQ(t.at("process"), "two");
        // Each thread swept its 4 MiB slice until it had written 64 MiB.
        EXPECT_EQ(std::stoull(t.at("bytes")), uint64_t{64} << 20);
        EXPECT_TRUE(t.count("nr_migrations"));
    }
    // The region after the first touch and at the end: all 2048 pages bound to node 0.
    ASSERT_EQ(b.regions.size(), 2u);
    EXPECT_EQ(b.regions[0].at("when"), "first_touch");
    EXPECT_EQ(std::stoull(b.regions[0].at("N0")), 2048u);
}

TEST(GuestBinary, StopsAtTheDurationAndSamples) {
    if (access("/sys/devices/system/node/node0", F_OK) != 0) GTEST_SKIP() << "no NUMA sysfs";
    const BootLog b =
        run_guest("guest-test-stop", {"--duration-ms", "300", "--sample-ms", "100", "--params",
                                      write_temp("guest-test.params",
                                                 "workload.process.thread.phases=[ { "
                                                 "streams = [ { region = \"buffer\" } ], "
                                                 "rate_gbs = 1.0, cpu_time = \"3600s\" } ]\n")});
    EXPECT_LT(b.elapsed_s, 5.0);
    EXPECT_GE(b.samples.size(), 2u);
    EXPECT_TRUE(b.samples[0].delta.count("numa_hint_faults"));
}

// Two instances started under numactl's binding to node 0 (with --balancing, so the flag reaches
// set_mempolicy() too): the threads run on node 0's CPUs and fault the buffer in there.
TEST(GuestBinary, StartsEachProcessUnderItsNumactlLine) {
    if (access("/sys/devices/system/node/node0", F_OK) != 0) GTEST_SKIP() << "no NUMA sysfs";
    const BootLog b =
        run_guest("guest-test-numactl", {"--duration-ms", "20000", "--progress-ms", "0"},
                  R"(
[scenario]
policy = "numactl"
[[workload]]
type = "streams"
[[workload.process]]
name = "bound"
count = 2
threads = 2
[[workload.process.region]]
name = "buffer"
size = "8MiB"
[[workload.process.thread]]
phases = [ { streams = [ { region = "buffer", write_fraction = 1.0, per_thread = true } ], rate_gbs = 1.0, work = "16MiB" } ]
[policy.numactl]
processes = ["--cpunodebind=0 --balancing --membind=0"]
)");
    EXPECT_TRUE(b.errors.empty()) << b.errors.front();
    ASSERT_EQ(b.tasks.size(), 4u);
    for (const auto& t : b.tasks)
        EXPECT_EQ(t.at("node"), "0") << "cpu " << t.at("cpu");
    ASSERT_EQ(b.regions.size(), 2u);
    for (const auto& r : b.regions)
        EXPECT_EQ(std::stoull(r.at("N0")), 2048u);
}

}  // namespace
}  // namespace numasim
