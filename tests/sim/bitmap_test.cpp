// Bitmap: ranges that straddle 64-bit word boundaries, counting, and the two searches.
#include "sim/bitmap.h"

#include <gtest/gtest.h>

#include <bit>

namespace numasim {
namespace {

TEST(Bitmap, StartsClearAndReportsSize) {
    Bitmap b(200);
    EXPECT_EQ(b.size(), 200u);
    EXPECT_EQ(b.count(0, 200), 0u);
    EXPECT_FALSE(b.any(0, 200));
    // 200 bits need ceil(200 / 64) = 4 words of 8 bytes.
    EXPECT_EQ(b.memory_bytes(), 32u);
}

TEST(Bitmap, SetRangeAcrossWordBoundaries) {
    Bitmap b(200);
    b.set_range(60, 130);  // bits 60..129: 4 in word 0, all 64 of word 1, 2 in word 2
    EXPECT_EQ(b.count(0, 200), 70u);
    EXPECT_EQ(b.count(0, 64), 4u);     // 60, 61, 62, 63
    EXPECT_EQ(b.count(64, 128), 64u);  // the whole of word 1
    EXPECT_EQ(b.count(128, 200), 2u);  // 128, 129
    EXPECT_EQ(b.count(62, 66), 4u);    // 62..65 straddles the first boundary
    EXPECT_FALSE(b.test(59));
    EXPECT_TRUE(b.test(60));
    EXPECT_TRUE(b.test(129));
    EXPECT_FALSE(b.test(130));
}

TEST(Bitmap, ClearRangeAcrossWordBoundary) {
    Bitmap b(200);
    b.set_range(0, 200);
    b.clear_range(63, 65);  // one bit on each side of the word 0 / word 1 boundary
    EXPECT_EQ(b.count(0, 200), 198u);
    EXPECT_TRUE(b.test(62));
    EXPECT_FALSE(b.test(63));
    EXPECT_FALSE(b.test(64));
    EXPECT_TRUE(b.test(65));
    b.clear_range(100, 200);          // to the end of the last, partial word
    EXPECT_EQ(b.count(0, 200), 98u);  // 0..99 minus 63, 64
}

TEST(Bitmap, EmptyRangesAreNoOps) {
    Bitmap b(128);
    b.set_range(70, 70);
    EXPECT_EQ(b.count(0, 128), 0u);
    b.set_range(0, 128);
    b.clear_range(5, 5);
    EXPECT_EQ(b.count(0, 128), 128u);
    EXPECT_EQ(b.count(40, 40), 0u);
    EXPECT_EQ(b.find_next(40, 40), 40u);
    EXPECT_EQ(b.find_next_zero(40, 40), 40u);
}

TEST(Bitmap, SingleBitSetClear) {
    Bitmap b(130);
    b.set(0);
    b.set(63);
    b.set(64);
    b.set(129);
    EXPECT_EQ(b.count(0, 130), 4u);
    b.clear(63);
    EXPECT_EQ(b.count(0, 130), 3u);
    EXPECT_FALSE(b.test(63));
}

TEST(Bitmap, FindNext) {
    Bitmap b(200);
    b.set_range(60, 130);
    b.set(199);
    EXPECT_EQ(b.find_next(0, 200), 60u);
    EXPECT_EQ(b.find_next(61, 200), 61u);
    EXPECT_EQ(b.find_next(130, 200), 199u);  // skips the empty rest of word 2
    // A set bit at or beyond `end` is not reported: the result is `end`.
    EXPECT_EQ(b.find_next(130, 199), 199u);
    EXPECT_EQ(b.find_next(130, 150), 150u);
    EXPECT_EQ(b.find_next(0, 60), 60u);
    EXPECT_TRUE(b.any(0, 61));
    EXPECT_FALSE(b.any(0, 60));
}

TEST(Bitmap, FindNextZero) {
    Bitmap b(200);
    b.set_range(0, 130);
    b.clear(100);
    EXPECT_EQ(b.find_next_zero(0, 200), 100u);
    EXPECT_EQ(b.find_next_zero(101, 200), 130u);  // crosses word 1 into word 2
    EXPECT_EQ(b.find_next_zero(0, 100), 100u);    // none before end
    // Full bitmap: the padding bits past size() are zero, but the answer is still `end`.
    Bitmap full(70);
    full.set_range(0, 70);
    EXPECT_EQ(full.find_next_zero(0, 70), 70u);
    EXPECT_EQ(full.find_next_zero(65, 70), 70u);
}

TEST(Bitmap, WordMask) {
    EXPECT_EQ(word_mask(0, 64), ~uint64_t{0});
    EXPECT_EQ(word_mask(3, 5), uint64_t{0x18});  // bits 3 and 4
    EXPECT_EQ(word_mask(63, 64), uint64_t{1} << 63);
    EXPECT_EQ(word_mask(0, 1), uint64_t{1});
}

TEST(Bitmap, NthSetBitHandWorked) {
    EXPECT_EQ(nth_set_bit(1, 0), 0u);
    EXPECT_EQ(nth_set_bit(uint64_t{1} << 63, 0), 63u);
    // Bits 3, 9, 10 and 40: the bytes are 0 (bit 3), 1 (bits 9, 10) and 5 (bit 40).
    const uint64_t b =
        (uint64_t{1} << 3) | (uint64_t{1} << 9) | (uint64_t{1} << 10) | (uint64_t{1} << 40);
    EXPECT_EQ(nth_set_bit(b, 0), 3u);
    EXPECT_EQ(nth_set_bit(b, 1), 9u);
    EXPECT_EQ(nth_set_bit(b, 2), 10u);
    EXPECT_EQ(nth_set_bit(b, 3), 40u);
    // A full word: the n-th bit is bit n, up to the last one (byte sums reach 64).
    for (unsigned n = 0; n < 64; ++n)
        EXPECT_EQ(nth_set_bit(~uint64_t{0}, n), n) << n;
}

TEST(Bitmap, NthSetBitMatchesClearingTheLowestBits) {
    // Against the plain way: clear the n lowest set bits, take the lowest left.
    uint64_t x = 0x9e3779b97f4a7c15;
    for (int k = 0; k < 20000; ++k) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        // Sparse and dense words as well as even ones.
        const uint64_t bits = k % 3 == 0 ? x & (x >> 5) : k % 3 == 1 ? x | (x << 3) : x;
        const int count = std::popcount(bits);
        for (int n = 0; n < count; ++n) {
            uint64_t rest = bits;
            for (int i = 0; i < n; ++i)
                rest &= rest - 1;
            ASSERT_EQ(nth_set_bit(bits, static_cast<uint64_t>(n)),
                      static_cast<unsigned>(std::countr_zero(rest)))
                << std::hex << bits << std::dec << " n " << n;
        }
    }
}

TEST(Bitmap, WordAccessMatchesBits) {
    Bitmap b(128);
    b.set(1);
    b.set(65);
    EXPECT_EQ(b.word(0), uint64_t{2});
    EXPECT_EQ(b.word(1), uint64_t{2});
    EXPECT_EQ(b.data()[1], uint64_t{2});
}

}  // namespace
}  // namespace numasim
