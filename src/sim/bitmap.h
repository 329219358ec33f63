// A plain bitmap over page indices with the word-at-a-time operations the scanner and the access
// model need: find the next set bit, count bits in a range, set or clear a range. Scanning a
// range costs one operation per 64 pages, never one per page.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace numasim {

class Bitmap {
  public:
    Bitmap() = default;
    explicit Bitmap(uint64_t nbits) : nbits_(nbits), words_((nbits + 63) / 64, 0) {}

    uint64_t size() const { return nbits_; }
    bool test(uint64_t i) const { return (words_[i >> 6] >> (i & 63)) & 1; }
    void set(uint64_t i) { words_[i >> 6] |= bit(i); }
    void clear(uint64_t i) { words_[i >> 6] &= ~bit(i); }
    void set_range(uint64_t begin, uint64_t end);
    void clear_range(uint64_t begin, uint64_t end);
    uint64_t count(uint64_t begin, uint64_t end) const;
    // First set bit in [begin, end), or end.
    uint64_t find_next(uint64_t begin, uint64_t end) const;
    // First clear bit in [begin, end), or end.
    uint64_t find_next_zero(uint64_t begin, uint64_t end) const;
    bool any(uint64_t begin, uint64_t end) const { return find_next(begin, end) < end; }
    size_t memory_bytes() const { return words_.capacity() * sizeof(uint64_t); }

    // Word access for combining several bitmaps in one pass.
    uint64_t word(uint64_t w) const { return words_[w]; }
    uint64_t* data() { return words_.data(); }
    const uint64_t* data() const { return words_.data(); }

  private:
    static uint64_t bit(uint64_t i) { return uint64_t{1} << (i & 63); }
    uint64_t nbits_ = 0;
    std::vector<uint64_t> words_;
};

// Mask of bits [lo, hi) within one word, 0 <= lo < hi <= 64.
inline uint64_t word_mask(unsigned lo, unsigned hi) {
    const uint64_t upper = hi == 64 ? ~uint64_t{0} : (uint64_t{1} << hi) - 1;
    return upper & ~((uint64_t{1} << lo) - 1);
}

// The position of the n-th (from 0) set bit of `bits`, n below its popcount. Byte counts found
// side by side in the word (broadword select): their running sums say which byte holds the bit
// in a fixed number of steps, and at most seven set bits are cleared inside that byte, where
// clearing the n lowest set bits of the word took n steps.
inline unsigned nth_set_bit(uint64_t bits, uint64_t n) {
    constexpr uint64_t ones = 0x0101010101010101, highs = 0x8080808080808080;
    uint64_t c = bits - ((bits >> 1) & 0x5555555555555555);
    c = (c & 0x3333333333333333) + ((c >> 2) & 0x3333333333333333);
    c = (c + (c >> 4)) & 0x0f0f0f0f0f0f0f0f;
    // Byte i of `sums`: the set bits of bytes 0 to i, at most 64, so no byte carries.
    const uint64_t sums = c * ones;
    // Byte i's high bit is set where sums_i <= n: 0x80 + n - sums_i never borrows (n < 64).
    const uint64_t at_most_n = ((n * ones) | highs) - sums;
    const unsigned byte = static_cast<unsigned>(std::popcount(at_most_n & highs));
    const unsigned shift = 8 * byte;
    uint64_t in_byte = (bits >> shift) & 0xff;
    for (uint64_t k = byte ? n - ((sums >> (shift - 8)) & 0xff) : n; k > 0; --k)
        in_byte &= in_byte - 1;
    return shift + static_cast<unsigned>(std::countr_zero(in_byte));
}

}  // namespace numasim
