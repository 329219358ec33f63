// The HTML report from a hand-made result: the charts it draws, escaping, and bad input.
#include "report/html_report.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "config/input_error.h"

namespace numasim {
namespace {

size_t count(const std::string& s, const std::string& what) {
    size_t n = 0;
    for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1))
        ++n;
    return n;
}

nlohmann::json samples() {
    using nlohmann::json;
    return {{"vmstat",
             {{"columns",
               {"time_s", "numa_pte_updates", "numa_hint_faults", "numa_hint_faults_local",
                "numa_pages_migrated"}},
              {"rows", {{1.0, 100, 40, 10, 30}, {2.0, 100, 0, 0, 0}, {3.0, 50, 20, 20, 0}}}}},
            {"tasks",
             {{"columns", {"time_s", "pid", "comm", "node"}},
              {"rows", {{1.0, 7, "<evil>", 0}, {2.0, 7, "<evil>", 1}}}}},
            {"numastat",
             {{"columns", {"time_s", "pid", "comm", "node0_mb", "node1_mb", "total_mb"}},
              {"rows", {{1.0, 7, "<evil>", 1.5, 0.5, 2.0}}}}}};
}

TEST(HtmlReport, RunPageDrawsEveryChart) {
    const nlohmann::json r = {{"scenario", "s"},
                              {"machine", "m"},
                              {"profile", "p"},
                              {"samples", samples()},
                              {"provenance", {{"seed", "3"}}}};
    const std::string html = html_report(r, "result.json");
    EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
    // locality, activity, heatmap, one process's memory
    EXPECT_EQ(count(html, "<svg"), 4u);
    // The interval without hinting faults has no locality point: 2 of the 3 samples.
    const size_t loc = html.find("<polyline");
    const std::string first = html.substr(loc, html.find("/>", loc) - loc);
    EXPECT_EQ(count(first, ","), 2u) << first;
    EXPECT_EQ(html.find("<evil>"), std::string::npos);
    EXPECT_NE(html.find("&lt;evil&gt;-7"), std::string::npos);
    EXPECT_EQ(html.find("<script"), std::string::npos);
    EXPECT_EQ(html.find("http://"), html.find("http://www.w3.org/2000/svg"));
}

TEST(HtmlReport, TiersAreDrawnOnlyWhenTheSamplesHaveThem) {
    nlohmann::json s = samples();
    const nlohmann::json plain = {{"scenario", "s"}, {"samples", s}};
    EXPECT_EQ(html_report(plain, "result.json").find("Memory tiers"), std::string::npos);
    // Two tiers (memory_tier4: DRAM, memory_tier22: PMEM), two samples each.
    s["tiers"] = {{"columns",
                   {"time_s", "tier", "resident_pages", "promoted", "demoted", "promoted_per_s",
                    "demoted_per_s"}},
                  {"rows",
                   {{1.0, 4, 100, 10, 0, 10.0, 0.0},
                    {1.0, 22, 50, 0, 0, 0.0, 0.0},
                    {2.0, 4, 90, 5, 15, 5.0, 15.0},
                    {2.0, 22, 65, 0, 0, 0.0, 0.0}}}};
    const std::string html = html_report({{"scenario", "s"}, {"samples", s}}, "result.json");
    EXPECT_NE(html.find("<h2>Memory tiers</h2>"), std::string::npos);
    EXPECT_NE(html.find("memory_tier22 demoted"), std::string::npos);
    // Four charts as before, and the two of the tiers.
    EXPECT_EQ(count(html, "<svg"), 6u);
    // resident pages: a line per tier; rates: promoted and demoted per tier.
    const size_t at = html.find("<h2>Memory tiers</h2>");
    EXPECT_EQ(count(html.substr(at), "<polyline"), 6u);
    // The reader keeps the table.
    std::istringstream in(nlohmann::json({{"samples", s}}).dump());
    EXPECT_TRUE(read_report_input(in, "result.json")["samples"].contains("tiers"));
}

TEST(HtmlReport, ComparePageOverlaysVariants) {
    const nlohmann::json r = {{"scenario", "s"},
                              {"variants", {"a", "b"}},
                              {"compare", {{"text", "Amean 1 <2>"}}},
                              {"samples", {{"a", {samples()}}, {"b", {samples()}}}}};
    const std::string html = html_report(r, "result.json");
    EXPECT_NE(html.find("Amean 1 &lt;2&gt;"), std::string::npos);
    // Three overlaid charts with a line per variant, then a heatmap per variant.
    EXPECT_EQ(count(html, "<polyline"), 6u);
    EXPECT_EQ(count(html, "<svg"), 5u);
}

TEST(HtmlReport, ComparePageDrawsLatencyHistogramsSideBySide) {
    using nlohmann::json;
    // Variant a: 3 faults in "0-1" and 1 in "2-3"; b: 4 in "4-7". One chart over the buckets
    // 0-1 .. 4-7, a bar per variant and bucket with events, b's 4 of 4 reaching the top.
    auto hist = [](json buckets) { return json{{"faults", {{"count", 4}, {"buckets", buckets}}}}; };
    const json a = hist({{{"interval-start", 0}, {"interval-end", 1}, {"count", 3}},
                         {{"interval-start", 2}, {"interval-end", 3}, {"count", 1}}});
    const json b = hist({{{"interval-start", 0}, {"interval-end", 1}, {"count", 0}},
                         {{"interval-start", 2}, {"interval-end", 3}, {"count", 0}},
                         {{"interval-start", 4}, {"interval-end", 7}, {"count", 4}}});
    const json r = {{"scenario", "s"},
                    {"variants", {"a", "b"}},
                    {"samples", {{"a", {samples()}}, {"b", {samples()}}}},
                    {"latency",
                     {{"unit", "usecs"},
                      {"compare", {{"text", "Lat 50.0th-qrtle-faults"}}},
                      {"variants", {{"a", a}, {"b", b}}}}}};
    const std::string html = html_report(r, "result.json");
    EXPECT_NE(html.find("Lat 50.0th-qrtle-faults"), std::string::npos);
    EXPECT_EQ(count(html, "<svg"), 6u);  // the five charts of the page and one histogram
    const std::string chart = html.substr(html.find("<svg", html.find("Latency (all runs")));
    EXPECT_EQ(count(chart.substr(0, chart.find("</svg>")), "<rect x"),
              3u + 2u);  // three bars and two legend keys
    EXPECT_NE(html.find(">4-7</text>"), std::string::npos);
    EXPECT_EQ(html.find(">8-15</text>"), std::string::npos);
    EXPECT_NE(html.find("height=\"205.0\" fill=\"#f28e2b\"><title>b: 4</title>"),
              std::string::npos);
}

// `samples()` with the tables the page does not draw.
nlohmann::json all_samples() {
    nlohmann::json s = samples();
    s["numa_maps"] = {{"columns", {"time_s", "pid"}}, {"rows", {{1.0, 7}}}};
    s["convergence"] = {{"columns", {"time_s", "convergence"}}, {"rows", {{1.0, 0.5}}}};
    return s;
}

nlohmann::json read(const nlohmann::json& result) {
    std::istringstream in(result.dump(2));
    return read_report_input(in, "result.json");
}

TEST(HtmlReport, ReaderKeepsWhatTheRunPageDraws) {
    const nlohmann::json r = {{"scenario", "s"},
                              {"machine", "m"},
                              {"profile", "p"},
                              {"samples", all_samples()},
                              {"provenance", {{"seed", "3"}}},
                              {"tasks", {{{"pid", 7}}}},
                              {"runs", {{{"samples", all_samples()}}, {{"samples", samples()}}}}};
    const nlohmann::json kept = read(r);
    nlohmann::json expected = r;
    expected.erase("tasks");
    expected.erase("runs");
    expected["samples"] = samples();
    EXPECT_EQ(kept, expected);
    EXPECT_EQ(html_report(kept, "result.json"), html_report(r, "result.json"));
}

TEST(HtmlReport, ReaderKeepsEachVariantsFirstIteration) {
    // A variant may be named as a table is.
    const nlohmann::json r = {
        {"scenario", "s"},
        {"variants", {"a", "numa_maps"}},
        {"compare", {{"text", "Amean"}}},
        {"runs", {{"a", {{{"elapsed_s", 1}}}}}},
        {"samples",
         {{"a", {all_samples(), all_samples()}}, {"numa_maps", {all_samples(), samples()}}}}};
    const nlohmann::json kept = read(r);
    nlohmann::json expected = r;
    expected.erase("runs");
    expected["samples"] = {{"a", {samples()}}, {"numa_maps", {samples()}}};
    EXPECT_EQ(kept, expected);
    EXPECT_EQ(html_report(kept, "result.json"), html_report(r, "result.json"));
}

TEST(HtmlReport, ReaderNamesTheFileOfBadJson) {
    std::istringstream in("{\"samples\": [");
    try {
        read_report_input(in, "dir/result.json");
        FAIL();
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("dir/result.json"), std::string::npos);
    }
}

TEST(HtmlReport, ResultWithoutSamplesIsAnError) {
    try {
        html_report({{"scenario", "s"}}, "dir/result.json");
        FAIL();
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("dir/result.json"), std::string::npos);
        EXPECT_NE(std::string(e.what()).find("--sample"), std::string::npos);
    }
}

}  // namespace
}  // namespace numasim
