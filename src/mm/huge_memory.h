// Which VMAs take transparent huge pages at a fault and how hard their allocation tries
// (mm/huge_memory.c, include/linux/huge_mm.h, include/linux/gfp_types.h, mm/mempolicy.c).
//
// A VMA is madvised (VM_HUGEPAGE, madvise(MADV_HUGEPAGE)) or not, apart from the system's THP
// mode, /sys/kernel/mm/transparent_hugepage/enabled: `always` gives every anonymous private VMA
// huge pages unless it said MADV_NOHUGEPAGE, `madvise` only the madvised ones, `never` none.
// /sys/kernel/mm/transparent_hugepage/defrag and the madvise flag then make the fault's gfp mask
// (vma_thp_gfp_mask), which says whether the allocation may reclaim directly, wake kswapd, and
// retry. Where the huge page may come from (the local node first, without reclaim) depends on
// the kernel release: ThpFaultNodes.
#pragma once

#include <cstdint>
#include <string_view>

namespace numasim {

// /sys/kernel/mm/transparent_hugepage/enabled (TRANSPARENT_HUGEPAGE_FLAG and
// TRANSPARENT_HUGEPAGE_REQ_MADV_FLAG of transparent_hugepage_flags).
enum class ThpEnabled { Always, Madvise, Never };

// /sys/kernel/mm/transparent_hugepage/defrag, its five values (the TRANSPARENT_HUGEPAGE_DEFRAG_*
// flags: DIRECT, KSWAPD, KSWAPD_OR_MADV, REQ_MADV, none). `madvise` is the default of every
// kernel since v4.6 ("mm: thp: set THP defrag by default to madvise and add a stall-free defrag
// option").
enum class ThpDefrag { Always, Defer, DeferMadvise, Madvise, Never };

// The reclaim bits of a THP fault's gfp mask. Every one starts from GFP_TRANSHUGE_LIGHT, which
// has no __GFP_RECLAIM bit (and __GFP_NOMEMALLOC, so no watermark is lowered for it).
struct ThpGfp {
    bool direct_reclaim = false;  // __GFP_DIRECT_RECLAIM
    bool kswapd_reclaim = false;  // __GFP_KSWAPD_RECLAIM
    bool noretry = false;         // __GFP_NORETRY
};

// vma_thp_gfp_mask() (v5.11 and later; alloc_hugepage_direct_gfpmask() before, the same bits):
// `always` reclaims directly, retrying only for a madvised VMA (GFP_TRANSHUGE, | __GFP_NORETRY
// otherwise); `defer` only wakes kswapd; `defer+madvise` reclaims for a madvised VMA and wakes
// kswapd for any other; `madvise` reclaims for a madvised VMA only; `never` neither.
ThpGfp vma_thp_gfp_mask(ThpDefrag defrag, bool vma_madvised);

// Whether the fault path may map a huge page in a VMA with `vm_flags` (thp_vma_allowable_order
// in v6.12, hugepage_vma_check in v6.1 and v6.6, transparent_hugepage_enabled in v4.18): anonymous
// memory only; a private mapping by the THP mode and VM_HUGEPAGE / VM_NOHUGEPAGE; a shared one
// is shmem, whose huge pages follow shmem_enabled instead (mm/shmem.c), which the model keeps at
// `advise` (huge pages where madvised), as the oracle's guest sets it.
bool thp_vma_allowable(ThpEnabled enabled, uint32_t vm_flags);

// Where a THP fault's allocation under a policy that allows its node (hpage_node: the preferred
// node of MPOL_PREFERRED, else the local one; not interleave) looks for the huge page.
enum class ThpFaultNodes {
    // v4.18, v4.19 (from v4.15 to v5.3): on hpage_node alone (__GFP_THISNODE), with the mask's
    // own reclaim; no other node, then a base page.
    ThisNodeOnly,
    // v5.4 on (v6.1, v6.6: vma_alloc_folio; v6.12: alloc_pages_mpol): first on hpage_node alone
    // with __GFP_NORETRY added, so without reclaim; then, only for a mask with
    // __GFP_DIRECT_RECLAIM, on every node the policy allows, the normal way; else a base page.
    LocalFirst,
};

// The behaviour of a profile's `release` ("v4.18", "v6.6"); one that does not read as
// vMAJOR.MINOR counts as a current kernel.
ThpFaultNodes thp_fault_nodes_of_release(std::string_view release);

}  // namespace numasim
