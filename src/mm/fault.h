// Page faults that are not NUMA hints: the first touch of a page (anonymous or file-backed,
// with THP when the VMA allows it) and the copy-on-write break when a task writes a page it
// shares with another process. Each returns the kernel CPU time it cost.
#pragma once

#include <cstdint>

namespace numasim {

struct System;
struct Task;
struct Vma;

// Handles the first access to a non-present page. Returns kernel time in ns.
double handle_mm_fault(System& sys, Task& p, Vma& vma, uint64_t idx, bool write);

// First touch in runs (docs/model.md, "Fault runs"): after handle_mm_fault() gave page `idx` of
// a private anonymous mapping a base page, the absent pages right after it, below `hi` and in
// idx's page table, whose first touch by `p` would take the same path and the same node. Zero
// when the mapping or the policy could treat two pages differently (file, shared, THP-enabled,
// interleave) or the node would drop to its low watermark within the run.
uint64_t anon_fault_run(const System& sys, const Task& p, const Vma& vma, uint64_t idx,
                        uint64_t hi);
// Does for pages [idx + 1, idx + nr] what handle_mm_fault() did for idx, a run counted by
// anon_fault_run: the allocations, frames, totals and fault counters, and the clearing traffic.
// Returns the kernel time of one of them, the same as idx's.
double repeat_anon_fault(System& sys, Task& p, Vma& vma, uint64_t idx, uint64_t nr);

// Handles a write to a present page whose frame is shared (mapcount > 1) in a private mapping.
double do_wp_page(System& sys, Task& p, Vma& vma, uint64_t idx);
// Whether do_wp_page for page `idx` has anything to do (copy or reuse), or returns at once.
bool do_wp_page_needed(const Vma& vma, uint64_t idx);

// __split_huge_pmd(): maps the PMD-sized block holding page `idx` with PTEs if it was PMD-mapped.
// Done before a write copies or reuses one page of a THP, and in every mapping of a THP page
// that migrates alone: from then on each page of the block is handled as a base page. The PTEs
// get the VMA's protection, so a PROT_NONE PMD's hint is gone.
void split_huge_pmd(Vma& vma, uint64_t idx);

// Restores the PTEs of [first, end) of `vma` that are PROT_NONE (the others are left as they
// are), with their totals.
void clear_protnone(Vma& vma, uint64_t first, uint64_t end);

// The running totals of `vma` (its block counters and every region overlapping the range) after
// pages [first, first + nr) of it changed; a range may have any length (a run of PTEs a scan
// window changed can span the whole window), and its per-node pages. Pages became present (`delta`
// +1) or absent (-1) on node `nid`:
void account_region_pages(Vma& vma, uint64_t first, uint64_t nr, int nid, int delta);
// ... became PROT_NONE (+1) or were restored (-1):
void account_region_protnone(Vma& vma, uint64_t first, uint64_t nr, int delta);
// ... had their frames moved from node `from` to node `to` (migration):
void account_region_move(Vma& vma, uint64_t first, uint64_t nr, int from, int to);

}  // namespace numasim
