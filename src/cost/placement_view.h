// What the cost model reads of a region's placement, with an id that moves only when that does.
//
// line_demand reads three things of a region: its size, whether it has a page at all (if not,
// its first touch goes to the CPU's node) and, for each node, the share of its present pages
// there, pages_on(n) / present as a double. A page fault that adds a page to the only node
// that holds the region's pages changes its counts and its stamp (Region::stamp) but not one of
// those shares: hundreds of threads first-touching one buffer bound to one node (autonumabench
// NUMA01) move its stamp at every fault, and each CPU would derive a demand of the same bits.
// A view keeps the shares with the stamps they were read at; when a stamp moves it reads them
// again and keeps its id if size, emptiness and every share are bit for bit what they were. A
// kept demand keyed by its regions' view ids is derived again only when a share moved.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "mm/vma.h"

namespace numasim {

class PlacementViews {
  public:
    // `nodes`: the machine's; `entries`: the number of regions kept at once (a power of two).
    void init(int nodes, size_t entries);

    // The id of r's view: kept while r's stamps stand, else its shares read again and the id
    // kept if they are what the entry last held for r. An id is never given to two views.
    uint64_t id(const Region& r) {
        Entry& e = entries_[slot(r)];
        if (e.region == &r && e.stamp == r.stamp.value && e.shared_stamp == shared_stamp(r))
            return e.id;
        return refresh(e, r);
    }
    // If the view kept for r at its current stamps holds other shares than r's counts give now
    // (a count changed without a stamp), what differs; else nullopt (the invariant checker).
    std::optional<std::string> find_stale(const Region& r) const;

  private:
    struct Entry {
        const Region* region = nullptr;
        uint64_t stamp = 0, shared_stamp = 0, id = 0, bytes = 0;
        bool empty = false;  // no page present: the first touch goes to the CPU's node
    };
    static uint64_t shared_stamp(const Region& r) { return r.shared ? r.shared->stamp.value : 0; }
    // Direct-mapped by the stamp's owner number (its high half, PlacementStamp::fresh): regions
    // made one after the other take different entries until `entries` more were made.
    size_t slot(const Region& r) const {
        return static_cast<size_t>(r.stamp.value >> 32) & (entries_.size() - 1);
    }
    uint64_t refresh(Entry& e, const Region& r);

    int nodes_ = 0;
    std::vector<Entry> entries_;
    std::vector<double> shares_;  // per entry, per node: pages_on(n) / present
    uint64_t last_id_ = 0;
};

}  // namespace numasim
