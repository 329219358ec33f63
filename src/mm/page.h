// Per-page state. A PageFrame is the simulator's struct folio for one 4 KiB page: 8 bytes, so
// that frames plus the per-mapping bits stay well under 16 bytes per simulated page.
#pragma once

#include <cstdint>

#include "mm/cpupid.h"

namespace numasim {

inline constexpr int PAGE_SHIFT = 12;  // 4 KiB base pages (x86-64)
inline constexpr uint64_t PAGE_SIZE = uint64_t{1} << PAGE_SHIFT;
inline constexpr int HPAGE_PMD_ORDER = 9;  // 2 MiB PMD-mapped THP on x86-64
inline constexpr uint64_t HPAGE_PMD_NR = uint64_t{1} << HPAGE_PMD_ORDER;  // 512 base pages
inline constexpr uint64_t HPAGE_PMD_SIZE = HPAGE_PMD_NR * PAGE_SIZE;

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
inline constexpr uint8_t PF_THP = 1 << 1;    // part of a PMD-mapped 2 MiB folio
inline constexpr uint8_t PF_ALLOC = 1 << 2;  // the frame holds a page (page cache or anon)

}  // namespace numasim
