#include "mm/lru_aging.h"

#include <algorithm>

namespace numasim {

double page_expected_accesses(Vma& v, uint64_t idx, int nid, int nr_nodes, uint64_t pass,
                              AgingRun& run) {
    if (&v == run.v && nid == run.nid && pass == run.pass && idx >= run.lo && idx < run.hi)
        return run.expected;
    const uint64_t chunk = v.pages.pmd_nr();
    uint64_t lo = idx & ~(chunk - 1), hi = lo + chunk;
    double expected = 0;
    // Every region of the chunk, in the index's order: those that do not cover idx bound the run.
    v.for_each_region_in(lo, chunk, [&](Region& r, uint64_t) {
        const uint64_t end = r.first + r.count;
        if (r.first > idx) {
            hi = std::min(hi, r.first);
            return;
        }
        if (end <= idx) {
            lo = std::max(lo, end);
            return;
        }
        lo = std::max(lo, r.first);
        hi = std::min(hi, end);
        RegionAccesses& a = r.accesses;
        if (a.by_node.size() < static_cast<size_t>(nr_nodes))
            a.by_node.resize(static_cast<size_t>(nr_nodes));
        RegionAging& g = a.by_node[static_cast<size_t>(nid)];
        if (g.pass != pass) {
            g.win_all = a.all - g.seen_all;
            g.win_hot = a.hot - g.seen_hot;
            g.seen_all = a.all;
            g.seen_hot = a.hot;
            g.pass = pass;
        }
        const bool hot = idx - r.first < a.hot_pages;
        if (hot)
            hi = std::min(hi, r.first + a.hot_pages);
        else
            lo = std::max(lo, r.first + a.hot_pages);
        expected += g.win_all + (hot ? g.win_hot : 0);
    });
    run = AgingRun{&v, nid, pass, lo, hi, expected};
    return expected;
}

}  // namespace numasim
