// Aging's input: what a page of the anon LRU was expected to be accessed since the inactive
// hand last passed its regions (mm/vmscan.h, "The LRU"), read from the regions' running totals
// (Region::accesses).
#pragma once

#include <cstdint>

#include "mm/vma.h"

namespace numasim {

// The expected accesses of a page since the inactive hand's last pass over its regions, kept for
// the run of pages [lo, hi) of `v` that the same regions cover, each in its hot part or not
// alike, within one PMD-sized chunk (the grain of the VMA's region index). The hand meets a run's
// pages one after another in one pass, and its regions' windows (RegionAging) are taken at the
// first of them and stay until the next pass: one lookup per run, not per folio.
struct AgingRun {
    const Vma* v = nullptr;
    int nid = -1;
    uint64_t pass = 0, lo = 0, hi = 0;
    double expected = 0;
};

// The expected accesses of page idx of `v` on `nid` since the inactive hand's last pass over
// its regions (Region::accesses), summed over the regions that cover it in the VMA's region
// index's order. The first page of a pass to read a region takes its window (RegionAging, made
// for `nr_nodes` nodes): what it was accessed since the pass before. Keeps its answer and its run
// in `run`, and answers from it for the run's other pages in the same pass: the caller keeps a
// run for one walk of one node's list, in which no stream runs.
double page_expected_accesses(Vma& v, uint64_t idx, int nid, int nr_nodes, uint64_t pass,
                              AgingRun& run);

}  // namespace numasim
