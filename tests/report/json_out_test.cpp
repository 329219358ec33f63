#include "report/json_out.h"

#include <gtest/gtest.h>

#include <cmath>

namespace numasim {
namespace {

TEST(JsonOut, CompareTableStructure) {
    std::vector<OperationSamples> ops = {{"elsp-X", Better::Lower, {{10, 10}, {5, 5}}}};
    nlohmann::json j = to_json(build_compare_table({"k-a", "k-b"}, ops));
    EXPECT_EQ(j["columns"], nlohmann::json({"k-a", "k-b"}));
    EXPECT_EQ(j["baseline"], "k-a");
    ASSERT_EQ(j["rows"].size(), 6u);
    const auto& mean = j["rows"][1];
    EXPECT_EQ(mean["stat"], "Amean");
    EXPECT_DOUBLE_EQ(mean["values"][1].get<double>(), 5.0);
    EXPECT_DOUBLE_EQ(mean["pct"][1].get<double>(), 50.0);
    EXPECT_EQ(mean["significant"][1], true);
    EXPECT_TRUE(j["text"].is_string());
}

TEST(JsonOut, NanBecomesNull) {
    EXPECT_TRUE(json_number(std::nan("")).is_null());
    EXPECT_TRUE(to_json(summarise({1.0}, Better::Lower))["stddev"].is_null());
}

TEST(JsonOut, MonitorAndSeedTables) {
    nlohmann::json d = to_json(build_duration_table({"a"}, {{1, 2, 3}}));
    EXPECT_EQ(d["rows"][2]["operation"], "Elapsed");
    EXPECT_DOUBLE_EQ(d["rows"][2]["values"][0].get<double>(), 3.0);
    nlohmann::json s = to_json(SpecjbbBlock{"t", {"Prev", "Current"}, {{4, {100, 110}}}});
    EXPECT_DOUBLE_EQ(s["rows"][0]["pct"][0].get<double>(), 10.0);
    nlohmann::json e = event_table_json("perf stats x", {"Before"}, {{"cs", {7}}});
    EXPECT_EQ(e["rows"][0]["values"][0], 7);
}

TEST(JsonOut, PerfBenchNuma) {
    PerfBenchNumaRaw raw;
    raw.runtime_sec_max = 10;
    raw.runtime_sec_min = 8;
    raw.runtime_sec_avg = 9;
    raw.bytes = 40e9;
    raw.nr_tasks = 4;
    nlohmann::json j = to_json(raw);
    EXPECT_DOUBLE_EQ(j["results"]["total-speed"].get<double>(), 4.0);
    EXPECT_FALSE(j["results"].contains("NUMA-convergence-latency"));
    EXPECT_EQ(j["name"], "main,");
}

}  // namespace
}  // namespace numasim
