// Hand-computed expectations for the mmtests statistics (formulas in docs/reports.md).
#include "report/stats.h"

#include <gtest/gtest.h>

#include <cmath>

namespace numasim {
namespace {

// Samples {3,1,4,1,5,9,2}: sum 25, n 7, mean 25/7 = 3.571428571; sum x^2 = 137,
// sum (x-m)^2 = 137 - 625/7 = 47.714285714, / 6 = 7.952380952, sqrt = 2.819996623.
const std::vector<double> kPi = {3, 1, 4, 1, 5, 9, 2};

TEST(Stats, SortBestFirst) {
    EXPECT_EQ(sort_best_first(kPi, Better::Lower), (std::vector<double>{1, 1, 2, 3, 4, 5, 9}));
    EXPECT_EQ(sort_best_first(kPi, Better::Higher), (std::vector<double>{9, 5, 4, 3, 2, 1, 1}));
}

TEST(Stats, ArithmeticMeanAndStddev) {
    EXPECT_DOUBLE_EQ(amean(kPi), 25.0 / 7.0);
    EXPECT_NEAR(stddev_amean(kPi), 2.819996622760558, 1e-12);
    // CoeffVar = 2.819996623 * 100 / 3.571428571 = 78.959905437
    EXPECT_NEAR(coeffvar(stddev_amean(kPi), amean(kPi)), 78.95990543729562, 1e-10);
}

TEST(Stats, StddevNeedsTwoSamples) {
    EXPECT_TRUE(std::isnan(stddev_amean({5.0})));
    EXPECT_TRUE(std::isnan(stddev_amean({})));
    EXPECT_DOUBLE_EQ(stddev_amean({4.0, 4.0}), 0.0);
}

TEST(Stats, HarmonicMean) {
    // {1,2,4}: H = 3 / (1 + 1/2 + 1/4) = 3 / 1.75 = 1.714285714.
    EXPECT_DOUBLE_EQ(hmean({1, 2, 4}), 3.0 / 1.75);
    // 1/H = 0.583333; (1/x - 1/H) = 0.416667, -0.083333, -0.333333; squares sum 0.291667;
    // * H^4 (8.635568513) / 3 = 0.839650146; sqrt = 0.916324258.
    EXPECT_NEAR(stddev_hmean({1, 2, 4}), 0.9163242579854549, 1e-12);
    EXPECT_TRUE(std::isnan(hmean({1, 0, 4})));
    EXPECT_TRUE(std::isnan(hmean({1, -2})));
    EXPECT_TRUE(std::isnan(stddev_hmean({1, 0})));
    // A single sample has no spread around its own harmonic mean.
    EXPECT_DOUBLE_EQ(stddev_hmean({7}), 0.0);
}

TEST(Stats, CoeffVarEdgeCases) {
    EXPECT_DOUBLE_EQ(coeffvar(3.0, 0.0), 0.0);
    EXPECT_DOUBLE_EQ(coeffvar(std::nan(""), 10.0), 0.0);
    EXPECT_DOUBLE_EQ(coeffvar(1.0, 4.0), 25.0);
}

TEST(Stats, MinMaxAreNumeric) {
    EXPECT_DOUBLE_EQ(min_of(kPi), 1);
    EXPECT_DOUBLE_EQ(max_of(kPi), 9);
    // For higher-is-better, Min is still the numeric minimum.
    Summary s = summarise(kPi, Better::Higher);
    EXPECT_DOUBLE_EQ(s.min, 1);
    EXPECT_DOUBLE_EQ(s.max, 9);
}

TEST(Stats, BestCountsForSevenIterations) {
    // mmtests' 7 autonumabench iterations: int(7*50/100) = 3, int(6.65) = 6, int(6.93) = 6.
    EXPECT_EQ(best_count(7, 50), 3);
    EXPECT_EQ(best_count(7, 95), 6);
    EXPECT_EQ(best_count(7, 99), 6);
    EXPECT_EQ(best_count(1, 50), 1);
    EXPECT_EQ(best_count(1, 95), 1);
}

TEST(Stats, BestMeans) {
    // Lower: best 3 = {1,1,2} -> 4/3; best 6 = {1,1,2,3,4,5} -> 16/6.
    EXPECT_DOUBLE_EQ(best_mean(kPi, Better::Lower, 50), 4.0 / 3.0);
    EXPECT_DOUBLE_EQ(best_mean(kPi, Better::Lower, 95), 16.0 / 6.0);
    EXPECT_DOUBLE_EQ(best_mean(kPi, Better::Lower, 99), 16.0 / 6.0);
    // Higher uses harmonic means: best 3 = {9,5,4} -> 3 / (1/9+1/5+1/4) = 5.346534653;
    // best 6 = {9,5,4,3,2,1} -> 6 / 2.394444 = 2.505800464.
    EXPECT_NEAR(best_mean(kPi, Better::Higher, 50), 5.346534653465347, 1e-12);
    EXPECT_NEAR(best_mean(kPi, Better::Higher, 95), 2.505800464037123, 1e-12);
}

TEST(Stats, Pdiff) {
    EXPECT_DOUBLE_EQ(pdiff(110, 100), 10.0);
    EXPECT_DOUBLE_EQ(pdiff(90, 100), -10.0);
    EXPECT_DOUBLE_EQ(pdiff(100, 100), 0.0);
    EXPECT_DOUBLE_EQ(pdiff(0, 100), 0.0);  // new == 0 -> 0
    EXPECT_DOUBLE_EQ(pdiff(5, 0), 100.0);  // base == 0 -> 100
    EXPECT_DOUBLE_EQ(pdiff(0, 0), 0.0);
    EXPECT_DOUBLE_EQ(pdiff(5, std::nan("")), 100.0);
}

TEST(Stats, Pndiff) {
    EXPECT_DOUBLE_EQ(pndiff(90, 100), 10.0);
    EXPECT_DOUBLE_EQ(pndiff(110, 100), -10.0);
    EXPECT_DOUBLE_EQ(pndiff(100, 100), 0.0);
    EXPECT_DOUBLE_EQ(pndiff(0, 100), 100.0);  // new == 0 -> 100
    EXPECT_DOUBLE_EQ(pndiff(5, 0), -99.0);    // base == 0 -> -99
    EXPECT_DOUBLE_EQ(pndiff(0, 0), 0.0);
    // Mel Gorman's NUMA01 row: Amean 399.50 -> 52.05 = 100 - 5205/399.5 = 86.971214.
    EXPECT_NEAR(pndiff(52.05, 399.50), 86.97121401752190, 1e-10);
}

TEST(Stats, ComparePctSigns) {
    // Lower is better: a smaller time is a positive (improving) change.
    EXPECT_GT(compare_pct(StatKind::Mean, Better::Lower, 90, 100), 0);
    EXPECT_LT(compare_pct(StatKind::Mean, Better::Lower, 110, 100), 0);
    // Higher is better: a larger throughput is positive.
    EXPECT_GT(compare_pct(StatKind::Mean, Better::Higher, 110, 100), 0);
    EXPECT_LT(compare_pct(StatKind::Mean, Better::Higher, 90, 100), 0);
    EXPECT_DOUBLE_EQ(compare_pct(StatKind::Max, Better::Higher, 110, 100), 10.0);
    EXPECT_DOUBLE_EQ(compare_pct(StatKind::BestMean, Better::Lower, 110, 100), -10.0);
    // Spread is always better when smaller, whatever the metric direction.
    EXPECT_DOUBLE_EQ(compare_pct(StatKind::Stddev, Better::Higher, 2, 1), -100.0);
    EXPECT_DOUBLE_EQ(compare_pct(StatKind::CoeffVar, Better::Higher, 1, 2), 50.0);
    EXPECT_DOUBLE_EQ(compare_pct(StatKind::Stddev, Better::Lower, 2, 1), -100.0);
}

TEST(Stats, SummariseChoosesMeanKind) {
    Summary lower = summarise({1, 2, 4}, Better::Lower);
    EXPECT_DOUBLE_EQ(lower.mean, 7.0 / 3.0);
    Summary higher = summarise({1, 2, 4}, Better::Higher);
    EXPECT_DOUBLE_EQ(higher.mean, 3.0 / 1.75);
    EXPECT_NEAR(higher.stddev, 0.9163242579854549, 1e-12);
    EXPECT_NEAR(higher.coeffvar, 53.452248382484875, 1e-10);
    EXPECT_EQ(higher.n, 3);
}

TEST(Stats, MedianIsMiddleOrMeanOfMiddleTwo) {
    EXPECT_DOUBLE_EQ(median({3, 1, 2}), 2);
    EXPECT_DOUBLE_EQ(median({4, 1, 3, 2}), 2.5);
    EXPECT_TRUE(std::isnan(median({})));
}

}  // namespace
}  // namespace numasim
