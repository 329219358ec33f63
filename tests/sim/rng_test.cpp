// Rng: reproducible named streams and the moments of each distribution.
#include "sim/rng.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <vector>

namespace numasim {
namespace {

std::vector<uint64_t> draws(Rng r, int n) {
    std::vector<uint64_t> v;
    for (int i = 0; i < n; ++i)
        v.push_back(r.next_u64());
    return v;
}

TEST(Rng, SameSeedAndStreamGiveSameSequence) {
    EXPECT_EQ(draws(Rng(42, "sched"), 100), draws(Rng(42, "sched"), 100));
}

TEST(Rng, DifferentStreamOrSeedDiffers) {
    const auto a = draws(Rng(42, "sched"), 16);
    EXPECT_NE(a, draws(Rng(42, "engine.access"), 16));
    EXPECT_NE(a, draws(Rng(43, "sched"), 16));
    // Not merely shifted: no value of one stream's first 16 appears in the other's.
    const auto b = draws(Rng(42, "engine.access"), 16);
    const std::set<uint64_t> sa(a.begin(), a.end());
    for (uint64_t x : b)
        EXPECT_FALSE(sa.count(x));
}

TEST(Rng, UniformInUnitInterval) {
    Rng r(1, "u");
    double sum = 0;
    const int n = 100000;
    for (int i = 0; i < n; ++i) {
        const double u = r.uniform();
        ASSERT_GE(u, 0.0);
        ASSERT_LT(u, 1.0);
        sum += u;
    }
    // Mean 1/2, sd of the mean sqrt(1/12 / n) = 0.00091; allow 5 sd.
    EXPECT_NEAR(sum / n, 0.5, 0.0046);
}

TEST(Rng, BelowStaysInRangeAndCoversIt) {
    Rng r(2, "below");
    std::vector<int> hist(7, 0);
    const int n = 70000;
    for (int i = 0; i < n; ++i) {
        const uint64_t v = r.below(7);
        ASSERT_LT(v, 7u);
        ++hist[v];
    }
    // Each value expected 10000 times, sd sqrt(70000 * 1/7 * 6/7) = 92.6; allow 5 sd.
    for (int h : hist)
        EXPECT_NEAR(h, 10000, 463);
    for (int i = 0; i < 100; ++i)
        EXPECT_EQ(r.below(1), 0u);
    // A bound that is not a power of two near 2^64 still stays in range.
    const uint64_t big = (uint64_t{1} << 63) + 12345;
    for (int i = 0; i < 1000; ++i)
        EXPECT_LT(r.below(big), big);
}

TEST(Rng, BernoulliEdges) {
    Rng r(3, "b");
    for (int i = 0; i < 100; ++i) {
        EXPECT_FALSE(r.bernoulli(0.0));
        EXPECT_TRUE(r.bernoulli(1.0));
    }
}

TEST(Rng, GeometricOfOneIsZeroAndMeanMatches) {
    Rng r(4, "g");
    for (int i = 0; i < 100; ++i)
        EXPECT_EQ(r.geometric(1.0), 0u);
    // Failures before the first success: mean (1 - p) / p = 3 for p = 0.25; variance
    // (1 - p) / p^2 = 12, sd of the mean over 50000 draws = 0.0155; allow 5 sd.
    double sum = 0;
    const int n = 50000;
    for (int i = 0; i < n; ++i)
        sum += static_cast<double>(r.geometric(0.25));
    EXPECT_NEAR(sum / n, 3.0, 0.078);
}

TEST(Rng, GeometricDrawsDependOnlyOnTheirOwnP) {
    // Inversion: floor(log(u) / log(1 - p)) with u = 1 - uniform(), whatever p the draw before
    // had (geometric keeps log1p(-p) for the last p).
    Rng a(6, "g"), b(6, "g");
    for (double p : {0.25, 0.25, 0.01, 0.25, 0.5, 0.5, 0.01}) {
        const double u = 1.0 - b.uniform();
        EXPECT_EQ(a.geometric(p), static_cast<uint64_t>(std::floor(std::log(u) / std::log1p(-p))))
            << p;
    }
}

TEST(Rng, ExponentialMean) {
    Rng r(5, "e");
    double sum = 0;
    const int n = 50000;
    for (int i = 0; i < n; ++i)
        sum += r.exponential(4.0);
    // Mean 1/4, sd 1/4, sd of the mean 0.25 / sqrt(50000) = 0.00112; allow 5 sd.
    EXPECT_NEAR(sum / n, 0.25, 0.0056);
}

struct Moments {
    double mean, var;
};

template <typename F>
Moments moments(int n, F f) {
    double s = 0, s2 = 0;
    for (int i = 0; i < n; ++i) {
        const double x = static_cast<double>(f());
        s += x;
        s2 += x * x;
    }
    const double m = s / n;
    return {m, s2 / n - m * m};
}

TEST(Rng, BinomialMeanOnEveryPath) {
    Rng r(6, "binomial");
    const int n = 20000;
    // n <= 64: Bernoulli sum. Mean 50 * 0.2 = 10, var 8, sd of the mean 0.02.
    auto a = moments(n, [&] { return r.binomial(50, 0.2); });
    EXPECT_NEAR(a.mean, 10.0, 0.1);
    EXPECT_NEAR(a.var, 8.0, 0.5);
    // Mean < 30 with n > 64: geometric gaps. Mean 1000 * 0.01 = 10, var 9.9.
    auto b = moments(n, [&] { return r.binomial(1000, 0.01); });
    EXPECT_NEAR(b.mean, 10.0, 0.11);
    EXPECT_NEAR(b.var, 9.9, 0.6);
    // Normal approximation. Mean 1000 * 0.3 = 300, var 210, sd of the mean 0.102.
    auto c = moments(n, [&] { return r.binomial(1000, 0.3); });
    EXPECT_NEAR(c.mean, 300.0, 0.52);
    EXPECT_NEAR(c.var, 210.0, 12.0);
    // p > 1/2 goes through n - binomial(n, 1 - p): mean 1000 * 0.9 = 900.
    auto d = moments(n, [&] { return r.binomial(1000, 0.9); });
    EXPECT_NEAR(d.mean, 900.0, 0.3);
    // Degenerate cases.
    EXPECT_EQ(r.binomial(0, 0.5), 0u);
    EXPECT_EQ(r.binomial(100, 0.0), 0u);
    EXPECT_EQ(r.binomial(100, 1.0), 100u);
    for (int i = 0; i < 1000; ++i)
        EXPECT_LE(r.binomial(40, 0.95), 40u);
}

TEST(Rng, PoissonMeanOnBothPaths) {
    Rng r(7, "poisson");
    const int n = 20000;
    // Knuth's method: mean = var = 4, sd of the mean 0.014.
    auto a = moments(n, [&] { return r.poisson(4.0); });
    EXPECT_NEAR(a.mean, 4.0, 0.071);
    EXPECT_NEAR(a.var, 4.0, 0.3);
    // Normal approximation: mean = var = 100, sd of the mean 0.0707.
    auto b = moments(n, [&] { return r.poisson(100.0); });
    EXPECT_NEAR(b.mean, 100.0, 0.36);
    EXPECT_NEAR(b.var, 100.0, 6.0);
    EXPECT_EQ(r.poisson(0.0), 0u);
    EXPECT_EQ(r.poisson(-1.0), 0u);
}

TEST(Rng, DeriveSeedIsDeterministicAndDistinct) {
    EXPECT_EQ(derive_seed(7, 3), derive_seed(7, 3));
    std::set<uint64_t> seen;
    for (uint64_t base : {0ULL, 1ULL, 7ULL, 0xdeadbeefULL})
        for (uint64_t i = 0; i < 1000; ++i)
            seen.insert(derive_seed(base, i));
    EXPECT_EQ(seen.size(), 4000u);
    EXPECT_NE(derive_seed(0, 0), 0u);
}

TEST(Rng, DefaultConstructedIsSeedZeroEmptyStream) {
    EXPECT_EQ(draws(Rng(), 8), draws(Rng(0, ""), 8));
}

}  // namespace
}  // namespace numasim
