// Per-page state. A PageFrame is the simulator's struct folio for one base page (PageGeometry): 8
// bytes, so that frames plus the per-mapping bits stay well under 16 bytes per simulated page.
#pragma once

#include <cstdint>

#include "machine/page_geometry.h"
#include "mm/cpupid.h"

namespace numasim {

struct PageFrame {
    // Stored inverted so that zero-filled memory (calloc) means "never faulted" (CPUPID_UNSET):
    // frame arrays of untouched memory then cost no resident memory at all.
    uint32_t inv_cpupid = 0;
    uint8_t nid = 0;
    uint8_t flags = 0;
    uint16_t mapcount = 0;  // mms mapping this frame (page_mapcount); >1 means COW- or file-shared

    cpupid_t last_cpupid() const { return ~inv_cpupid & LAST_CPUPID_MASK; }
    void set_last_cpupid(cpupid_t c) { inv_cpupid = ~c & LAST_CPUPID_MASK; }
};
static_assert(sizeof(PageFrame) == 8);

// PageFrame::flags
inline constexpr uint8_t PF_DIRTY = 1 << 0;  // dirty file page: change_prot_numa skips it
inline constexpr uint8_t PF_THP = 1 << 1;    // part of a PMD-mapped folio
inline constexpr uint8_t PF_ALLOC = 1 << 2;  // the frame holds a page (page cache or anon)
// In its CPU's LRU add batch, not on the LRU yet (!folio_test_lru): it cannot be isolated for
// migration until the batch moves (mm/lru_add.h).
inline constexpr uint8_t PF_LRU_PENDING = 1 << 3;
// On the active anon LRU list (PG_active), and PG_referenced: a page reclaim found accessed once
// (mm/vmscan.h). Only reclaim sets them, so only with demotion_enabled.
inline constexpr uint8_t PF_ACTIVE = 1 << 4;
inline constexpr uint8_t PF_REFERENCED = 1 << 5;

}  // namespace numasim
