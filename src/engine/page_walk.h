// Finding the pages an access stream must fault on without looking at the others: a page is
// "interesting" when it is not present, PROT_NONE, or (for a write to a forked private mapping)
// possibly still shared. Whole 64-page words are skipped by popcount, whole 512-page blocks and
// 32768-page superblocks by the VMA's counts, so a walk costs one step per fault, word, block or
// superblock it passes.
#pragma once

#include <bit>
#include <cstdint>

#include "mm/vma.h"
#include "sim/bitmap.h"

namespace numasim {

// The interesting bits of pages [64w, 64w + 64) of `vma`.
inline uint64_t interesting_word(const Vma& vma, uint64_t w, bool write) {
    uint64_t bits = ~vma.present.word(w) | vma.protnone.word(w);
    if (write && vma.own_mask.size()) bits |= ~vma.own_mask.word(w);
    return bits;
}

// The n-th (from 0) interesting page in [64w, hi), or hi; w below hi's word.
uint64_t nth_interesting_from_word(const Vma& vma, uint64_t w, uint64_t hi, bool write, uint64_t n);

// The n-th (from 0) interesting page in [from, hi), or hi. Inline for the word `from` is in:
// most calls end there (a chunk's page or two, the page before a cell's own page, the next
// fault a few pages on), and the rest go on from the next word.
inline uint64_t nth_interesting(const Vma& vma, uint64_t from, uint64_t hi, bool write,
                                uint64_t n) {
    if (from >= hi) return hi;
    const uint64_t w = from >> 6, wend = (w + 1) << 6;
    uint64_t bits = interesting_word(vma, w, write) & (~uint64_t{0} << (from & 63));
    if (hi < wend) bits &= (uint64_t{1} << (hi & 63)) - 1;
    const auto c = static_cast<uint64_t>(std::popcount(bits));
    if (n < c)
        return (w << 6) +
               (n == 0 ? static_cast<unsigned>(std::countr_zero(bits)) : nth_set_bit(bits, n));
    if (hi <= wend) return hi;
    // From a block's first page the walk goes on from that page, not the next word, so that it
    // steps over whole blocks and superblocks from the start (a region's first page often starts
    // one): the word read here is read again, the blocks it starts are not walked word by word.
    if ((from & ((uint64_t{1} << Vma::BLOCK_SHIFT) - 1)) == 0)
        return nth_interesting_from_word(vma, w, hi, write, n);
    return nth_interesting_from_word(vma, w + 1, hi, write, n - c);
}

// The number of interesting pages of `r`, read from the region's totals (absent pages, and
// PROT_NONE ones, which are present); ~0 where they do not tell: a write to a mapping that keeps
// copies also faults on pages still shared since a fork, which no total counts.
inline uint64_t region_interesting(const Region& r, bool write) {
    if (write && r.vma->own_mask.size()) return ~uint64_t{0};
    return r.count - r.present + r.protnone;
}

// The n-th (from 0) interesting page of the whole of `r`, or its end. A random stream's first
// skip of a step is drawn over its region and, where the stream is sparse (the tails of
// pmbench's normal pattern, a few touches a second over thousands of pages), mostly passes every
// page of interest: the totals say so without a walk over the region's blocks.
inline uint64_t nth_interesting_in_region(const Region& r, bool write, uint64_t n) {
    const uint64_t end = r.first + r.count;
    if (n >= region_interesting(r, write)) return end;
    return nth_interesting(*r.vma, r.first, end, write, n);
}

// Whether no page of `r` is interesting, so that touching it faults nowhere; read from the
// region's totals where they suffice. Inline: every step of every stream asks it.
inline bool region_quiet(const Region& r, bool write) {
    if (r.present != r.count || r.protnone != 0) return false;
    const Vma& vma = *r.vma;
    if (!write || !vma.own_mask.size()) return true;
    // A write also faults on a page still shared copy-on-write since a fork (do_wp_page), which
    // a private mapping that keeps copies marks with a clear own_mask bit. Once a forked child
    // has written every page of a region (its stack), its writes there fault no more.
    const uint64_t end = r.first + r.count;
    return vma.own_mask.find_next_zero(r.first, end) >= end;
}

}  // namespace numasim
