#include "workload/pmbench_pattern.h"

#include "workload/rate_ranges.h"

#include <algorithm>
#include <cmath>

namespace numasim {

namespace {

// pmbench's normal_ih sums this many uniform draws (ORDER in pattern.c).
constexpr int kIrwinHallOrder = 12;

// Standard normal CDF.
double phi(double z) {
    return 0.5 * std::erfc(-z / std::sqrt(2.0));
}

// normal: page = (size_t)(y + n/2) for y ~ N(0, stdev^2) with n/2 an integer division; a draw
// that lands outside [0, n) is replaced by page n/2. The conversion truncates toward zero, so
// page 0 takes y + n/2 in (-1, 1) and page k > 0 takes [k, k + 1).
double normal_cdf(uint64_t n, double shape, uint64_t p) {
    if (p == 0) return 0;
    const double sd = std::floor(shape);  // (int)param1
    const double c = static_cast<double>(n / 2);
    const double below = phi((-1 - c) / sd);
    const double in_set = phi((static_cast<double>(n) - c) / sd) - below;
    const double cont = phi((static_cast<double>(p) - c) / sd) - below;
    // The draws outside the set, all on page n/2.
    const double lump = p > n / 2 ? 1 - in_set : 0;
    return std::min(1.0, cont + lump);
}

// normal_ih: with n_user = n - 1, k = (n_user + 5) / 12 and N = 12k, page = floor(S / 12) +
// shift for S a sum of 12 uniform integers in [0, N), shift = floor((n_user - N) / 2) (what the
// source's unsigned arithmetic gives, negative included), drawn again while the page is outside
// [0, n_user]. S / 12 is taken as continuous: k times an Irwin-Hall variable of order 12.
double normal_ih_cdf(uint64_t n, uint64_t p) {
    const int64_t n_user = static_cast<int64_t>(n) - 1;
    const int64_t k = (n_user + kIrwinHallOrder / 2 - 1) / kIrwinHallOrder;
    const int64_t d = n_user - kIrwinHallOrder * k;
    const int64_t shift = d >= 0 ? d / 2 : -((-d + 1) / 2);
    const double kd = static_cast<double>(k);
    auto below = [&](int64_t page) {  // P(floor(S / 12) + shift < page), before the retry
        return irwin_hall12_cdf(static_cast<double>(page - shift) / kd);
    };
    const double lo = below(0), hi = below(static_cast<int64_t>(n));
    return (below(static_cast<int64_t>(p)) - lo) / (hi - lo);
}

// pareto/zipf: value = (1 - u (1 - n^-a))^(-1/a) on [1, n], page = (size_t)value - 1, so page
// < p when value < p + 1: the bounded Pareto CDF at p + 1.
double pareto_cdf(uint64_t n, double a, uint64_t p) {
    const double h = static_cast<double>(n);
    const double v = std::min(h, static_cast<double>(p) + 1);
    return (1 - std::pow(v, -a)) / (1 - std::pow(h, -a));
}

}  // namespace

double irwin_hall12_cdf(double x) {
    constexpr int m = kIrwinHallOrder;
    if (x <= 0) return 0;
    if (x >= m) return 1;
    // Symmetric about m / 2: sum from the nearer end, where the alternating terms are few.
    if (x > m / 2.0) return 1 - irwin_hall12_cdf(m - x);
    double sum = 0, binom = 1, fact = 1;
    for (int i = 2; i <= m; ++i)
        fact *= i;
    for (int j = 0; j <= static_cast<int>(std::floor(x)); ++j) {
        sum += (j % 2 ? -1 : 1) * binom * std::pow(x - j, m);
        binom = binom * (m - j) / (j + 1);
    }
    return sum / fact;
}

double pmbench_page_cdf(PmbenchPattern pattern, uint64_t n, double shape, uint64_t p) {
    if (p >= n) return 1;
    switch (pattern) {
        case PmbenchPattern::Linear:
        case PmbenchPattern::Uniform:
            return static_cast<double>(p) / static_cast<double>(n);
        case PmbenchPattern::Normal:
            return normal_cdf(n, shape, p);
        case PmbenchPattern::NormalIh:
            return normal_ih_cdf(n, p);
        case PmbenchPattern::Pareto:
        case PmbenchPattern::Zipf:
            return pareto_cdf(n, shape, p);
    }
    return 1;
}

std::vector<PmbenchRange> pmbench_ranges(PmbenchPattern pattern, uint64_t n, double shape) {
    if (pattern == PmbenchPattern::Linear || pattern == PmbenchPattern::Uniform)
        return {{0, n, 1.0}};
    return rate_ranges(n, [&](uint64_t p) { return pmbench_page_cdf(pattern, n, shape, p); });
}

uint64_t pmbench_warmup_accesses(PmbenchPattern pattern, uint64_t n) {
    switch (pattern) {
        case PmbenchPattern::Uniform:
            return 4 * n;
        case PmbenchPattern::Pareto:
        case PmbenchPattern::Zipf:
            return 8 * n;
        case PmbenchPattern::NormalIh:
            return n - 1;
        case PmbenchPattern::Linear:
        case PmbenchPattern::Normal:
            return n;
    }
    return n;
}

double pmbench_read_fraction(int ratio) {
    return static_cast<double>(ratio * 1024 / 100) / 1024.0;
}

}  // namespace numasim
