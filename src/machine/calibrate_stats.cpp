#include "machine/calibrate_stats.h"

#include <algorithm>
#include <stdexcept>

#include "sim/rng.h"

namespace numasim {

std::vector<uint32_t> sattolo_cycle(uint32_t n, uint64_t seed) {
    std::vector<uint32_t> next(n);
    for (uint32_t i = 0; i < n; ++i)
        next[i] = i;
    Rng rng(seed, "calibrate.chase");
    // Sattolo: swap each position with a strictly earlier one, which yields one n-cycle (the
    // Fisher-Yates shuffle, which also allows j == i, yields any permutation).
    for (uint32_t i = n; i-- > 1;) {
        const uint32_t j = static_cast<uint32_t>(rng.below(i));
        std::swap(next[i], next[j]);
    }
    return next;
}

RunStats run_stats(std::vector<double> values) {
    if (values.empty()) throw std::logic_error("run_stats: no values");
    std::sort(values.begin(), values.end());
    RunStats s;
    s.runs = static_cast<int>(values.size());
    s.min = values.front();
    s.max = values.back();
    const size_t mid = values.size() / 2;
    s.median = values.size() % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
    return s;
}

}  // namespace numasim
