// pmbench's access patterns (pattern.c in Jisoo Yang's pmbench) as access rates over page
// ranges. pmbench draws one page number per access from a pattern module; the cost model works
// on rates over ranges of pages, never on single accesses, so each pattern's page distribution
// is turned into ranges analytically: pmbench_page_cdf() is the exact (or, for normal_ih, the
// continuous) distribution of the page numbers pmbench's generator returns, and
// pmbench_ranges() cuts the working set where that distribution says. docs/workloads/pmbench.md.
#pragma once

#include <cstdint>
#include <vector>

#include "workload/rate_ranges.h"

namespace numasim {

enum class PmbenchPattern {
    Linear,    // deterministic walk with a stride of `shape` pages, wrapping around
    Uniform,   // uniform over the set
    Normal,    // Box-Muller normal, mean set/2, stdev `shape` pages; out-of-set draws go to set/2
    NormalIh,  // Irwin-Hall sum of 12 uniforms, stdev about set/12; `shape` unused
    Pareto,    // bounded Pareto on [1, set] with alpha `shape`, page = floor(value) - 1
    Zipf,      // pmbench's "zipf" is its bounded Pareto under another name
};

using PmbenchRange = RateRange;

// P(page < p) for one access of `pattern` over a working set of n pages, p in [0, n].
double pmbench_page_cdf(PmbenchPattern pattern, uint64_t n, double shape, uint64_t p);

// The set's ranges (workload/rate_ranges.h's cut rule); Linear and Uniform are one range.
std::vector<PmbenchRange> pmbench_ranges(PmbenchPattern pattern, uint64_t n, double shape);

// Accesses of each thread's warm-up pass (the pattern's get_warmup_run()): 4n for uniform, 8n
// for pareto/zipf, n - 1 for normal_ih, n otherwise.
uint64_t pmbench_warmup_accesses(PmbenchPattern pattern, uint64_t n);

// The read share of `ratio` percent as pmbench draws it: a read when a 10-bit dice roll is
// below ratio * 1024 / 100 (integer division), so 95 gives 972/1024, not 0.95.
double pmbench_read_fraction(int ratio);

// The CDF of the Irwin-Hall distribution of order 12 (a sum of 12 uniforms on [0, 1)) at x.
double irwin_hall12_cdf(double x);

}  // namespace numasim
