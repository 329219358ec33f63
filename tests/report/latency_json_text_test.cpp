// The latency report's JSON, written as text without building a JSON object: laid out as
// nlohmann's dump(2) lays out the same document (its members in key order), with the values of
// hand-built histograms.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "report/json_splice.h"
#include "report/latency_report.h"

namespace numasim {
namespace {

// Two threads of process 100 and one of process 200, with a comm that needs escaping.
RunResult three_tasks() {
    RunResult r;
    r.latency_recorded = true;
    TaskLatency a{.pid = 100, .tgid = 100, .comm = "numa01", .hists = {}};
    a.hists.add(LatencyKind::NumaWork, 3'000, 2);     // 3 us: "2 -> 3"
    a.hists.add(LatencyKind::HintFault, 100'000, 1);  // 100 us: "64 -> 127"
    TaskLatency b{.pid = 101, .tgid = 100, .comm = "numa01", .hists = {}};
    b.hists.add(LatencyKind::NumaWork, 0, 1);             // "0 -> 1"
    b.hists.add(LatencyKind::RemoteStall, 5'000'000, 4);  // 5000 us: "4096 -> 8191"
    TaskLatency c{.pid = 200, .tgid = 200, .comm = "a \"b\"\\c", .hists = {}};
    c.hists.add(LatencyKind::TlbIpi, 1'000, 3);
    r.latency = {a, b, c};
    return r;
}

TEST(LatencyJsonText, LaidOutAsDumpWithTheHistogramsValues) {
    LatencyReportOptions o;
    o.per_process = true;
    const std::string text = latency_json_text(three_tasks(), o, 0);
    const nlohmann::json j = nlohmann::json::parse(text);
    // dump(2) of what it parses to is the same text: the layout and the key order are dump's.
    EXPECT_EQ(j.dump(kJsonIndent), text);

    EXPECT_EQ(j["per"], "process");
    EXPECT_EQ(j["unit"], "usecs");
    ASSERT_EQ(j["entries"].size(), 2u);
    const nlohmann::json& p100 = j["entries"][0];
    EXPECT_EQ(p100["pid"], 100);
    EXPECT_EQ(p100["comm"], "numa01");
    // Both threads' task_numa_work merged: 1 event of 0 in "0 -> 1", 2 of 3 us in "2 -> 3".
    const nlohmann::json& work = p100["histograms"]["task_numa_work"];
    EXPECT_EQ(work["count"], 3);
    EXPECT_EQ(work["counts"], nlohmann::json::parse("[1, 2]"));
    EXPECT_EQ(work["total_ns"], 6'000);
    EXPECT_EQ(work["p50"], 3);  // rank 2 of 3: "2 -> 3"
    EXPECT_EQ(work["p99.9"], 3);
    // 4 ticks of 5000 us: slot 13, "4096 -> 8191".
    const nlohmann::json& stall = p100["histograms"]["remote_access_stall"];
    EXPECT_EQ(stall["counts"].size(), 13u);
    EXPECT_EQ(stall["counts"][12], 4);
    EXPECT_EQ(stall["p50"], 8191);
    const nlohmann::json& p200 = j["entries"][1];
    EXPECT_EQ(p200["comm"], "a \"b\"\\c");
    EXPECT_EQ(p200["histograms"].size(), 1u);
    // "all": bcc's bucket objects of every task merged.
    const nlohmann::json& all = j["all"]["tlb_shootdown_ipi"]["buckets"];
    ASSERT_EQ(all.size(), 1u);
    EXPECT_EQ(all[0],
              nlohmann::json::parse(R"({"interval-start": 0, "interval-end": 1, "count": 3})"));
    EXPECT_EQ(j["all"]["numa_hint_fault"]["buckets"][6]["interval-start"], 64);
}

TEST(LatencyJsonText, PerTaskIndentedAsAMemberAndPercentilesInKeyOrder) {
    LatencyReportOptions o;
    o.msecs = true;
    // "p100" sorts before "p5"; a percentile given twice is one member.
    o.percentiles = {5, 100, 5, 0.5};
    const std::string text = latency_json_text(three_tasks(), o, 4);
    const nlohmann::json j = nlohmann::json::parse(text);
    EXPECT_EQ(json_text(j, 4), text);
    EXPECT_EQ(j["per"], "task");
    EXPECT_EQ(j["unit"], "msecs");
    ASSERT_EQ(j["entries"].size(), 3u);
    EXPECT_EQ(j["entries"][1]["tid"], 101);
    const nlohmann::json& stall = j["entries"][1]["histograms"]["remote_access_stall"];
    EXPECT_EQ(stall["counts"], nlohmann::json::parse("[0, 0, 4]"));  // 5 ms: "4 -> 7"
    EXPECT_EQ(stall["p100"], 7);
    EXPECT_EQ(stall["p0.5"], 7);
    const auto keys = [](const nlohmann::json& h) {
        std::vector<std::string> k;
        for (auto it = h.begin(); it != h.end(); ++it)
            k.push_back(it.key());
        return k;
    };
    EXPECT_EQ(keys(stall),
              (std::vector<std::string>{"count", "counts", "p0.5", "p100", "p5", "total_ns"}));
}

TEST(LatencyJsonText, NothingRecordedIsEmptyObjectsAndArrays) {
    RunResult r;
    r.latency_recorded = true;
    const std::string text = latency_json_text(r, LatencyReportOptions{}, 2);
    EXPECT_EQ(text,
              "{\n"
              "    \"all\": {},\n"
              "    \"entries\": [],\n"
              "    \"per\": \"task\",\n"
              "    \"unit\": \"usecs\"\n"
              "  }");
}

}  // namespace
}  // namespace numasim
