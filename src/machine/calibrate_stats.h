// The pure parts of `numasim calibrate` (calibrate.h): the pointer-chasing order and the
// statistics of repeated runs.
#pragma once

#include <cstdint>
#include <vector>

namespace numasim {

// A random cyclic permutation of 0..n-1 made with Sattolo's algorithm: next[i] is the slot read
// after slot i, and following next from any slot visits all n slots before it returns. A chase
// along it defeats the hardware prefetchers (no stride) and never settles into a short loop
// that fits in a cache. The order comes from `seed` alone: the procedure is deterministic, the
// timings it yields are not.
std::vector<uint32_t> sattolo_cycle(uint32_t n, uint64_t seed);

// Repeated measurements of one figure: the median is the figure reported, min and max its
// spread.
struct RunStats {
    int runs = 0;
    double median = 0, min = 0, max = 0;
};

// The statistics of `values` (at least one).
RunStats run_stats(std::vector<double> values);

}  // namespace numasim
