// The IBS sampler's draws (policy/ibs_sampler.h), worked by hand: a step yields its misses over
// the sample period, the remainder carried to the next; a sampled page lies where the step's
// streams put their accesses.
#include "policy/ibs_sampler.h"

#include <gtest/gtest.h>

#include <vector>

#include "cost/access.h"
#include "mm/vma.h"
#include "sim/rng.h"

namespace numasim {
namespace {

TEST(IbsSamples, OnePerPeriodOfMissesWithTheRemainderCarried) {
    double carry = 0;
    // 25,000 misses at one sample per 10,000: two samples, half a sample left.
    EXPECT_EQ(ibs_samples(carry, 25000, 10000), 2u);
    EXPECT_DOUBLE_EQ(carry, 0.5);
    // 5,000 more complete the third.
    EXPECT_EQ(ibs_samples(carry, 5000, 10000), 1u);
    EXPECT_DOUBLE_EQ(carry, 0.0);
    // A step with too few misses yields none, but counts toward the next.
    EXPECT_EQ(ibs_samples(carry, 9999, 10000), 0u);
    EXPECT_EQ(ibs_samples(carry, 1, 10000), 1u);
}

TEST(IbsSamples, AKnownRateOverManyStepsGivesItsCount) {
    // 2.5 GB/s of work at 0.01 misses per byte for 4 s, in 4 ms steps: 1e8 misses, 10,000
    // samples at the default period of 10,000 ops (a sample per 10,000 L3 misses with
    // IbsOpL3MissOnly), whatever the step length.
    double carry = 0;
    uint64_t n = 0;
    const double step_misses = 2.5e9 * 0.004 * 0.01;  // 100,000 per step
    for (int i = 0; i < 1000; ++i)
        n += ibs_samples(carry, step_misses, 10000);
    EXPECT_EQ(n, 10000u);
    // The same misses at period 5,000 give twice the samples; cut into uneven steps, the same.
    carry = 0;
    n = 0;
    for (int i = 0; i < 1000; ++i)
        n += ibs_samples(carry, i % 2 ? step_misses * 0.25 : step_misses * 1.75, 5000);
    EXPECT_EQ(n, 20000u);
}

class IbsSamplePage : public ::testing::Test {
  protected:
    IbsSamplePage() {
        vma.pages = PageGeometry{};  // 4 KiB pages
        for (Region* r : {&a, &b}) {
            r->vma = &vma;
            r->count = 1000;
        }
        b.first = 1000;
    }
    Vma vma;
    Region a, b;
    Rng rng{42, "test"};
};

TEST_F(IbsSamplePage, ASweepSampleLiesInThePagesItsCursorPassedInTheStep) {
    // 10 pages' worth of bytes; the cursor now stands at page 500: pages 490-499 were passed.
    std::vector<AccessStream> s(1);
    s[0].region = &a;
    s[0].pattern = Pattern::Sweep;
    const std::vector<uint64_t> pos{500};
    const UserStep step{0, 10 * 4096.0, 1e6, s, pos};
    for (int i = 0; i < 1000; ++i) {
        const auto p = ibs_sample_page(step, rng);
        ASSERT_TRUE(p);
        EXPECT_EQ(p->stream, 0u);
        EXPECT_GE(p->page, 490u);
        EXPECT_LT(p->page, 500u);
    }
    // At the start of the region the window wraps to its end: pages 995-999 and 0-4.
    const std::vector<uint64_t> wrap{5};
    const UserStep step2{0, 10 * 4096.0, 1e6, s, wrap};
    for (int i = 0; i < 1000; ++i) {
        const auto p = ibs_sample_page(step2, rng);
        EXPECT_TRUE(p->page < 5 || p->page >= 995) << p->page;
    }
}

TEST_F(IbsSamplePage, StreamsAreDrawnByTheirShareOfTheBytes) {
    std::vector<AccessStream> s(2);
    s[0].region = &a;
    s[0].pattern = Pattern::Random;
    s[0].share = 0.25;
    s[1].region = &b;
    s[1].pattern = Pattern::Random;
    s[1].share = 0.75;
    const std::vector<uint64_t> pos{0, 0};
    const UserStep step{0, 1e6, 1e6, s, pos};
    int first = 0;
    const int n = 20000;
    for (int i = 0; i < n; ++i)
        if (ibs_sample_page(step, rng)->stream == 0) ++first;
    // Binomial(20000, 0.25): mean 5000, sd 61; five sd either way.
    EXPECT_NEAR(first, 5000, 306);
}

TEST_F(IbsSamplePage, AHotSetWithAllItsAccessesHotIsSampledInItsHotPagesOnly) {
    std::vector<AccessStream> s(1);
    s[0].region = &a;
    s[0].pattern = Pattern::HotSet;
    s[0].hot_fraction = 0.1;  // pages 0-99
    s[0].hot_share = 1.0;
    const std::vector<uint64_t> pos{0};
    const UserStep step{0, 1e6, 1e6, s, pos};
    for (int i = 0; i < 1000; ++i)
        EXPECT_LT(ibs_sample_page(step, rng)->page, 100u);
}

TEST_F(IbsSamplePage, NoStreamWithPagesNoSample) {
    const std::vector<AccessStream> none;
    const std::vector<uint64_t> pos;
    EXPECT_FALSE(ibs_sample_page(UserStep{0, 1e6, 1e6, none, pos}, rng));
    std::vector<AccessStream> empty(1);
    Region r;
    r.vma = &vma;
    empty[0].region = &r;  // no pages
    const std::vector<uint64_t> pos1{0};
    EXPECT_FALSE(ibs_sample_page(UserStep{0, 1e6, 1e6, empty, pos1}, rng));
}

}  // namespace
}  // namespace numasim
