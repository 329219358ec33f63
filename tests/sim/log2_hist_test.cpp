// The log2 histogram: bcc's bpf_log2l slots, the bounds print_log2_hist prints, and the
// nearest-rank percentiles read as a slot's upper bound, on hand-worked values.
#include "sim/log2_hist.h"

#include <gtest/gtest.h>

namespace numasim {
namespace {

TEST(Log2Hist, SlotsAreBpfLog2l) {
    // bpf_log2l: 0 and 1 share slot 1; then floor(log2 v) + 1.
    EXPECT_EQ(Log2Hist::slot_of(0), 1);
    EXPECT_EQ(Log2Hist::slot_of(1), 1);
    EXPECT_EQ(Log2Hist::slot_of(2), 2);
    EXPECT_EQ(Log2Hist::slot_of(3), 2);
    EXPECT_EQ(Log2Hist::slot_of(4), 3);
    EXPECT_EQ(Log2Hist::slot_of(1023), 10);
    EXPECT_EQ(Log2Hist::slot_of(1024), 11);
    EXPECT_EQ(Log2Hist::slot_of(~uint64_t{0}), 64);
}

TEST(Log2Hist, BoundsAsBccPrintsThem) {
    EXPECT_EQ(Log2Hist::slot_low(1), 0u);  // "0 -> 1"
    EXPECT_EQ(Log2Hist::slot_high(1), 1u);
    EXPECT_EQ(Log2Hist::slot_low(2), 2u);  // "2 -> 3"
    EXPECT_EQ(Log2Hist::slot_high(2), 3u);
    EXPECT_EQ(Log2Hist::slot_low(14), 8192u);  // "8192 -> 16383"
    EXPECT_EQ(Log2Hist::slot_high(14), 16383u);
    EXPECT_EQ(Log2Hist::slot_high(64), ~uint64_t{0});
    // Every value lies within the bounds of its slot.
    for (uint64_t v : {0ull, 1ull, 2ull, 5ull, 4095ull, 4096ull, 123456789ull})
        EXPECT_TRUE(Log2Hist::slot_low(Log2Hist::slot_of(v)) <= v &&
                    v <= Log2Hist::slot_high(Log2Hist::slot_of(v)))
            << v;
}

TEST(Log2Hist, AddingNIsAddingOneNTimes) {
    Log2Hist a, b;
    a.add(5, 7);
    for (int i = 0; i < 7; ++i)
        b.add(5);
    EXPECT_EQ(a.slot(3), 7u);
    EXPECT_EQ(a.count(), 7u);
    for (int k = 0; k < Log2Hist::kSlots; ++k)
        EXPECT_EQ(a.slot(k), b.slot(k));
    EXPECT_EQ(a.max_slot(), 3);
    EXPECT_EQ(Log2Hist{}.max_slot(), 0);
}

TEST(Log2Hist, PercentilesAreNearestRankUpperBounds) {
    // 100 values: 90 of 3 (slot 2..3), 9 of 100 (64..127), 1 of 5000 (4096..8191).
    Log2Hist h;
    h.add(3, 90);
    h.add(100, 9);
    h.add(5000);
    EXPECT_EQ(h.percentile(0), 3u);        // rank 1
    EXPECT_EQ(h.percentile(50), 3u);       // rank 50
    EXPECT_EQ(h.percentile(90), 3u);       // rank 90: the last value of the first slot
    EXPECT_EQ(h.percentile(90.5), 127u);   // rank ceil(90.5) = 91
    EXPECT_EQ(h.percentile(99), 127u);     // rank 99
    EXPECT_EQ(h.percentile(99.9), 8191u);  // rank ceil(99.9) = 100
    EXPECT_EQ(h.percentile(100), 8191u);
    EXPECT_EQ(Log2Hist{}.percentile(99), 0u);
}

TEST(Log2Hist, PercentileRankIsExactInThousandths) {
    // 99.9 % of 1000 values is rank 999 exactly: the 999 ones, not the single 1000.
    Log2Hist h;
    h.add(1, 999);
    h.add(1000);
    EXPECT_EQ(h.percentile(99.9), 1u);
    EXPECT_EQ(h.percentile(99.95), 1023u);  // rank ceil(999.5) = 1000
}

TEST(Log2Hist, MergeAddsSlotBySlot) {
    Log2Hist a, b;
    a.add(0, 2);
    a.add(9);
    b.add(1);
    b.add(12, 3);
    a.merge(b);
    EXPECT_EQ(a.slot(1), 3u);
    EXPECT_EQ(a.slot(4), 4u);  // 8..15
    EXPECT_EQ(a.count(), 7u);
}

}  // namespace
}  // namespace numasim
