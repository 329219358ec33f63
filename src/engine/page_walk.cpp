#include "engine/page_walk.h"

#include <bit>

#include "mm/vma.h"
#include "sim/bitmap.h"

namespace numasim {

namespace {

// The position of the n-th (from 0) set bit of `bits` (n below its popcount).
uint64_t nth_bit(uint64_t bits, uint64_t n) {
    for (; n > 0; --n)
        bits &= bits - 1;
    return static_cast<uint64_t>(std::countr_zero(bits));
}

}  // namespace

uint64_t interesting_word(const Vma& vma, uint64_t w, bool write) {
    uint64_t bits = ~vma.present.word(w) | vma.protnone.word(w);
    if (write && vma.own_mask.size()) bits |= ~vma.own_mask.word(w);
    return bits;
}

uint64_t nth_interesting(const Vma& vma, uint64_t from, uint64_t hi, bool write, uint64_t n) {
    // Possibly shared pages of a write are not counted per block; otherwise whole blocks whose
    // interesting pages are fewer than n are skipped by their counts.
    const bool counted = !(write && vma.own_mask.size());
    constexpr int shift = Vma::BLOCK_SHIFT, sshift = Vma::SUPERBLOCK_SHIFT;
    constexpr uint64_t block = uint64_t{1} << shift, super = uint64_t{1} << sshift;
    while (from < hi) {
        if (counted && (from & (super - 1)) == 0 && from + super <= hi) {
            const uint64_t c = vma.sblk_interesting[from >> sshift];
            if (n >= c) {
                n -= c;
                from += super;
                continue;
            }
        }
        if (counted && (from & (block - 1)) == 0 && from + block <= hi) {
            const uint64_t b = from >> shift;
            const uint64_t c = uint64_t{vma.blk_absent[b]} + vma.blk_protnone[b];
            if (n >= c) {
                n -= c;
                from += block;
                continue;
            }
        }
        const uint64_t w = from >> 6;
        const unsigned lo_bit = from & 63;
        const uint64_t wend = (w + 1) << 6;
        const unsigned hi_bit = hi >= wend ? 64 : static_cast<unsigned>(hi & 63);
        uint64_t bits = interesting_word(vma, w, write) & word_mask(lo_bit, hi_bit);
        const uint64_t c = static_cast<uint64_t>(std::popcount(bits));
        if (n < c) return (w << 6) + nth_bit(bits, n);
        n -= c;
        from = wend;
    }
    return hi;
}

}  // namespace numasim
