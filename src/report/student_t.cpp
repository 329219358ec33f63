#include "report/student_t.h"

#include <cmath>
#include <limits>

namespace numasim {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// Continued-fraction evaluation stops once a term changes the value by less than this.
constexpr double kCfEpsilon = 1e-15;
// Guard against division by zero in the modified Lentz method.
constexpr double kCfTiny = 1e-300;
constexpr int kCfMaxIterations = 500;

// Continued fraction for I_x(a,b) (Abramowitz & Stegun 26.5.8), evaluated with the modified
// Lentz method. Converges quickly for x < (a+1)/(a+b+2).
double beta_continued_fraction(double x, double a, double b) {
    auto guard = [](double v) { return std::fabs(v) < kCfTiny ? kCfTiny : v; };
    double c = 1.0;
    double d = 1.0 / guard(1.0 - (a + b) * x / (a + 1.0));
    double f = d;
    for (int m = 1; m <= kCfMaxIterations; ++m) {
        const double dm = static_cast<double>(m);
        // Even step: d_{2m} = m (b - m) x / ((a + 2m - 1)(a + 2m)).
        double num = dm * (b - dm) * x / ((a + 2 * dm - 1) * (a + 2 * dm));
        d = 1.0 / guard(1.0 + num * d);
        c = guard(1.0 + num / c);
        f *= d * c;
        // Odd step: d_{2m+1} = -(a + m)(a + b + m) x / ((a + 2m)(a + 2m + 1)).
        num = -(a + dm) * (a + b + dm) * x / ((a + 2 * dm) * (a + 2 * dm + 1));
        d = 1.0 / guard(1.0 + num * d);
        c = guard(1.0 + num / c);
        const double delta = d * c;
        f *= delta;
        if (std::fabs(delta - 1.0) < kCfEpsilon) break;
    }
    return f;
}

}  // namespace

double regularized_incomplete_beta(double x, double a, double b) {
    if (!(a > 0) || !(b > 0) || !(x >= 0) || !(x <= 1)) return kNaN;
    if (x == 0) return 0;
    if (x == 1) return 1;
    // Prefactor x^a (1-x)^b / (a B(a,b)), computed in logs to avoid overflow.
    const double log_front =
        std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x);
    const double front = std::exp(log_front);
    // Use the symmetry I_x(a,b) = 1 - I_{1-x}(b,a) where the fraction converges faster.
    if (x < (a + 1.0) / (a + b + 2.0)) {
        return front * beta_continued_fraction(x, a, b) / a;
    }
    return 1.0 - front * beta_continued_fraction(1.0 - x, b, a) / b;
}

double student_t_two_sided_p(double t, double df) {
    if (!(df > 0) || std::isnan(t)) return kNaN;
    if (std::isinf(t)) return 0;
    // P(|T| >= t) = I_{df/(df+t^2)}(df/2, 1/2).
    return regularized_incomplete_beta(df / (df + t * t), df / 2.0, 0.5);
}

double student_t_cdf(double t, double df) {
    const double tail = student_t_two_sided_p(t, df) / 2.0;
    if (std::isnan(tail)) return kNaN;
    return t >= 0 ? 1.0 - tail : tail;
}

}  // namespace numasim
