// Which test decides the `*` markers on the Amean/Hmean row of an mmtests compare table.
#pragma once

namespace numasim {

enum class SignificanceRule {
    // mmtests before commit 8637a174 (2018-10-04): no markers at all.
    None,
    // 2018-10-04 .. 2024-11-28 (Compare.pm _significanceTest): Welch-style t statistic with
    // df = n_base + n_new - 2, two-sided p below the significance level (default 0.10).
    TTest,
    // Since commit 8cd087ae (2024-11-28, "Compare: Use CI interval for significance testing"):
    // non-overlap of mean +- qnorm(0.975) * stddev intervals.
    CiInterval,
};

// mmtests' default _SignificanceLevel for the t-test era.
inline constexpr double kMmtestsSignificanceLevel = 0.10;
// qnorm(1 - 0.05/2): mmtests' CI half-width multiplier on the sample stddev (alpha = 0.05).
inline constexpr double kMmtestsCiZ = 1.959963984540054;

// The summary of one column that the tests need: the comparison mean, its stddev, sample count.
struct MeanEstimate {
    double mean = 0;
    double stddev = 0;
    int n = 0;
};

// (m_base - m_new) / (hw_base + hw_new) with hw = kMmtestsCiZ * stddev; the raw difference
// when both half-widths are 0.
double ci_diff(const MeanEstimate& base, const MeanEstimate& cand);

// Two-sided p-value of the t-test era; 0 (certain) / 1 (none) when both stddevs are 0 and the
// means differ / are equal; NaN when it cannot be computed (n too small, NaN stddev).
double ttest_p_value(const MeanEstimate& base, const MeanEstimate& cand);

bool is_significant(SignificanceRule rule, const MeanEstimate& base, const MeanEstimate& cand,
                    double level = kMmtestsSignificanceLevel);

}  // namespace numasim
