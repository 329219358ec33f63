// Which streams of an access mix cover a page of a VMA, found by a binary search over the mix's
// regions rather than a pass over every stream. The migration cost asks it for each running
// mapper of every migrated page (mm/migrate_cost.cpp): pmbench's phases hold one stream per
// range of its access pattern, about 70 over one VMA, and on the pmbench-pmem-4x row that pass
// cost more than the rest of a promotion's or demotion's cost arithmetic (docs/performance.md).
//
// The index is made from a mix when first asked and kept with it (AccessMix::index): a mix's
// streams do not change while it lives (the engine makes a new one at each phase), and the index
// checks that it was made from the same span of streams.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "cost/access.h"

namespace numasim {

struct Vma;

class StreamIndex {
  public:
    // The streams of one mix over one VMA.
    struct OfVma {
        const Vma* vma = nullptr;
        // Whether the regions of these streams that have pages are disjoint: then at most one
        // stream covers a page. Otherwise covering() is not asked, and the caller passes over
        // the streams in order.
        bool disjoint = true;
        // Where each region of these streams starts (those with no pages too), ascending.
        std::vector<uint64_t> firsts;
        // The regions with pages, by first page: [span_first, span_end) and the stream's index.
        std::vector<uint64_t> span_first, span_end;
        std::vector<uint32_t> span_stream;

        // The index in the mix of the stream that covers page i (disjoint only), or -1.
        int covering(uint64_t i) const;
        // The first page after i where a region of these streams starts, or ~0 if none does.
        uint64_t next_first_after(uint64_t i) const;
    };

    explicit StreamIndex(std::span<const AccessStream> streams);
    // Whether it was made from `streams`.
    bool made_from(std::span<const AccessStream> streams) const {
        return streams.data() == data_ && streams.size() == size_;
    }
    // The streams over `v`, or nullptr if none of them is over it.
    const OfVma* over(const Vma& v) const {
        for (const OfVma& o : vmas_)
            if (o.vma == &v) return &o;
        return nullptr;
    }

  private:
    const AccessStream* data_;
    size_t size_;
    std::vector<OfVma> vmas_;  // in the order the mix first names each VMA
};

// a's index, made (and kept in a.index) if a has none from its current streams.
const StreamIndex& stream_index(const AccessMix& a);

}  // namespace numasim
