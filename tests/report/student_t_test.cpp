#include "report/student_t.h"

#include <gtest/gtest.h>

#include <cmath>

namespace numasim {
namespace {

TEST(StudentT, TwoSidedKnownValues) {
    // Reference values: R 2*pt(2, 10, lower.tail=FALSE) = 0.07338803.
    EXPECT_NEAR(student_t_two_sided_p(2.0, 10), 0.0733880347834844, 1e-9);
    // The 97.5% quantile for df=10 is 2.228138852 -> p = 0.05.
    EXPECT_NEAR(student_t_two_sided_p(2.228138852, 10), 0.05, 1e-8);
    // df = 1 is the Cauchy distribution: P(|T| > 1) = 1/2.
    EXPECT_NEAR(student_t_two_sided_p(1.0, 1), 0.5, 1e-12);
    // 1.2/sqrt(0.4) = 1.897366596 with df 8 -> 0.0943498 (numerical integration of the pdf).
    EXPECT_NEAR(student_t_two_sided_p(1.8973665961010275, 8), 0.09434977285408809, 1e-8);
    EXPECT_DOUBLE_EQ(student_t_two_sided_p(0.0, 5), 1.0);
    EXPECT_DOUBLE_EQ(student_t_two_sided_p(INFINITY, 5), 0.0);
    // Symmetric in t.
    EXPECT_NEAR(student_t_two_sided_p(-2.0, 10), student_t_two_sided_p(2.0, 10), 1e-15);
}

TEST(StudentT, Cdf) {
    EXPECT_NEAR(student_t_cdf(0.0, 7), 0.5, 1e-15);
    EXPECT_NEAR(student_t_cdf(-1.0, 1), 0.25, 1e-12);  // Cauchy: 1/2 + atan(-1)/pi
    EXPECT_NEAR(student_t_cdf(2.0, 10), 1 - 0.0733880347834844 / 2, 1e-9);
    // Large df approaches the normal distribution: Phi(1.959963985) = 0.975.
    EXPECT_NEAR(student_t_cdf(1.959963984540054, 1e7), 0.975, 1e-6);
}

TEST(StudentT, IncompleteBeta) {
    // I_x(1,1) = x; I_x(2,1) = x^2; I_x(a,b) = 1 - I_{1-x}(b,a).
    EXPECT_NEAR(regularized_incomplete_beta(0.3, 1, 1), 0.3, 1e-14);
    EXPECT_NEAR(regularized_incomplete_beta(0.3, 2, 1), 0.09, 1e-14);
    EXPECT_NEAR(regularized_incomplete_beta(0.7, 2.5, 4),
                1 - regularized_incomplete_beta(0.3, 4, 2.5), 1e-13);
    EXPECT_TRUE(std::isnan(regularized_incomplete_beta(1.5, 1, 1)));
    EXPECT_TRUE(std::isnan(student_t_two_sided_p(1.0, 0)));
}

}  // namespace
}  // namespace numasim
