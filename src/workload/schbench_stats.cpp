#include "workload/schbench_stats.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>

namespace numasim {

uint32_t schbench_plat_val_to_idx(uint32_t v) {
    const uint32_t msb = v == 0 ? 0 : static_cast<uint32_t>(std::bit_width(v)) - 1;
    // Up to 2^(PLAT_BITS+1) - 1 every value has its own bucket.
    if (msb <= SCHBENCH_PLAT_BITS) return v;
    const uint32_t error_bits = msb - SCHBENCH_PLAT_BITS;
    const uint32_t base = (error_bits + 1) << SCHBENCH_PLAT_BITS;
    const uint32_t offset = (SCHBENCH_PLAT_VAL - 1) & (v >> error_bits);
    return std::min(base + offset, SCHBENCH_PLAT_NR - 1);
}

uint32_t schbench_plat_idx_to_val(uint32_t idx) {
    if (idx < (SCHBENCH_PLAT_VAL << 1)) return idx;
    const uint32_t error_bits = (idx >> SCHBENCH_PLAT_BITS) - 1;
    const uint32_t base = 1u << (error_bits + SCHBENCH_PLAT_BITS);
    const uint32_t k = idx % SCHBENCH_PLAT_VAL;
    // The C code adds a double to an unsigned and converts back: the fraction is dropped.
    return static_cast<uint32_t>(base + (k + 0.5) * static_cast<double>(1u << error_bits));
}

void SchbenchStats::add(uint32_t v) {
    max_ = std::max(max_, v);
    if (min_ == 0 || v < min_) min_ = v;
    ++plat_[schbench_plat_val_to_idx(v)];
    ++nr_samples_;
}

std::vector<SchbenchPercentile> SchbenchStats::percentiles() const {
    const size_t len = SCHBENCH_PLIST.size();
    std::vector<SchbenchPercentile> out(len);
    for (size_t j = 0; j < len; ++j)
        out[j].p = SCHBENCH_PLIST[j];
    // Walk the buckets; a percentile is the first bucket where the running sum reaches its
    // share of the samples (with no samples, every percentile is bucket 0).
    uint64_t sum = 0;
    size_t j = 0;
    bool last = false;
    for (uint32_t i = 0; i < SCHBENCH_PLAT_NR && !last; ++i) {
        sum += plat_[i];
        while (static_cast<double>(sum) >=
               SCHBENCH_PLIST[j] / 100.0 * static_cast<double>(nr_samples_)) {
            out[j].value = schbench_plat_idx_to_val(i);
            out[j].samples = sum;
            last = j == len - 1;
            if (last) break;
            ++j;
        }
    }
    // From running sums to the samples since the previous percentile, as schbench prints them.
    uint64_t before = 0;
    for (size_t i = 1; i < len; ++i) {
        before += out[i - 1].samples;
        out[i].samples -= before;
    }
    return out;
}

std::string SchbenchStats::show(const std::string& label, const std::string& units,
                                uint64_t runtime_s, unsigned mask, unsigned star) const {
    std::string s = fmt::format("{} percentiles ({}) runtime {} (s) ({} total samples)\n", label,
                                units, runtime_s, nr_samples_);
    const std::vector<SchbenchPercentile> ps = percentiles();
    for (size_t i = 0; i < ps.size(); ++i) {
        const unsigned bit = 1u << i;
        if (!(mask & bit)) continue;
        s += fmt::format("\t{}{:2.1f}th: {:<10} ({} samples)\n", bit == star ? "* " : "  ", ps[i].p,
                         ps[i].value, ps[i].samples);
    }
    s += fmt::format("\t  min={}, max={}\n", min_, max_);
    return s;
}

}  // namespace numasim
