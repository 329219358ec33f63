// pghot, the "mm: Hot page tracking and promotion infrastructure" series (RFC v6, Bharata B Rao,
// linux-mm, 2026-03-23; not merged), in its default mode with NUMA hinting faults as the source,
// behind the `pghot` knob (docs/tiering.md, "The pghot switch"). In tiering mode a hinting fault
// on a slow-tier folio no longer migrates it: it records the access in the page's hotness record
// (pghot_record_access) and restores the PTE. A kernel thread per slow-tier node, kmigrated,
// wakes every kmigrated_sleep_ms and, if some record of its node became ready, takes the ready
// records, applies the promotion rate limit and hot threshold moved from the scheduler
// (kmigrated_should_migrate_memory) and migrates the folios in batches to pghot's target node.
//
// Where the model keeps things: the one-byte record of a slow-tier page lives in the cpupid
// field of its frame (a slow-tier folio's field holds NUMA balancing's scan time in tiering
// mode, which nothing reads once pghot decides; with pghot the scan leaves it alone). The
// kernel's walk over the PFNs of the node's hot sections is a list of the folios whose record
// became ready, in the order they did; each is looked up again when kmigrated takes it.
#pragma once

#include <cstdint>
#include <vector>

#include "mm/pghot_record.h"
#include "sim/clock.h"

namespace numasim {

struct System;
struct Vma;
struct PageFrame;

// pghot_record_access()'s sources (enum pghot_src); the model has the hint-fault one.
enum class PghotSrc { HintFaults, HwHints };

struct Mm;

// A folio whose record became ready: its mm (address spaces live as long as the run), its VMA's
// start (the VMA may be gone by the time kmigrated looks) and its first page's index there.
struct PghotRef {
    Mm* mm = nullptr;
    uint64_t vma_start = 0;
    uint64_t idx = 0;
};

// Per slow-tier node, kmigrated's state: PGDAT_KMIGRATED_ACTIVATE, the ready folios, and when
// its sleep ends.
struct PghotNode {
    bool activate = false;
    std::vector<PghotRef> ready;
    Nanos next_wake = 0;
};

struct PghotState {
    std::vector<PghotNode> nodes;  // sized to the machine's nodes when pghot is on
};

// Whether pghot decides the promotion of slow-tier folios in this run: the knob, in tiering mode.
bool pghot_active(const System& sys);

// The hotness record of a slow-tier frame (kept in its cpupid field, see above): 0 for a page
// that has none.
uint8_t pghot_phi(const PageFrame& f);
void pghot_set_phi(PageFrame& f, uint8_t phi);

// pghot_record_access(pfn, nid, src, jiffies) for the folio at `idx` of `vma` (its first page),
// accessed from a CPU that would have it on `nid`. Counts pghot_recorded_*; a folio on `nid` or
// on the top tier, or not on the LRU, is not recorded.
void pghot_record_access(System& sys, Vma& vma, uint64_t idx, int nid, PghotSrc src);

// kmigrated_should_migrate_memory(): whether the folio of `nr` pages whose last recorded access
// was in bucket `time` may be promoted to `nid` now: any while `nid` has plenty of free memory
// (counted in pgpromote_candidate_nrl), else if its access is more recent than the node's
// threshold and within the rate limit (counted in pgpromote_candidate).
bool kmigrated_should_migrate_memory(System& sys, uint64_t nr, int nid, unsigned time);

// Whether some kmigrated's sleep is over and its node has ready records (the engine catches
// every CPU up before the passes, which move pages CPUs may be touching).
bool kmigrated_due(const System& sys);
// At a tick: each such kmigrated makes its pass.
void kmigrated_tick(System& sys);

}  // namespace numasim
