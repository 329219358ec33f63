// `numasim run --perf-mem-record FILE` end to end: the samples' counts, periods and data sources
// on a scenario worked by hand, their round trip through `numasim import perf-mem`, and errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "cli/numasim_process.h"

namespace numasim::test {
namespace {

// Two single-threaded processes on node 0 of tiny-2n, each moving 40 MB/s of random lines over
// its own 64 MiB for the whole 3 s run: "near" binds its buffer to node 0 and stores a quarter
// of its lines, "far" binds its buffer to node 1 and only loads.
const char* kScenario = R"([scenario]
machine = "tiny-2n"
duration = "3s"
seed = 1

[[workload]]
type = "streams"
name = "rec"

[[workload.process]]
name = "near"
image = "static"
[[workload.process.region]]
name = "buf"
size = "64MiB"
policy = "bind"
nodes = [0]
[[workload.process.thread]]
loop = true
phases = [ { affinity = "node:0", streams = [ { region = "buf", pattern = "random", write_fraction = 0.25 } ], rate_gbs = 0.04, cpu_time = "1s" } ]

[[workload.process]]
name = "far"
image = "static"
[[workload.process.region]]
name = "buf"
size = "64MiB"
policy = "bind"
nodes = [1]
[[workload.process.thread]]
loop = true
phases = [ { affinity = "node:0", streams = [ { region = "buf", pattern = "random" } ], rate_gbs = 0.04, cpu_time = "1s" } ]
)";

std::string write_scenario() {
    const std::string path = (scratch_dir() / "pm.toml").string();
    std::ofstream(path) << kScenario;
    return path;
}

struct Tally {
    uint64_t loads = 0, stores = 0, load_events = 0, store_events = 0, local = 0, remote = 0;
    std::vector<uint64_t> addrs;  // data addresses seen
};

// Per comm, from the recorder's text; checks that time never goes backwards.
std::map<std::string, Tally> tally(const std::string& text) {
    std::map<std::string, Tally> out;
    std::istringstream in(text);
    std::string line;
    double last = 0;
    while (std::getline(in, line)) {
        std::istringstream f(line);
        std::string comm, ids, cpu, time, event, addr, src;
        uint64_t period = 0;
        f >> comm >> ids >> cpu >> time >> period >> event >> addr >> src;
        const double t = std::stod(time);
        EXPECT_GE(t, last) << line;
        last = t;
        Tally& c = out[comm];
        c.addrs.push_back(std::stoull(addr, nullptr, 16));
        if (event == "cpu/mem-stores/P:") {
            ++c.stores;
            c.store_events += period;
        } else {
            ++c.loads;
            c.load_events += period;
            if (src == "1a69401042") ++c.local;
            if (src == "3a69402042") ++c.remote;
        }
    }
    return out;
}

TEST(PerfMemRecordCli, SamplesFollowTheRule) {
    const std::string toml = write_scenario();
    const std::string rec = (scratch_dir() / "pm.txt").string();
    const Output r = run_numasim("run " + toml + " --perf-mem-record " + rec);
    ASSERT_EQ(r.status, 0) << r.out;
    const std::map<std::string, Tally> t = tally(read_text(rec));
    ASSERT_EQ(t.count("near"), 1u);
    ASSERT_EQ(t.count("far"), 1u);
    const Tally& near = t.at("near");
    const Tally& far = t.at("far");
    // 4000 samples of each kind per second of run time: each thread runs (nearly) all of 3 s.
    for (const Tally* c : {&near, &far}) {
        EXPECT_GT(c->loads, 11000u);
        EXPECT_LE(c->loads, 12000u);
    }
    EXPECT_GT(near.stores, 11000u);
    EXPECT_LT(far.stores, 100u);  // the program's start-up writes only (its stack and data)
    // The periods add up to the lines moved: 40 MB/s for about 3 s is 1.875 M lines, a quarter
    // of near's stored; each look's period is rounded, within half an event of ~117.
    const double near_lines = static_cast<double>(near.load_events + near.store_events);
    EXPECT_NEAR(near_lines, 1.875e6, 0.03 * 1.875e6);
    EXPECT_NEAR(static_cast<double>(near.store_events) / near_lines, 0.25, 0.005);
    EXPECT_NEAR(static_cast<double>(far.load_events), 1.875e6, 0.03 * 1.875e6);
    // Where the loads were served: near's from its own node, far's from the other.
    EXPECT_EQ(near.local, near.loads);
    EXPECT_EQ(far.remote, far.loads);
    // The addresses spread over the 64 MiB buffer: the middle 98 % of them span nearly all of it
    // (the rest may be the stack and the image's data, which the program touches too).
    for (Tally c : {near, far}) {
        std::sort(c.addrs.begin(), c.addrs.end());
        const size_t n = c.addrs.size();
        const uint64_t span = c.addrs[n - 1 - n / 100] - c.addrs[n / 100];
        EXPECT_LT(span, uint64_t{64} << 20);
        EXPECT_GT(span, uint64_t{60} << 20);
    }
}

TEST(PerfMemRecordCli, RecordIsDeterministicAndLeavesTheRunAlone) {
    const std::string toml = write_scenario();
    const std::string a = (scratch_dir() / "a.txt").string();
    const std::string b = (scratch_dir() / "b.txt").string();
    const Output with = run_numasim("run " + toml + " --perf-mem-record " + a);
    const Output again = run_numasim("run " + toml + " --perf-mem-record " + b);
    const Output without = run_numasim("run " + toml);
    ASSERT_EQ(with.status, 0) << with.out;
    EXPECT_EQ(read_text(a), read_text(b));
    EXPECT_EQ(with.out, without.out);
    EXPECT_EQ(again.out, without.out);
}

TEST(PerfMemRecordCli, FrequencySetsTheSampleCount) {
    const std::string toml = write_scenario();
    const std::string rec = (scratch_dir() / "f.txt").string();
    ASSERT_EQ(run_numasim("run " + toml + " --perf-mem-freq 100 --perf-mem-record " + rec).status,
              0);
    const std::map<std::string, Tally> t = tally(read_text(rec));
    const Tally& far = t.at("far");
    EXPECT_GT(far.loads, 275u);
    EXPECT_LE(far.loads, 300u);
    EXPECT_NEAR(static_cast<double>(far.load_events), 1.875e6, 0.03 * 1.875e6);
}

TEST(PerfMemRecordCli, RecordImportsAndReplays) {
    const std::string toml = write_scenario();
    const std::string rec = (scratch_dir() / "rt.txt").string();
    const std::string replay = (scratch_dir() / "rt-replay.toml").string();
    ASSERT_EQ(run_numasim("run " + toml + " --perf-mem-record " + rec).status, 0);
    const Output imp = run_numasim("import perf-mem " + rec + " --machine tiny-2n -o " + replay);
    ASSERT_EQ(imp.status, 0) << imp.out;
    const std::string text = read_text(replay);
    EXPECT_NE(text.find("of 2 process(es), 2 thread(s)"), std::string::npos) << text;
    // far's loads were all remote: its block is first-touched by its thread 0 (the rule for a
    // block whose RAM accesses were mostly remote).
    EXPECT_NE(text.find("first_touch = \"thread\""), std::string::npos) << text;
    const Output run = run_numasim("run " + replay);
    ASSERT_EQ(run.status, 0) << run.out;
    EXPECT_NE(run.out.find("streams replay: 2 tasks"), std::string::npos) << run.out;
}

TEST(PerfMemRecordCli, BadOptionsAreExitTwoWithoutOutput) {
    const std::string toml = write_scenario();
    const std::string rec = (scratch_dir() / "no-such-dir" / "rec.txt").string();
    const Output r = run_numasim("run " + toml + " --perf-mem-record " + rec);
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_EQ(r.out.rfind("numasim: error: --perf-mem-record", 0), 0u) << r.out;
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
    EXPECT_FALSE(std::filesystem::exists(rec));
    const std::string ok = (scratch_dir() / "zero.txt").string();
    const Output z = run_numasim("run " + toml + " --perf-mem-freq 0 --perf-mem-record " + ok);
    EXPECT_EQ(z.status, 2) << z.out;
    EXPECT_NE(z.out.find("--perf-mem-freq"), std::string::npos) << z.out;
    EXPECT_FALSE(std::filesystem::exists(ok));
    const Output it = run_numasim("run " + toml + " --iterations 2 --perf-mem-record -");
    EXPECT_EQ(it.status, 2) << it.out;
    EXPECT_EQ(it.out.rfind("numasim: error: --perf-mem-record: -: standard output takes", 0), 0u)
        << it.out;
}

}  // namespace
}  // namespace numasim::test
