// The walk of an anon LRU list through one mapping (mm/lru_index.h has the lists' bitmaps it
// reads and the lists' order).
#pragma once

#include <cstdint>

#include "mm/vma.h"

namespace numasim {

// The walk of `v`'s anon folios on one node's list (inactive or `active`), as reclaim takes them
// one after another: next() gives the first folio from a page on that the walk meets through `v`.
// A frame several mappings share (after fork) is met through the first of them only, as the LRU
// holds each folio once, and a PMD-mapped folio at its first page only. What does not change
// while reclaim visits the folios (which objects the mapping meets, the index of each, where
// the VMA's THP blocks lie) is found once, when the cursor is made, not per folio.
class LruCursor {
  public:
    // Indexes the node's lists in the objects the walk reads, if they are not yet.
    LruCursor(Vma& v, int nid, bool active);
    // The first folio from page `from` on: sets first and nr and returns its head frame (which
    // says the folio's flags), or null when the VMA has none left. Between calls the caller may
    // move the folios met to other lists (activate, demote), but no other page: the cursor
    // keeps the last word of list bits it read.
    PageFrame* next(uint64_t from, uint64_t& first, uint64_t& nr);

  private:
    Vma& v_;
    MemObject* shared_ = nullptr;  // the object, when `v_` is the mapping that meets its pages
    MemObject* own_ = nullptr;     // the mapping's private copies, once it has any
    bool has_copies_ = false;
    int nid_ = 0, list_ = 0;
    uint8_t want_ = 0;
    uint64_t nr_pages_ = 0;
    // THP blocks (Vma::thp_block) in page numbers: the VMA's first page's, and the block size,
    // or 0 when the VMA maps no PMD.
    uint64_t start_page_ = 0, pmd_nr_ = 0;
    int pmd_order_ = 0;
    // The last 64-page word read: its pages on the list (present, in the object the mapping
    // meets them through) and its copies' bits (own_mask).
    void read_word(uint64_t w);
    uint64_t word_ = ~uint64_t{0}, on_ = 0, copies_ = 0;
    // The list's words from the mapping's first page, where they are the object's words as they
    // stand (the mapping has no copies and its window starts a word), else null.
    const uint64_t* words_ = nullptr;
};

}  // namespace numasim
