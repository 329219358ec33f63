#include "workload/kv_keys.h"

#include <cmath>

namespace numasim {

namespace {

// Terms summed exactly before the Euler-Maclaurin tail takes over: its error is then below
// s (s+1)(s+2) / 720 K^(s+3), under 1e-12 of a sum that is at least 1.
constexpr uint64_t kExactTerms = 4096;

// The share of ranks [0, r) (0-based): H(r, s) / H(n, s).
double rank_cdf(uint64_t n, double s, double r) {
    if (r <= 0) return 0;
    if (r >= static_cast<double>(n)) return 1;
    const auto whole = static_cast<uint64_t>(r);
    const double below = generalized_harmonic(whole, s);
    const double part =
        (r - static_cast<double>(whole)) * std::pow(static_cast<double>(whole + 1), -s);
    return (below + part) / generalized_harmonic(n, s);
}

}  // namespace

double generalized_harmonic(uint64_t n, double s) {
    double sum = 0;
    const uint64_t k = n < kExactTerms ? n : kExactTerms;
    for (uint64_t i = 1; i <= k; ++i)
        sum += std::pow(static_cast<double>(i), -s);
    if (n == k) return sum;
    // Euler-Maclaurin for sum_{i=K+1..n} i^-s = integral + (f(n) - f(K)) / 2 + (f'(n) - f'(K))
    // / 12.
    const double a = static_cast<double>(k), b = static_cast<double>(n);
    const double integral = std::abs(s - 1) < 1e-12
                                ? std::log(b / a)
                                : (std::pow(b, 1 - s) - std::pow(a, 1 - s)) / (1 - s);
    const double ends = (std::pow(b, -s) - std::pow(a, -s)) / 2;
    const double slopes = -s * (std::pow(b, -s - 1) - std::pow(a, -s - 1)) / 12;
    return sum + integral + ends + slopes;
}

double zipf_key_cdf(uint64_t n, double s, uint64_t offset, double x) {
    if (x <= 0) return 0;
    const double nd = static_cast<double>(n);
    if (x >= nd) return 1;
    const double off = static_cast<double>(offset % n);
    // Keys [0, x) are ranks [n - off, n - off + x) taken mod n.
    const double start = off > 0 ? nd - off : 0;
    const double end = start + x;
    if (end <= nd) return rank_cdf(n, s, end) - rank_cdf(n, s, start);
    return (1 - rank_cdf(n, s, start)) + rank_cdf(n, s, end - nd);
}

}  // namespace numasim
