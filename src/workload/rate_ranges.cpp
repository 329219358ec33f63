#include "workload/rate_ranges.h"

#include <algorithm>

namespace numasim {

std::vector<RateRange> rate_ranges(uint64_t n, const std::function<double(uint64_t)>& cdf) {
    std::vector<uint64_t> cuts = {0, n};
    for (int i = 1; i < kRateRangeCuts; ++i) {
        cuts.push_back(n * static_cast<uint64_t>(i) / kRateRangeCuts);
        // The first page p with cdf(p) >= q: binary search, the CDF being monotone.
        const double q = static_cast<double>(i) / kRateRangeCuts;
        uint64_t lo = 0, hi = n;
        while (lo < hi) {
            const uint64_t mid = lo + (hi - lo) / 2;
            if (cdf(mid) >= q)
                hi = mid;
            else
                lo = mid + 1;
        }
        cuts.push_back(lo);
    }
    std::sort(cuts.begin(), cuts.end());
    cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
    auto mass = [&](uint64_t a, uint64_t b) { return cdf(b) - cdf(a); };
    std::vector<RateRange> out;
    // Each range in order, halved (by pages) while the access rate of its first and last page
    // differ by more than kRateRangeDensityRatio: the work list holds the ranges still to look
    // at, the next one last.
    std::vector<std::pair<uint64_t, uint64_t>> work;
    for (size_t i = cuts.size() - 1; i > 0; --i)
        work.push_back({cuts[i - 1], cuts[i]});
    while (!work.empty()) {
        const auto [a, b] = work.back();
        work.pop_back();
        const double m = mass(a, b);
        if (m < kRateRangeMinMass) continue;
        const double lo = mass(a, a + 1), hi = mass(b - 1, b);
        if (b - a > 1 && (std::max(lo, hi) > kRateRangeDensityRatio * std::min(lo, hi))) {
            const uint64_t mid = a + (b - a) / 2;
            work.push_back({mid, b});
            work.push_back({a, mid});
            continue;
        }
        out.push_back({a, b - a, m});
    }
    return out;
}

}  // namespace numasim
