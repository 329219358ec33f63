// Access rates over ranges of pages from a distribution of accesses over pages. The cost model
// works on rates over page ranges, never on single accesses, so a workload whose accesses follow
// a distribution over its pages (pmbench's patterns, a key-value cache's key popularity) cuts its
// memory into ranges where the distribution says and gives each range its share of the accesses,
// spread uniformly inside it.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

namespace numasim {

struct RateRange {
    uint64_t first = 0;  // page index
    uint64_t count = 0;
    double mass = 0;  // probability that an access falls in the range
};

// The cut rule: a cut at the page where the distribution first reaches each i / kRateRangeCuts
// quantile, and every n / kRateRangeCuts pages; then each range is halved (by pages) until the
// access rates of its first and last page are within kRateRangeDensityRatio of each other, so
// that a range's pages have about the same rate (a normal's tails, a Zipf's head). A range with
// less than kRateRangeMinMass of the accesses is dropped: its pages are never touched (one access
// in 10^12, more than any simulated run makes). `cdf(p)` is P(page < p), p in [0, n], monotone.
inline constexpr int kRateRangeCuts = 32;
inline constexpr double kRateRangeDensityRatio = 2.0;
inline constexpr double kRateRangeMinMass = 1e-12;
std::vector<RateRange> rate_ranges(uint64_t n, const std::function<double(uint64_t)>& cdf);

}  // namespace numasim
