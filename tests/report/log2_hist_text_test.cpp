// bcc's print_log2_hist() layout, byte for byte, on hand-built histograms; the latency report's
// mmtests row names and its compare rows.
#include "report/log2_hist_text.h"

#include <gtest/gtest.h>

#include "report/latency_report.h"

namespace numasim {
namespace {

TEST(Log2HistText, NarrowLayoutAsFunclatency) {
    Log2Hist h;
    h.add(0, 2);   // "0 -> 1"
    h.add(5, 8);   // "4 -> 7": the largest, 40 stars
    h.add(20, 3);  // "16 -> 31": floor(40 * 3 / 8) = 15 stars
    const std::string want =
        "     usecs               : count     distribution\n"
        "         0 -> 1          : 2        |**********                              |\n"
        "         2 -> 3          : 0        |                                        |\n"
        "         4 -> 7          : 8        |****************************************|\n"
        "         8 -> 15         : 0        |                                        |\n"
        "        16 -> 31         : 3        |***************                         |\n";
    EXPECT_EQ(log2_hist_text(h, "usecs"), want);
}

TEST(Log2HistText, EmptyPrintsNothing) {
    EXPECT_EQ(log2_hist_text(Log2Hist{}, "msecs"), "");
}

TEST(Log2HistText, WideLayoutBeyondSlot32) {
    Log2Hist h;
    h.add(uint64_t{1} << 32);  // slot 33: the wide layout, 20 stars
    const std::string text = log2_hist_text(h, "usecs");
    EXPECT_TRUE(text.starts_with(
        "               usecs                         : count     distribution\n"));
    EXPECT_NE(text.find("          4294967296 -> 8589934591           : 1        "
                        "|********************|\n"),
              std::string::npos);
}

TEST(LatencyReport, RowNamesAsMmtestsSchbench) {
    EXPECT_EQ(latency_row_name(50, "task_numa_work"), "50.0th-qrtle-task_numa_work");
    EXPECT_EQ(latency_row_name(99.9, "numa_hint_fault"), "99.9th-qrtle-numa_hint_fault");
    EXPECT_EQ(latency_row_name(99.99, "x"), "99.99th-qrtle-x");
}

TEST(LatencyReport, CompareRowsAgainstTheBaseline) {
    // Variant a: 10 calls of 100 us; b: 10 of 40 us. p50: 127 vs 63 us, lower is better.
    std::vector<VariantRuns> v(2);
    for (auto [i, ns] : {std::pair{0, 100000}, std::pair{1, 40000}}) {
        v[static_cast<size_t>(i)].name.push_back(static_cast<char>('a' + i));
        RunResult r;
        r.latency_recorded = true;
        TaskLatency t;
        t.pid = t.tgid = 1000;
        t.hists.add(LatencyKind::NumaWork, ns, 10);
        r.latency.push_back(t);
        v[static_cast<size_t>(i)].runs.push_back(r);
    }
    LatencyReportOptions o;
    o.percentiles = {50};
    const CompareTable t = latency_compare_table(v, o);
    ASSERT_EQ(t.rows.size(), 1u);
    EXPECT_EQ(t.rows[0].stat, "Lat");
    EXPECT_EQ(t.rows[0].operation, "50.0th-qrtle-task_numa_work");
    EXPECT_EQ(t.rows[0].cells[0].value, 127);
    EXPECT_EQ(t.rows[0].cells[1].value, 63);
    EXPECT_NEAR(t.rows[0].cells[1].pct, 100.0 * (127 - 63) / 127, 1e-9);
    EXPECT_NE(render_compare_table(t).find("Lat 50.0th-qrtle-task_numa_work"), std::string::npos);
}

}  // namespace
}  // namespace numasim
