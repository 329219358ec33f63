// Log2 histograms side by side as inline SVG, for the HTML report's latency section
// (docs/latency.md): one group of bars per bucket, one bar per series (a variant), each bar the
// bucket's share of that series' events, so that variants with different event counts compare.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace numasim {

struct HistogramSeries {
    std::string name;
    std::vector<uint64_t> counts;  // one per bucket
};

// `buckets` labels the groups ("0-1", "2-3", ...); every series has one count per bucket.
std::string svg_histograms(const std::string& title, const std::string& unit,
                           const std::vector<std::string>& buckets,
                           const std::vector<HistogramSeries>& series);

}  // namespace numasim
