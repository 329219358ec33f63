#include "report/significance.h"

#include <cmath>
#include <limits>

#include "report/student_t.h"

namespace numasim {

double ci_diff(const MeanEstimate& base, const MeanEstimate& cand) {
    const double hw_base = kMmtestsCiZ * base.stddev;
    const double hw_cand = kMmtestsCiZ * cand.stddev;
    const double diff = base.mean - cand.mean;
    // Identical repeated samples: mmtests falls back to the raw difference so that any change
    // of more than one unit (e.g. small integer counts) still gets flagged.
    if (hw_base == 0 && hw_cand == 0) return diff;
    return diff / (hw_base + hw_cand);
}

double ttest_p_value(const MeanEstimate& base, const MeanEstimate& cand) {
    if (base.stddev == 0 && cand.stddev == 0) {
        return base.mean != cand.mean ? 0.0 : 1.0;
    }
    const double se2 = base.stddev * base.stddev / base.n + cand.stddev * cand.stddev / cand.n;
    const double df = static_cast<double>(base.n + cand.n - 2);
    if (!(se2 > 0) || !(df > 0)) return std::numeric_limits<double>::quiet_NaN();
    const double t = std::fabs(base.mean - cand.mean) / std::sqrt(se2);
    return student_t_two_sided_p(t, df);
}

bool is_significant(SignificanceRule rule, const MeanEstimate& base, const MeanEstimate& cand,
                    double level) {
    switch (rule) {
        case SignificanceRule::None:
            return false;
        case SignificanceRule::TTest:
            // NaN p (e.g. a single sample) compares false: not significant.
            return ttest_p_value(base, cand) < level;
        case SignificanceRule::CiInterval:
            return std::fabs(ci_diff(base, cand)) > 1.0;
    }
    return false;
}

}  // namespace numasim
