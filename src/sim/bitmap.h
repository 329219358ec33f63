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

}  // namespace numasim
