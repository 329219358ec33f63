#include "report/significance.h"

#include <gtest/gtest.h>

#include <cmath>

namespace numasim {
namespace {

TEST(Significance, CiIntervalOverlap) {
    // hw = 1.959964 * 1 + 1.959964 * 0.5 = 2.939946; diff -3 -> |cidiff| = 1.0204 > 1.
    EXPECT_NEAR(ci_diff({10, 1, 7}, {13, 0.5, 7}), -3 / 2.939945976810081, 1e-12);
    EXPECT_TRUE(is_significant(SignificanceRule::CiInterval, {10, 1, 7}, {13, 0.5, 7}));
    // diff 2.9 -> 0.9864 < 1: the intervals overlap.
    EXPECT_FALSE(is_significant(SignificanceRule::CiInterval, {10, 1, 7}, {12.9, 0.5, 7}));
}

TEST(Significance, CiBothStddevsZeroUsesRawDifference) {
    EXPECT_DOUBLE_EQ(ci_diff({10, 0, 3}, {11.5, 0, 3}), -1.5);
    EXPECT_TRUE(is_significant(SignificanceRule::CiInterval, {10, 0, 3}, {11.5, 0, 3}));
    // Exactly one unit is not "more than one".
    EXPECT_FALSE(is_significant(SignificanceRule::CiInterval, {10, 0, 3}, {11, 0, 3}));
    EXPECT_FALSE(is_significant(SignificanceRule::CiInterval, {10, 0, 3}, {10.5, 0, 3}));
}

TEST(Significance, CiNanStddevIsNotSignificant) {
    EXPECT_FALSE(is_significant(SignificanceRule::CiInterval, {10, NAN, 1}, {20, NAN, 1}));
}

TEST(Significance, TTest) {
    // t = 1.2 / sqrt(1/5 + 1/5) = 1.897367, df = 8 -> p = 0.0943 < 0.10.
    EXPECT_NEAR(ttest_p_value({10, 1, 5}, {11.2, 1, 5}), 0.09434977285408809, 1e-8);
    EXPECT_TRUE(is_significant(SignificanceRule::TTest, {10, 1, 5}, {11.2, 1, 5}));
    // t = 1.0 / 0.632456 = 1.581139 -> p = 0.1525 > 0.10.
    EXPECT_FALSE(is_significant(SignificanceRule::TTest, {10, 1, 5}, {11.0, 1, 5}));
    // A stricter level turns the first case off.
    EXPECT_FALSE(is_significant(SignificanceRule::TTest, {10, 1, 5}, {11.2, 1, 5}, 0.05));
}

TEST(Significance, TTestBothStddevsZero) {
    EXPECT_TRUE(is_significant(SignificanceRule::TTest, {10, 0, 3}, {10.01, 0, 3}));
    EXPECT_FALSE(is_significant(SignificanceRule::TTest, {10, 0, 3}, {10, 0, 3}));
}

TEST(Significance, TTestSingleSampleIsNotSignificant) {
    EXPECT_TRUE(std::isnan(ttest_p_value({10, NAN, 1}, {20, NAN, 1})));
    EXPECT_FALSE(is_significant(SignificanceRule::TTest, {10, NAN, 1}, {20, NAN, 1}));
}

TEST(Significance, NoneNeverMarks) {
    EXPECT_FALSE(is_significant(SignificanceRule::None, {10, 0, 3}, {1000, 0, 3}));
}

}  // namespace
}  // namespace numasim
