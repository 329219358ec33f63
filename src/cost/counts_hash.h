// share_key's hash of a region's size and page counts (cost/demand_share.cpp), kept while the
// region's placement stamps hold. The threads of one process read the same regions, so on a
// machine of hundreds of CPUs the counts are hashed once per placement change, not once per CPU.
// The hash only steers the lookup of a demand to copy, which is then checked input by input: a
// stale hash could cost a derivation, never change a number; the invariant checker still takes
// it again (CostModel::find_stale_demand).
#pragma once

#include <cstdint>
#include <optional>

namespace numasim {

struct Region;

// The hash of r's count, present pages and pages on each of `nodes` nodes: the one kept at r's
// current stamps, or taken now and kept.
uint64_t region_counts_hash(const Region& r, int nodes);
// The hash kept for r at its current stamps, if there is one.
std::optional<uint64_t> kept_region_counts_hash(const Region& r);
// The hash taken from r's counts now, whatever is kept.
uint64_t fresh_region_counts_hash(const Region& r, int nodes);

}  // namespace numasim
