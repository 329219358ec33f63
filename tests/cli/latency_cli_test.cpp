// `--latency` end to end: bcc's text layout in `run`, the JSON buckets and percentiles, mmtests'
// percentile rows in `compare`, the same bytes at any number of workers, and bad values refused
// with exit 2 and no output.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "numasim_process.h"

namespace numasim::test {
namespace {

constexpr const char* kRun = "run examples/knobs.toml --duration 2s --latency";

TEST(LatencyCli, RunPrintsBccHistograms) {
    const Output o = run_numasim(kRun);
    ASSERT_EQ(o.status, 0) << o.out;
    EXPECT_NE(o.out.find("NUMA balancing latency per task (usecs"), std::string::npos);
    EXPECT_NE(o.out.find("\nLatency = task_numa_work\n     usecs               : count     "
                         "distribution\n         0 -> 1          : "),
              std::string::npos)
        << o.out;
    EXPECT_NE(o.out.find("\nLatency = numa_hint_fault\n"), std::string::npos);
    EXPECT_NE(o.out.find("\navg = "), std::string::npos);
    EXPECT_NE(o.out.find("p50 <= "), std::string::npos);
    EXPECT_NE(o.out.find("\ntid = "), std::string::npos);
}

TEST(LatencyCli, PerProcessInMsecs) {
    const Output o = run_numasim(std::string(kRun) + " --latency-per process --latency-unit msecs");
    ASSERT_EQ(o.status, 0) << o.out;
    EXPECT_NE(o.out.find("\npid = "), std::string::npos);
    EXPECT_EQ(o.out.find("\ntid = "), std::string::npos);
    EXPECT_NE(o.out.find("     msecs               : count     distribution\n"), std::string::npos);
}

TEST(LatencyCli, JsonHasBucketsAndPercentiles) {
    const Output o = run_numasim(std::string(kRun) + " --json --latency-percentiles 50,99.9");
    ASSERT_EQ(o.status, 0) << o.out;
    const auto j = nlohmann::json::parse(o.out);
    const auto& w = j.at("latency").at("all").at("task_numa_work");
    uint64_t sum = 0;
    for (const auto& b : w.at("buckets"))
        sum += b.at("count").get<uint64_t>();
    EXPECT_EQ(sum, w.at("count").get<uint64_t>());
    EXPECT_TRUE(w.contains("p50"));
    EXPECT_TRUE(w.contains("p99.9"));
    EXPECT_FALSE(w.contains("p90"));
    EXPECT_EQ(j.at("latency").at("per"), "task");
}

TEST(LatencyCli, WithoutLatencyNothingChanges) {
    const Output o = run_numasim("run examples/knobs.toml --duration 2s --json");
    ASSERT_EQ(o.status, 0) << o.out;
    EXPECT_FALSE(nlohmann::json::parse(o.out).contains("latency"));
}

TEST(LatencyCli, CompareRowsSameAtAnyWorkers) {
    const std::string args =
        "compare examples/variants.toml --duration 2s --iterations 2 --latency";
    const Output a = run_numasim(args + " -j 1");
    const Output b = run_numasim(args + " -j 2");
    ASSERT_EQ(a.status, 0) << a.out;
    EXPECT_EQ(a.out, b.out);
    EXPECT_NE(a.out.find("\nLat 50.0th-qrtle-task_numa_work "), std::string::npos) << a.out;
    EXPECT_NE(a.out.find("\nLat 99.9th-qrtle-numa_hint_fault "), std::string::npos);
}

TEST(LatencyCli, BadValuesExitTwo) {
    Output o = run_numasim(std::string(kRun) + " --latency-percentiles 50,101");
    EXPECT_EQ(o.status, 2);
    EXPECT_EQ(o.out,
              "numasim: error: --latency-percentiles: 101: a percentile is a number from 0 to "
              "100\n");
    o = run_numasim(std::string(kRun) + " --latency-percentiles=-1");
    EXPECT_EQ(o.status, 2) << o.out;
    o = run_numasim(std::string(kRun) + " --latency-per thread");
    EXPECT_EQ(o.status, 2);
    EXPECT_NE(o.out.find("--latency-per"), std::string::npos);
    o = run_numasim(std::string(kRun) + " --proc-vmstat --iterations 1");
    EXPECT_EQ(o.status, 2);
    EXPECT_NE(o.out.find("numasim: error: --latency: "), std::string::npos) << o.out;
    o = run_numasim("run examples/knobs.toml --latency-per process");
    EXPECT_EQ(o.status, 2);
    EXPECT_EQ(o.out, "numasim: error: --latency-per: reports latency histograms: add --latency\n");
}

}  // namespace
}  // namespace numasim::test
