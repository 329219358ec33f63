// Page allocation under memory policies (mm/page_alloc.c, mm/mempolicy.c): choose the node from
// the policy, fall back along the zonelist when it is below its low watermark, and count
// numa_hit/miss/foreign/local/other/interleave as zone_statistics() does.
#pragma once

#include <cstdint>

namespace numasim {

struct System;
struct Task;
struct Vma;
struct MemPolicy;

// The policy that applies to a fault at page `idx` of `vma` by `p`: the VMA's, else the task's,
// else the per-node default (MPOL_PREFERRED on the faulting CPU's node with MOF|MORON).
MemPolicy get_vma_policy(const System& sys, const Task& p, const Vma& vma, int cpu);

// The node the policy asks for page `idx` of `vma` when `p` faults it on `cpu`: where
// alloc_pages_vma tries first, before any fallback for lack of room.
int policy_node(const System& sys, const Task& p, const Vma& vma, uint64_t idx, int cpu);

// Allocates 2^order pages for page `idx` of `vma`, faulted by `p` on `cpu`. Returns the node, or
// -1 when no allowed node has room. With demotion_enabled, the slow path of the kernel's
// allocator runs between the passes: kswapd of every allowed node of the zonelist is woken when
// none is above its low watermark, and the allocation reclaims directly when none is above min
// (mm/vmscan.h). An allocation that still fails is counted as out of memory. A THP (order > 0)
// follows the gfp mask vma_thp_gfp_mask() makes from the `transparent_hugepage_defrag` knob and
// the VMA's madvise flag, and the release's ThpFaultNodes (mm/huge_memory.h): under a policy that
// allows it, the policy's node alone first (at low, then min, without reclaim), then every allowed
// node only for a mask that reclaims directly; its failure is not out of memory: the fault falls
// back to a base page.
int alloc_pages_vma(System& sys, const Task& p, const Vma& vma, uint64_t idx, int order, int cpu);

// `n` more base pages for pages after `idx` of `vma` (a first-touch run, mm/fault.h), all on
// `nid`, the node alloc_pages_vma gave idx's page: what n calls of alloc_pages_vma would do,
// provided `nid` stays above its low watermark for all n and the policy is not interleave.
void alloc_pages_vma_repeat(System& sys, const Task& p, const Vma& vma, int nid, uint64_t n,
                            int cpu);

// Allocates 2^order pages for the kernel's own use (__alloc_pages_node): `nid` first, then its
// zonelist, without a memory policy. Returns the node, or -1.
int alloc_pages_node(System& sys, int nid, int order, int cpu);

// Allocates 2^order pages on exactly `nid` (__GFP_THISNODE, no reclaim), as a migration target.
// Fails (returns false) unless the node stays above its high watermark.
bool alloc_pages_thisnode(System& sys, int nid, int order, int cpu);

// alloc_demote_folio(): 2^order pages for a page demoted from `cpu_nid`, on `target` or else on
// another node of `allowed` (its zonelist's order), at the low watermark and then min, without
// reclaim. Returns the node, or -1.
int alloc_demote_page(System& sys, int target, uint64_t allowed, int order, int cpu_nid);

// Returns pages to a node's free count.
void free_pages(System& sys, int nid, uint64_t nr);

}  // namespace numasim
