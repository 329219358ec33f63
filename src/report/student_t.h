// Student's t distribution, needed by the 2018-2024 mmtests significance test (which called
// R's pt()). Implemented from the regularized incomplete beta function.
#pragma once

namespace numasim {

// Regularized incomplete beta I_x(a, b) for a, b > 0 and 0 <= x <= 1 (NaN outside).
double regularized_incomplete_beta(double x, double a, double b);

// P(T <= t) for Student's t with `df` > 0 degrees of freedom.
double student_t_cdf(double t, double df);

// Two-sided tail probability P(|T| >= |t|) = 2 * pt(|t|, df, lower.tail = FALSE).
double student_t_two_sided_p(double t, double df);

}  // namespace numasim
