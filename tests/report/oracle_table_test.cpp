#include "report/oracle_table.h"

#include <gtest/gtest.h>

#include <cmath>

namespace numasim {
namespace {

TEST(OracleVerdict, RatioOfMediansWithinAFactorOfTwo) {
    const auto v = judge_oracle_figure({"numa_pages_migrated", {100622, 131082, 131075}, {131072}});
    EXPECT_DOUBLE_EQ(v.real_median, 131075);
    EXPECT_NEAR(v.ratio, 131072.0 / 131075.0, 1e-12);
    EXPECT_TRUE(v.within);
    EXPECT_FALSE(judge_oracle_figure({"x", {100}, {201}}).within);
    EXPECT_TRUE(judge_oracle_figure({"x", {100}, {200}}).within);
    EXPECT_TRUE(judge_oracle_figure({"x", {100}, {50}}).within);
    EXPECT_FALSE(judge_oracle_figure({"x", {100}, {49}}).within);
}

TEST(OracleVerdict, Zeros) {
    const auto both = judge_oracle_figure({"x", {0, 0}, {0}});
    EXPECT_TRUE(both.within);
    EXPECT_DOUBLE_EQ(both.ratio, 1.0);
    const auto only_model = judge_oracle_figure({"x", {0}, {5}});
    EXPECT_FALSE(only_model.within);
    EXPECT_TRUE(std::isinf(only_model.ratio));
    EXPECT_FALSE(judge_oracle_figure({"x", {12, 56}, {0}}).within);
}

TEST(OracleCompareTable, MinMedianMaxRowsForBothColumns) {
    const CompareTable t = oracle_compare_table({{"a", {1, 5, 3}, {2, 2}}, {"b", {7}, {9}}});
    ASSERT_EQ(t.rows.size(), 6u);  // 3 statistics x 2 figures, statistic-major
    EXPECT_EQ(t.rows[0].stat, "Min");
    EXPECT_EQ(t.rows[2].stat, "Median");
    EXPECT_EQ(t.rows[2].operation, "a");
    EXPECT_DOUBLE_EQ(t.rows[2].cells[0].value, 3);
    EXPECT_DOUBLE_EQ(t.rows[2].cells[1].value, 2);
    EXPECT_EQ(t.rows[4].stat, "Max");
    EXPECT_DOUBLE_EQ(t.rows[4].cells[0].value, 5);
    const std::string text = render_compare_table(t);
    EXPECT_NE(text.find("oracle"), std::string::npos);
    EXPECT_EQ(text.find('%'), std::string::npos);  // no % change column
}

TEST(OracleVerdicts, RenderMarksMisses) {
    const std::string s = render_oracle_verdicts({judge_oracle_figure({"hits", {100}, {150}}),
                                                  judge_oracle_figure({"miss", {100}, {300}}),
                                                  judge_oracle_figure({"none", {0}, {0}})});
    EXPECT_NE(s.find("1.50"), std::string::npos) << s;
    EXPECT_NE(s.find("NO"), std::string::npos) << s;
    EXPECT_NE(s.find("yes (both 0)"), std::string::npos) << s;
}

}  // namespace
}  // namespace numasim
