#include "report/stats.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace numasim {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
}  // namespace

MeanKind mean_kind_for(Better better) {
    return better == Better::Lower ? MeanKind::Arithmetic : MeanKind::Harmonic;
}

std::vector<double> sort_best_first(std::vector<double> samples, Better better) {
    if (better == Better::Lower) {
        std::sort(samples.begin(), samples.end());
    } else {
        std::sort(samples.begin(), samples.end(), std::greater<>());
    }
    return samples;
}

double amean(const std::vector<double>& samples) {
    if (samples.empty()) return kNaN;
    return std::accumulate(samples.begin(), samples.end(), 0.0) /
           static_cast<double>(samples.size());
}

double hmean(const std::vector<double>& samples) {
    if (samples.empty()) return kNaN;
    double inv_sum = 0;
    for (double x : samples) {
        // A non-positive sample makes the harmonic mean meaningless; mmtests reports NaN.
        if (!(x > 0)) return kNaN;
        inv_sum += 1.0 / x;
    }
    return static_cast<double>(samples.size()) / inv_sum;
}

double stddev_amean(const std::vector<double>& samples) {
    if (samples.size() <= 1) return kNaN;
    const double m = amean(samples);
    double sq = 0;
    for (double x : samples)
        sq += (x - m) * (x - m);
    return std::sqrt(sq / static_cast<double>(samples.size() - 1));
}

double stddev_hmean(const std::vector<double>& samples) {
    const double h = hmean(samples);
    if (std::isnan(h)) return kNaN;
    // Spread of the reciprocals, mapped back to the data scale by H^2 (delta method).
    double sq = 0;
    for (double x : samples) {
        const double d = 1.0 / x - 1.0 / h;
        sq += d * d;
    }
    return std::sqrt(sq * h * h * h * h / static_cast<double>(samples.size()));
}

double coeffvar(double stddev, double mean) {
    if (mean == 0) return 0;
    if (std::isnan(stddev)) stddev = 0;
    return stddev * 100.0 / mean;
}

double min_of(const std::vector<double>& samples) {
    if (samples.empty()) return kNaN;
    return *std::min_element(samples.begin(), samples.end());
}

double max_of(const std::vector<double>& samples) {
    if (samples.empty()) return kNaN;
    return *std::max_element(samples.begin(), samples.end());
}

double median(std::vector<double> samples) {
    if (samples.empty()) return kNaN;
    std::sort(samples.begin(), samples.end());
    const size_t n = samples.size();
    return n % 2 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2;
}

int best_count(int n, int percent) {
    // Perl int() truncates; mmtests keeps at least one sample.
    return std::max(1, n * percent / 100);
}

double best_mean(const std::vector<double>& samples, Better better, int percent) {
    if (samples.empty()) return kNaN;
    std::vector<double> sorted = sort_best_first(samples, better);
    sorted.resize(static_cast<size_t>(best_count(static_cast<int>(sorted.size()), percent)));
    return mean_kind_for(better) == MeanKind::Arithmetic ? amean(sorted) : hmean(sorted);
}

double pdiff(double new_value, double base_value) {
    if (new_value == base_value || new_value == 0) return 0;
    if (base_value == 0 || std::isnan(base_value)) return 100;
    return new_value * 100.0 / base_value - 100.0;
}

double pndiff(double new_value, double base_value) {
    if (new_value == base_value) return 0;
    if (new_value == 0) return 100;
    if (base_value == 0) return -99;
    return 100.0 - new_value * 100.0 / base_value;
}

double compare_pct(StatKind kind, Better better, double new_value, double base_value) {
    if (kind == StatKind::Stddev || kind == StatKind::CoeffVar) {
        return pndiff(new_value, base_value);
    }
    return better == Better::Lower ? pndiff(new_value, base_value) : pdiff(new_value, base_value);
}

Summary summarise(const std::vector<double>& samples, Better better) {
    Summary s;
    s.n = static_cast<int>(samples.size());
    s.better = better;
    s.min = min_of(samples);
    s.max = max_of(samples);
    if (mean_kind_for(better) == MeanKind::Arithmetic) {
        s.mean = amean(samples);
        s.stddev = stddev_amean(samples);
    } else {
        s.mean = hmean(samples);
        s.stddev = stddev_hmean(samples);
    }
    s.coeffvar = coeffvar(s.stddev, s.mean);
    return s;
}

}  // namespace numasim
