#include "engine/page_walk.h"

#include <bit>

#include "mm/vma.h"
#include "sim/bitmap.h"

namespace numasim {

uint64_t nth_interesting_from_word(const Vma& vma, uint64_t w, uint64_t hi, bool write,
                                   uint64_t n) {
    // Possibly shared pages of a write are not counted per block; otherwise whole blocks whose
    // interesting pages are fewer than n are skipped by their counts.
    const bool counted = !(write && vma.own_mask.size());
    constexpr int shift = Vma::BLOCK_SHIFT, sshift = Vma::SUPERBLOCK_SHIFT;
    constexpr uint64_t block = uint64_t{1} << shift, super = uint64_t{1} << sshift;
    uint64_t from = w << 6;
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
        const uint64_t wend = from + 64;
        uint64_t bits = interesting_word(vma, from >> 6, write);
        if (hi < wend) bits &= (uint64_t{1} << (hi & 63)) - 1;
        const auto c = static_cast<uint64_t>(std::popcount(bits));
        if (n < c) return from + nth_set_bit(bits, n);
        n -= c;
        from = wend;
    }
    return hi;
}

}  // namespace numasim
