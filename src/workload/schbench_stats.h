// schbench's latency statistics (schbench.c, github.com/masoncl/schbench at 24e32b8): the
// histogram it takes from fio ("mr axboe's magic latency histogram": 19 groups of 256 buckets,
// exact below 512, then 8 significant bits), its percentiles and the block it prints for each
// metric. The workload model records into it what the real program would record, one sample per
// wakeup, request or second, and prints it in the program's own format.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace numasim {

inline constexpr int SCHBENCH_PLAT_BITS = 8;  // PLAT_BITS
inline constexpr uint32_t SCHBENCH_PLAT_VAL = 1u << SCHBENCH_PLAT_BITS;
inline constexpr uint32_t SCHBENCH_PLAT_NR = 19 * SCHBENCH_PLAT_VAL;  // PLAT_GROUP_NR x PLAT_VAL

// plist[]: the percentiles schbench computes. Latencies print the 50th to the 99.9th
// (PLIST_FOR_LAT), requests per second the 20th to the 90th (PLIST_FOR_RPS).
inline constexpr std::array<double, 5> SCHBENCH_PLIST = {20.0, 50.0, 90.0, 99.0, 99.9};

// The bucket of value v (plat_val_to_idx), and the value a bucket stands for (plat_idx_to_val:
// the middle of its range above 511).
uint32_t schbench_plat_val_to_idx(uint32_t v);
uint32_t schbench_plat_idx_to_val(uint32_t idx);

struct SchbenchPercentile {
    double p = 0;          // e.g. 99.0
    uint32_t value = 0;    // the bucket value at that percentile
    uint64_t samples = 0;  // samples between the previous percentile and this one
};

// struct stats: one histogram with its sample count, min and max.
class SchbenchStats {
  public:
    SchbenchStats() : plat_(SCHBENCH_PLAT_NR, 0) {}
    void add(uint32_t v);  // add_lat()
    uint64_t nr_samples() const { return nr_samples_; }
    uint32_t min() const { return min_; }
    uint32_t max() const { return max_; }
    // calc_percentiles(): every entry of SCHBENCH_PLIST.
    std::vector<SchbenchPercentile> percentiles() const;
    // show_latencies(): the header, the percentiles of `mask` (bit i: SCHBENCH_PLIST[i]) with
    // `star` marked, and the min/max line.
    std::string show(const std::string& label, const std::string& units, uint64_t runtime_s,
                     unsigned mask, unsigned star) const;

  private:
    std::vector<uint32_t> plat_;
    uint64_t nr_samples_ = 0;
    uint32_t min_ = 0, max_ = 0;
};

// The masks of schbench.c: PLIST_FOR_LAT, PLIST_FOR_RPS and the starred entries.
inline constexpr unsigned SCHBENCH_PLIST_20 = 1u << 0, SCHBENCH_PLIST_50 = 1u << 1,
                          SCHBENCH_PLIST_90 = 1u << 2, SCHBENCH_PLIST_99 = 1u << 3,
                          SCHBENCH_PLIST_999 = 1u << 4;
inline constexpr unsigned SCHBENCH_PLIST_FOR_LAT =
    SCHBENCH_PLIST_50 | SCHBENCH_PLIST_90 | SCHBENCH_PLIST_99 | SCHBENCH_PLIST_999;
inline constexpr unsigned SCHBENCH_PLIST_FOR_RPS =
    SCHBENCH_PLIST_20 | SCHBENCH_PLIST_50 | SCHBENCH_PLIST_90;

}  // namespace numasim
