// The DAMON recorder's rule (observe/damon_recorder.h), worked by hand.
#include <gtest/gtest.h>

#include <cmath>

#include "observe/damon_recorder.h"

namespace numasim {
namespace {

constexpr uint64_t kPage = 4096;

TEST(DamonRecorder, DefaultsAreDamonNewCtxs) {
    EXPECT_EQ(kDamonSampleInterval, 5'000'000);
    EXPECT_EQ(kDamonAggrInterval, 100'000'000);
    EXPECT_EQ(kDamonMaxNrAccesses, 20);
    EXPECT_EQ(kDamonAgeThreshold, 2);
    EXPECT_EQ(kDamonMinNrRegions, 10u);
    EXPECT_EQ(kDamonMaxNrRegions, 1000u);
}

// A stream of 1 GB/s of random 64-byte lines over a 64 MiB region (16384 pages): per 5 ms sample
// 5e6 bytes = 78125 lines, 4.768 lines per page; the sampled page is found accessed with
// 1 - e^-4.768 = 0.99151, and 20 samples give 19.83 -> nr_accesses 20.
TEST(DamonRecorder, BusyRandomStreamSaturates) {
    const double lambda = 1e9 * 5e-3 / 64 / 16384;
    EXPECT_NEAR(lambda, 4.768, 1e-3);
    EXPECT_NEAR(damon_sample_hit(lambda), 0.99151, 1e-5);
    EXPECT_EQ(damon_nr_accesses(20 * damon_sample_hit(lambda)), 20);
}

// 10 MB/s over the same region: 0.04768 lines per page per sample; 1 - e^-0.04768 = 0.046561,
// 20 samples give 0.9312 -> 1. 40 MB/s: 0.19073 -> 0.17365 -> 3.473 -> 3.
TEST(DamonRecorder, SlowStreamCountsTheExpectedSamples) {
    const double slow = 10e6 * 5e-3 / 64 / 16384;
    EXPECT_NEAR(20 * damon_sample_hit(slow), 0.9312, 1e-4);
    EXPECT_EQ(damon_nr_accesses(20 * damon_sample_hit(slow)), 1);
    const double faster = 40e6 * 5e-3 / 64 / 16384;
    EXPECT_NEAR(20 * damon_sample_hit(faster), 3.473, 1e-3);
    EXPECT_EQ(damon_nr_accesses(20 * damon_sample_hit(faster)), 3);
}

TEST(DamonRecorder, IdleRegionIsZeroAndCountsAreBounded) {
    EXPECT_EQ(damon_sample_hit(0), 0.0);
    EXPECT_EQ(damon_nr_accesses(0), 0);
    EXPECT_EQ(damon_nr_accesses(0.49), 0);
    EXPECT_EQ(damon_nr_accesses(20.4), 20);  // a count above the window's samples is clamped
    EXPECT_EQ(damon_nr_accesses(-1), 0);
}

TEST(DamonRecorder, AgeHoldsWithinTheMergeThreshold) {
    EXPECT_EQ(damon_next_age(-1, 5, 7), 0u);  // a new region
    EXPECT_EQ(damon_next_age(5, 7, 3), 4u);   // moved by 2 = max_nr_accesses / 10: held
    EXPECT_EQ(damon_next_age(5, 8, 3), 0u);   // moved by 3: reset
    EXPECT_EQ(damon_next_age(0, 0, 41), 42u);
}

TEST(DamonRecorder, FewPiecesAreCutToMinNrRegions) {
    // One 10-page piece and one 2-page piece: the 10 pages are cut into 5 + 5, then the first
    // of the two largest into 2 + 3 pages (the edge at half its pages, rounded down).
    const std::vector<DamonPiece> in{{0, 10 * kPage, 0}, {20 * kPage, 22 * kPage, 0}};
    const std::vector<DamonPiece> out = damon_bound_regions(in, kPage, 4, 1000);
    const std::vector<DamonPiece> want{{0, 2 * kPage, 0},
                                       {2 * kPage, 5 * kPage, 0},
                                       {5 * kPage, 10 * kPage, 0},
                                       {20 * kPage, 22 * kPage, 0}};
    EXPECT_EQ(out, want);
}

TEST(DamonRecorder, SinglePagePiecesAreNotCut) {
    const std::vector<DamonPiece> in{{0, kPage, 0}, {8 * kPage, 9 * kPage, 0}};
    EXPECT_EQ(damon_bound_regions(in, kPage, 10, 1000), in);
}

TEST(DamonRecorder, ManyPiecesAreJoinedInPairs) {
    // Five pieces, at most two: joined to three ({0,1}, {2,3}, {4}), then to two.
    std::vector<DamonPiece> in;
    for (uint64_t i = 0; i < 5; ++i)
        in.push_back({i * kPage, (i + 1) * kPage, static_cast<double>(i)});
    const std::vector<DamonPiece> out = damon_bound_regions(in, kPage, 1, 2);
    ASSERT_EQ(out.size(), 2u);
    EXPECT_EQ(out[0].start, 0u);
    EXPECT_EQ(out[0].end, 4 * kPage);
    EXPECT_DOUBLE_EQ(out[0].lambda, 1.5);  // (0 + 1 + 2 + 3) / 4, by size
    EXPECT_EQ(out[1].start, 4 * kPage);
    EXPECT_DOUBLE_EQ(out[1].lambda, 4.0);
}

}  // namespace
}  // namespace numasim
