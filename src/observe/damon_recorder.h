// `numasim run --damon-record FILE`: what DAMON's virtual-address monitoring (mm/damon/vaddr.c)
// would have recorded of the simulated processes, written as `damo record --output_type json`
// writes it, so that `numasim import damon` reads it back (docs/replay.md, "Recording a
// simulated run").
//
// DAMON's default attributes (damon_new_ctx() in mm/damon/core.c; damo's defaults are the same):
// a sampling interval of 5 ms, an aggregation interval of 100 ms, 10 to 1000 regions per target.
// In each sampling interval DAMON clears the Accessed bit of one page of each region and looks at
// it again at the next sample; nr_accesses counts the sampling intervals of an aggregation window
// in which the bit was found set, so it is at most aggr / sample = 20.
//
// The rule here. The recorder never looks at single accesses: the cost model's streams note how
// many accesses each page of a region is expected to have had (Region::accesses, the same
// figures reclaim ages pages by). Between two looks at the system, `lambda`, the expected
// accesses of a page in one sampling interval, is taken as constant, and the accesses of a page
// as a Poisson process, so that the sampled page's bit is set with probability
// 1 - exp(-lambda). A window's nr_accesses is the sum of that probability over its sampling
// intervals, rounded to the nearest integer: the expected count, without DAMON's sampling noise.
// The regions are the pieces of the address space between the edges of the model's regions (and
// of their hot parts), cut in halves until there are min_nr_regions, joined in pairs while there
// are more than max_nr_regions; a region's age counts the windows its nr_accesses stayed within
// max_nr_accesses / 10 of the window before, as damon_merge_regions_of() ages regions.
#pragma once

#include <cstdint>
#include <cstdio>
#include <vector>

#include "engine/sampler.h"
#include "sim/clock.h"

namespace numasim {

struct Mm;

// DAMON's defaults (mm/damon/core.c, damon_new_ctx(); damo record's --monitoring_intervals and
// --monitoring_nr_regions_range default to the same figures, set_monitoring_attrs_argparser()).
inline constexpr Nanos kDamonSampleInterval = 5 * NSEC_PER_MSEC;
inline constexpr Nanos kDamonAggrInterval = 100 * NSEC_PER_MSEC;
inline constexpr size_t kDamonMinNrRegions = 10;
inline constexpr size_t kDamonMaxNrRegions = 1000;
// nr_accesses of a page found accessed at every sample: aggr / sample.
inline constexpr int kDamonMaxNrAccesses =
    static_cast<int>(kDamonAggrInterval / kDamonSampleInterval);
// damon_merge_regions_of() resets a region's age when its nr_accesses moved by more than the
// merge threshold, which kdamond_fn() sets to max_nr_accesses / 10.
inline constexpr int kDamonAgeThreshold = kDamonMaxNrAccesses / 10;

// The chance that DAMON finds the sampled page's Accessed bit set after one sampling interval in
// which each page of its region is expected to be accessed `lambda` times (Poisson).
double damon_sample_hit(double lambda);
// A window's nr_accesses from the sum of its samples' hit chances: rounded, at most the maximum.
int damon_nr_accesses(double expected_hits);
// The age of a region whose nr_accesses went from `prev` (-1: the region is new) to `now`.
uint32_t damon_next_age(int prev, int now, uint32_t prev_age);

// A piece of a target's address space with the expected accesses of each of its pages since the
// recorder last looked.
struct DamonPiece {
    uint64_t start = 0, end = 0;  // bytes, page aligned
    double lambda = 0;            // expected accesses per page over the last look's span
    bool operator==(const DamonPiece&) const = default;
};
// Cuts pieces as DAMON keeps regions between its bounds: the largest cut in two (at a page
// edge) while fewer than `min_nr` remain and one is more than a page; neighbours joined in
// pairs, from the start, while more than `max_nr` remain (a joined piece's lambda is weighted by
// size: the chance that the sampled page is one of either part).
std::vector<DamonPiece> damon_bound_regions(std::vector<DamonPiece> pieces, uint64_t page_bytes,
                                            size_t min_nr, size_t max_nr);

class DamonRecorder : public Sampler {
  public:
    DamonRecorder();
    ~DamonRecorder() override;
    Nanos interval() const override { return kDamonSampleInterval; }
    void sample(const System& sys) override;
    // The record file: one record per process that was monitored for a whole window.
    void write(std::FILE* out) const;

  private:
    struct Target;
    Target& target_of(const System& sys, size_t i);
    std::vector<Target> targets_;
    Nanos last_ = 0;
};

}  // namespace numasim
