// Access sampling as AMD IBS (or Intel PEBS) delivers it, drawn from the cost model's rates: how
// many sampled accesses a step of user work yields, and which page each one hit. Nothing here
// walks accesses: a step's samples follow from its count of last-level-cache misses, and each
// sample's page from the step's streams (their shares of the bytes and patterns), so the cost
// grows with the samples, never with the accesses (docs/placement-policies.md, "ibs").
#pragma once

#include <cstdint>
#include <optional>

#include "numab/placement_policy.h"

namespace numasim {

class Rng;

// IBS op sampling with IbsOpL3MissOnly (Zen 4, which the posting enables when the CPU has it):
// the counter tags one op every `period` dispatched ops, and a tagged op is reported only if it
// missed the L3. A step's L3 misses are its DRAM accesses, spread over its ops as the cost model
// spreads them, so the step yields llc_misses / period samples. `carry` is the task's fraction
// of a sample left from its earlier steps (the counter keeps counting across them); it keeps
// what is below one. Returns the whole samples.
uint64_t ibs_samples(double& carry, double llc_misses, unsigned period);

// The page one sampled access hit: a stream drawn by its share of the step's bytes, then a page
// of its region by its pattern: a sweep's page among those its cursor passed in the step (the
// pages just before `sweep_pos`), a random stream's uniformly over the pages its accesses may
// start in, a hot set's in the hot pages with its hot share and in the others otherwise.
struct SampledPage {
    size_t stream;
    uint64_t page;  // index within the region
};
std::optional<SampledPage> ibs_sample_page(const UserStep& step, Rng& rng);

}  // namespace numasim
