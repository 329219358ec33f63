#include "cost/stream_index.h"

#include <algorithm>
#include <numeric>

#include "mm/vma.h"

namespace numasim {

StreamIndex::StreamIndex(std::span<const AccessStream> streams)
    : data_(streams.data()), size_(streams.size()) {
    for (uint32_t k = 0; k < streams.size(); ++k) {
        const Region& r = *streams[k].region;
        auto o = std::find_if(vmas_.begin(), vmas_.end(),
                              [&](const OfVma& x) { return x.vma == r.vma; });
        if (o == vmas_.end()) {
            o = vmas_.emplace(vmas_.end());
            o->vma = r.vma;
        }
        o->firsts.push_back(r.first);
        if (!r.count) continue;
        o->span_first.push_back(r.first);
        o->span_end.push_back(r.first + r.count);
        o->span_stream.push_back(k);
    }
    for (OfVma& o : vmas_) {
        std::sort(o.firsts.begin(), o.firsts.end());
        // The spans by first page (stream order among equal firsts: they overlap anyway).
        std::vector<size_t> order(o.span_first.size());
        std::iota(order.begin(), order.end(), size_t{0});
        std::stable_sort(order.begin(), order.end(),
                         [&](size_t a, size_t b) { return o.span_first[a] < o.span_first[b]; });
        OfVma sorted;
        sorted.vma = o.vma;
        sorted.firsts = std::move(o.firsts);
        for (size_t j : order) {
            if (!sorted.span_end.empty() && o.span_first[j] < sorted.span_end.back())
                sorted.disjoint = false;
            sorted.span_first.push_back(o.span_first[j]);
            sorted.span_end.push_back(o.span_end[j]);
            sorted.span_stream.push_back(o.span_stream[j]);
        }
        o = std::move(sorted);
    }
}

int StreamIndex::OfVma::covering(uint64_t i) const {
    // The last span that starts at or before i: the only one that may hold it.
    const auto it = std::upper_bound(span_first.begin(), span_first.end(), i);
    if (it == span_first.begin()) return -1;
    const auto j = static_cast<size_t>(it - span_first.begin()) - 1;
    return i < span_end[j] ? static_cast<int>(span_stream[j]) : -1;
}

uint64_t StreamIndex::OfVma::next_first_after(uint64_t i) const {
    const auto it = std::upper_bound(firsts.begin(), firsts.end(), i);
    return it == firsts.end() ? ~uint64_t{0} : *it;
}

const StreamIndex& stream_index(const AccessMix& a) {
    if (!a.index || !a.index->made_from(a.streams))
        a.index = std::make_shared<const StreamIndex>(a.streams);
    return *a.index;
}

}  // namespace numasim
