// `numasim run --damon-record FILE` end to end: the record's structure and counts on a scenario
// worked by hand, its round trip through `numasim import damon`, and its errors.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/numasim_process.h"

namespace numasim::test {
namespace {

// Process "steady": one thread moving 40 MB/s of random lines over a 64 MiB region (16384
// pages), for all of the run. Process "napper": one thread that moves 1 GB/s over its own 64 MiB
// for 300 ms of CPU time, then sleeps past the end of the run.
const char* kScenario = R"([scenario]
machine = "tiny-2n"
duration = "3s"
seed = 1

[[workload]]
type = "streams"
name = "rec"

[[workload.process]]
name = "steady"
image = "static"
[[workload.process.region]]
name = "buf"
size = "64MiB"
[[workload.process.thread]]
loop = true
phases = [ { streams = [ { region = "buf", pattern = "random" } ], rate_gbs = 0.04, cpu_time = "1s" } ]

[[workload.process]]
name = "napper"
image = "static"
[[workload.process.region]]
name = "buf"
size = "64MiB"
[[workload.process.thread]]
phases = [ { streams = [ { region = "buf", pattern = "random" } ], rate_gbs = 1.0, cpu_time = "300ms", sleep = "60s" } ]
)";

std::string write_scenario() {
    const std::string path = (scratch_dir() / "rec.toml").string();
    std::ofstream(path) << kScenario;
    return path;
}

// The windows of the record's target `t` ([start, end) in seconds) and, per window, the
// nr_accesses of the regions inside the 64 MiB buffer's largest pieces (at least 1 MiB).
struct Window {
    double start, end;
    std::vector<int> big;
    int max_all = 0;
};
std::vector<Window> windows_of(const nlohmann::json& rec) {
    std::vector<Window> ws;
    for (const auto& s : rec["snapshots"]) {
        Window w{std::stod(s["start_time"].get<std::string>()) / 1e9,
                 std::stod(s["end_time"].get<std::string>()) / 1e9,
                 {}};
        uint64_t prev_end = 0;
        for (const auto& r : s["regions"]) {
            const uint64_t a = std::stoull(r["start"].get<std::string>());
            const uint64_t b = std::stoull(r["end"].get<std::string>());
            EXPECT_LT(a, b);
            EXPECT_GE(a, prev_end);  // sorted and disjoint
            prev_end = b;
            const int n = r["nr_accesses"]["samples"].get<int>();
            EXPECT_LE(n, 20);  // aggr / sample
            w.max_all = std::max(w.max_all, n);
            if (b - a >= (uint64_t{1} << 20)) w.big.push_back(n);
        }
        EXPECT_GE(s["regions"].size(), 10u);  // min_nr_regions
        ws.push_back(w);
    }
    return ws;
}

TEST(DamonRecordCli, CountsFollowTheRuleAndSleepIsZero) {
    const std::string toml = write_scenario();
    const std::string rec = (scratch_dir() / "rec.json").string();
    const Output r = run_numasim("run " + toml + " --damon-record " + rec);
    ASSERT_EQ(r.status, 0) << r.out;
    const nlohmann::json j = nlohmann::json::parse(read_text(rec));
    ASSERT_EQ(j.size(), 2u);
    EXPECT_EQ(j[0]["intervals"]["sample_us"], "5000");
    EXPECT_EQ(j[0]["intervals"]["aggr_us"], "100000");
    // 3 s of 100 ms windows from 0: 30, the last ending at 3 s.
    const std::vector<Window> steady = windows_of(j[0]), napper = windows_of(j[1]);
    ASSERT_EQ(steady.size(), 30u);
    EXPECT_DOUBLE_EQ(steady.back().end, 3.0);
    // 40 MB/s over 16384 pages: 0.19073 lines per page per 5 ms sample, found accessed with
    // 1 - e^-0.19073 = 0.17365, 3.473 of 20 samples -> 3 (damon_recorder_test.cpp).
    for (const Window& w : steady)
        if (w.start >= 0.5) {
            ASSERT_FALSE(w.big.empty());
            for (int n : w.big)
                EXPECT_EQ(n, 3) << "window at " << w.start << " s";
        }
    // 1 GB/s: 4.768 lines per page per sample, 19.83 of 20 -> 20, while it runs; then asleep,
    // nothing of the process is accessed.
    bool busy_seen = false;
    for (const Window& w : napper) {
        if (w.end <= 0.25) {
            for (int n : w.big)
                busy_seen = busy_seen || n == 20;
        }
        if (w.start >= 0.5) {
            EXPECT_EQ(w.max_all, 0) << "window at " << w.start << " s";
        }
    }
    EXPECT_TRUE(busy_seen);
}

TEST(DamonRecordCli, RecordIsDeterministicAndLeavesTheRunAlone) {
    const std::string toml = write_scenario();
    const std::string a = (scratch_dir() / "a.json").string();
    const std::string b = (scratch_dir() / "b.json").string();
    const Output with = run_numasim("run " + toml + " --damon-record " + a);
    const Output again = run_numasim("run " + toml + " --damon-record " + b);
    const Output without = run_numasim("run " + toml);
    ASSERT_EQ(with.status, 0) << with.out;
    EXPECT_EQ(read_text(a), read_text(b));
    EXPECT_EQ(with.out, without.out);
    EXPECT_EQ(again.out, without.out);
}

TEST(DamonRecordCli, RecordImportsAndReplays) {
    const std::string toml = write_scenario();
    const std::string rec = (scratch_dir() / "rt.json").string();
    const std::string replay = (scratch_dir() / "rt-replay.toml").string();
    ASSERT_EQ(run_numasim("run " + toml + " --damon-record " + rec).status, 0);
    const Output imp =
        run_numasim("import damon " + rec + " --machine tiny-2n --phase 500ms -o " + replay);
    ASSERT_EQ(imp.status, 0) << imp.out;
    const std::string text = read_text(replay);
    EXPECT_NE(text.find("# target_id 0: 30 window(s)"), std::string::npos) << text;
    EXPECT_NE(text.find("# target_id 1: 30 window(s)"), std::string::npos) << text;
    const Output run = run_numasim("run " + replay);
    ASSERT_EQ(run.status, 0) << run.out;
    EXPECT_NE(run.out.find("streams replay: 2 tasks"), std::string::npos) << run.out;
}

TEST(DamonRecordCli, UnwritablePathIsExitTwoWithoutOutput) {
    const std::string toml = write_scenario();
    const std::string rec = (scratch_dir() / "no-such-dir" / "rec.json").string();
    const Output r = run_numasim("run " + toml + " --damon-record " + rec);
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_EQ(r.out.rfind("numasim: error: --damon-record", 0), 0u) << r.out;
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
    EXPECT_FALSE(std::filesystem::exists(rec));
}

TEST(DamonRecordCli, EachIterationHasItsOwnRecord) {
    const std::string toml = write_scenario();
    const std::string rec = (scratch_dir() / "it.json").string();
    const Output r =
        run_numasim("run " + toml + " --duration 1s --iterations 2 --damon-record " + rec);
    ASSERT_EQ(r.status, 0) << r.out;
    EXPECT_FALSE(std::filesystem::exists(rec));
    EXPECT_TRUE(std::filesystem::exists(scratch_dir() / "it-1.json"));
    EXPECT_TRUE(std::filesystem::exists(scratch_dir() / "it-2.json"));
    const Output out = run_numasim("run " + toml + " --iterations 2 --damon-record -");
    EXPECT_EQ(out.status, 2) << out.out;
    EXPECT_EQ(out.out.rfind("numasim: error: --damon-record: -: standard output takes", 0), 0u)
        << out.out;
}

TEST(DamonRecordCli, FailedRunLeavesNoRecord) {
    const std::string bad = (scratch_dir() / "bad.toml").string();
    std::ofstream(bad) << "[scenario]\nmachine = \"no-such-machine\"\n";
    const std::string rec = (scratch_dir() / "failed.json").string();
    const Output r = run_numasim("run " + bad + " --damon-record " + rec);
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_FALSE(std::filesystem::exists(rec));
    for (const auto& e : std::filesystem::directory_iterator(scratch_dir()))
        EXPECT_EQ(e.path().filename().string().find("failed.json"), std::string::npos);
}

}  // namespace
}  // namespace numasim::test
