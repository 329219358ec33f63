#include "policy/ibs_sampler.h"

#include <algorithm>
#include <cmath>

#include "cost/access.h"
#include "mm/vma.h"
#include "sim/rng.h"

namespace numasim {

uint64_t ibs_samples(double& carry, double llc_misses, unsigned period) {
    carry += llc_misses / static_cast<double>(period);
    const double whole = std::floor(carry);
    carry -= whole;
    return static_cast<uint64_t>(whole);
}

namespace {

uint64_t uniform_below(Rng& rng, uint64_t n) {
    return n ? rng.below(n) : 0;
}

}  // namespace

std::optional<SampledPage> ibs_sample_page(const UserStep& step, Rng& rng) {
    double total = 0;
    for (const AccessStream& s : step.streams)
        if (s.region && s.region->count) total += s.share;
    if (total <= 0) return std::nullopt;
    // The stream: the first whose cumulative share passes a uniform draw over the total.
    double u = rng.uniform() * total;
    size_t i = 0;
    for (; i + 1 < step.streams.size(); ++i) {
        const AccessStream& s = step.streams[i];
        if (!s.region || !s.region->count) continue;
        if (u < s.share) break;
        u -= s.share;
    }
    while (!step.streams[i].region || !step.streams[i].region->count)
        --i;  // the draw ran past the last stream with pages (rounding): take the one before
    const AccessStream& s = step.streams[i];
    const Region& r = *s.region;
    const uint64_t n = r.count;
    const uint64_t page_bytes = r.vma->pages.size();
    switch (s.pattern) {
        case Pattern::Sweep: {
            // The pages the cursor passed in this step end just before where it stands now.
            const double passed = step.bytes * s.share / static_cast<double>(page_bytes);
            const uint64_t window =
                std::clamp<uint64_t>(static_cast<uint64_t>(std::ceil(passed)), 1, n);
            const uint64_t end = i < step.sweep_pos.size() ? step.sweep_pos[i] % n : 0;
            const uint64_t back = 1 + uniform_below(rng, window);
            return SampledPage{i, (end + n - back % n) % n};
        }
        case Pattern::HotSet: {
            const uint64_t hot = hot_pages(s, n);
            if (hot >= n || rng.uniform() < s.hot_share)
                return SampledPage{i, uniform_below(rng, hot)};
            return SampledPage{i, hot + uniform_below(rng, n - hot)};
        }
        case Pattern::Random:
            break;
    }
    const uint64_t cells = s.chunk_bytes ? chunk_cells(s, n, page_bytes) : n;
    return SampledPage{i, uniform_below(rng, std::min(cells, n))};
}

}  // namespace numasim
