// Finding the pages an access stream must fault on without looking at the others: a page is
// "interesting" when it is not present, PROT_NONE, or (for a write to a forked private mapping)
// possibly still shared. Whole 64-page words are skipped by popcount, whole 512-page blocks and
// 32768-page superblocks by the VMA's counts, so a walk costs one step per fault, word, block or
// superblock it passes.
#pragma once

#include <cstdint>

namespace numasim {

struct Region;
struct Vma;

// The interesting bits of pages [64w, 64w + 64) of `vma`.
uint64_t interesting_word(const Vma& vma, uint64_t w, bool write);

// The n-th (from 0) interesting page in [from, hi), or hi.
uint64_t nth_interesting(const Vma& vma, uint64_t from, uint64_t hi, bool write, uint64_t n);

// Whether no page of `r` is interesting, so that touching it faults nowhere; read from the
// region's totals where they suffice.
bool region_quiet(const Region& r, bool write);

}  // namespace numasim
