// The anon LRU lists' membership as bitmaps, so that reclaim's walk (mm/vmscan.h) costs what it
// scans rather than the address space it passes.
//
// The lists' order is the hand's walk over the address space (mm/vmscan.h), so a list's next
// folio is the next page, in that order, whose frame is on the list. On a tiered machine most of
// the pages a hand passes are another node's (one in nine is DRAM in the pmbench-pmem-4x row,
// docs/performance.md), and finding the list's pages by reading every frame made the walk cost
// grow with the pages passed. Here each object keeps, per node and list, one bit per page: a
// frame's bit is set while it holds a page on that node's inactive or active list. The walk ANDs
// a word of each with the mapping's present bits and reads a frame only for a page it finds,
// one word per 64 pages passed and one frame per page scanned.
//
// A node's two bitmaps are made when reclaim first walks the object for that node (only nodes
// that can demote are ever walked), from the frames, and kept from then on by every change of a
// frame's node, PG_active or allocation (lru_index_note). A run that never reclaims never makes
// them: 2 bits per page and reclaiming node, in the objects reclaim has walked.
//
// A frame waiting in an LRU add batch (PF_LRU_PENDING) keeps its bit: the walk reads the frame of
// every page it finds and passes over such a page as it passes other nodes' pages.
#pragma once

#include <cstdint>
#include <vector>

#include "mm/page.h"
#include "sim/bitmap.h"

namespace numasim {

struct Vma;

// The list a frame is on, as the index numbers them: 2 * nid for the node's inactive list,
// 2 * nid + 1 for its active one, or kNoLru for a frame that holds no page.
inline constexpr int kNoLru = -1;
inline int lru_list_of(const PageFrame& f) {
    return f.flags & PF_ALLOC ? 2 * f.nid + ((f.flags & PF_ACTIVE) ? 1 : 0) : kNoLru;
}

// One object's bitmaps (MemObject::lru), over the object's pages.
class LruIndex {
  public:
    // Whether node nid's lists are kept.
    bool indexed(int nid) const {
        const auto l = static_cast<size_t>(2 * nid);
        return l + 1 < lists_.size() && lists_[l].size() != 0;
    }
    // Keeps node nid's lists from now on, made from the object's `nr_pages` frames.
    void build(int nid, const PageFrame* frames, uint64_t nr_pages);
    // Page k's frame went from list `was` to list `now` (lru_list_of before and after).
    void note(uint64_t k, int was, int now) {
        if (was != now && !lists_.empty()) move(k, was, now);
    }
    // The 64 bits of list `list` (of an indexed node) from page `first` on; pages past the
    // object's end read as off the list.
    uint64_t bits_at(int list, uint64_t first) const;
    // The bitmap of list `list`, empty unless its node is indexed (for the invariant checks).
    const Bitmap& list(int list) const;
    size_t memory_bytes() const;

  private:
    void move(uint64_t k, int was, int now);
    std::vector<Bitmap> lists_;  // by list number; a node's two are empty until it is indexed
};

// lru_index_note() for page idx of `v`, in whichever object holds its frame (a private copy's or
// the shared one's).
void lru_index_note(Vma& v, uint64_t idx, int was, int now);

// The first folio of anon pages of `v` from page `from` on that is on `nid`'s list (inactive or
// `active`) and that the walk meets through `v`: a frame several mappings share (after fork) is
// met through the first of them only, as the LRU holds each folio once, and a PMD-mapped folio
// at its first page only. Sets first and nr; false when the VMA has none left. Indexes the
// node's lists in the objects it reads, if they are not yet.
bool next_lru_folio(Vma& v, uint64_t from, int nid, bool active, uint64_t& first, uint64_t& nr);

}  // namespace numasim
