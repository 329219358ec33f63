// exact_add_n: n additions of one value with the loop's bits. Hand-worked cases (a tie, a
// binade crossing, a value that never moves the sum, negative values, overflow), then a
// comparison with the loop itself on random sums, values and counts chosen where rounding is
// delicate.
#include "sim/exact_add.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>

namespace numasim {
namespace {

constexpr double kTwo52 = 4503599627370496.0;  // 2^52: the binade where u = 1
constexpr double kTwo53 = 2 * kTwo52;

double added(double s, double v, uint64_t n) {
    exact_add_n(s, v, n);
    return s;
}

double looped(double s, double v, uint64_t n) {
    for (uint64_t i = 0; i < n; ++i)
        s += v;
    return s;
}

TEST(ExactAdd, TieGoesToEvenThenAddsAConstant) {
    // From 2^52 (u = 1, m even), 2.5 is a tie: 2^52 + 2.5 goes to the even 2^52 + 2, and every
    // step after it adds 2. 200 steps: 2^52 + 400 (the real sum is 2^52 + 500).
    EXPECT_EQ(added(kTwo52, 2.5, 200), kTwo52 + 400);
    // From 2^52 + 1 (odd), 1.5: 2^52 + 2.5 goes to 2^52 + 2 (even, +1); then m is even and
    // j = 1 odd, so each step goes to m + 2 (2^52 + 3.5 -> 2^52 + 4). 1 + 1 + 199 x 2 = 400.
    EXPECT_EQ(added(kTwo52 + 1, 1.5, 200), kTwo52 + 400);
}

TEST(ExactAdd, CrossesABinade) {
    // 2^53 - 4 plus 1: 2^53 - 3, -2, -1, then 2^53 exactly. There u = 2, and 2^53 + 1 is a tie
    // that goes to the even 2^53: the sum stays there, not at 2^53 + 196.
    EXPECT_EQ(added(kTwo53 - 4, 1.0, 200), kTwo53);
    // Plus 3: 2^53 - 1, then 2^53 + 2 (= 2 (2^52 + 1), odd). 2^53 + 5 is a tie between
    // 2 (2^52 + 2) and 2 (2^52 + 3): 2^53 + 4. Now even with w = 1.5, j = 1: +4 per step for
    // the last 197. 2^53 + 4 + 788.
    EXPECT_EQ(added(kTwo53 - 4, 3.0, 200), kTwo53 + 792);
    // A power of two adds exactly while the sum's ulp is at most that value: from 1, 3 x 1024
    // steps of 2^-10 cross 2 and end at 4.
    EXPECT_EQ(added(1.0, 0x1p-10, 3 * 1024), 4.0);
}

TEST(ExactAdd, AValueBelowHalfAnUlpNeverMovesTheSum) {
    // u = 2^-52 at 1.0: a quarter of it rounds away, a half is a tie that goes to 1.0 (even).
    EXPECT_EQ(added(1.0, std::ldexp(1.0, -54), 1'000'000), 1.0);
    EXPECT_EQ(added(1.0, std::ldexp(1.0, -53), 1'000'000), 1.0);
    // The same half from 1 + u (odd) moves once, to 1 + 2u, and stays.
    const double odd = 1.0 + std::ldexp(1.0, -52);
    EXPECT_EQ(added(odd, std::ldexp(1.0, -53), 1'000'000), 1.0 + std::ldexp(1.0, -51));
}

TEST(ExactAdd, NegativeValues) {
    // The tie above with both signs flipped: rounding is symmetric.
    EXPECT_EQ(added(-kTwo52, -2.5, 200), -(kTwo52 + 400));
    // Towards zero (the loop's path): 2^52 + 1000 - 1.5 = 2^52 + 998.5 goes to the even + 998,
    // and every step takes 2 more: 2^52 + 600 after 200.
    EXPECT_EQ(added(kTwo52 + 1000, -1.5, 200), kTwo52 + 600);
    // Adding a negative value to zero: the first step makes the sum that value; quarters add
    // exactly.
    EXPECT_EQ(added(0.0, -0.25, 400), -100.0);
}

TEST(ExactAdd, OverflowsToInfinity) {
    // The largest double has an odd significand; half its ulp (2^970) is a tie that rounds to
    // the even 2^1024, which is out of range: infinity.
    const double max = std::numeric_limits<double>::max();
    EXPECT_EQ(added(max, std::ldexp(1.0, 970), 200), std::numeric_limits<double>::infinity());
    EXPECT_EQ(added(-max, -std::ldexp(1.0, 970), 200), -std::numeric_limits<double>::infinity());
}

// Values chosen where rounding is delicate: near binade ends, ties and near-ties in the sum's
// units, subnormals, zeros, the other sign, infinities and NaN.
class Triples {
  public:
    explicit Triples(uint64_t seed) : rng_(seed) {}

    double sum() {
        const double sign = coin() ? -1.0 : 1.0;
        switch (pick(8)) {
            case 0:
                return sign * 0.0;
            case 1:  // subnormal
                return sign * std::bit_cast<double>(rng_() & ((uint64_t{1} << 52) - 1));
            case 2: {  // just below or at the end of a binade
                const double end = std::ldexp(1.0, exponent());
                return sign * (end - static_cast<double>(pick(64)) * ulp(end / 2));
            }
            case 3:  // near the largest double
                return sign * (std::numeric_limits<double>::max() -
                               static_cast<double>(pick(8)) * std::ldexp(1.0, 971));
            case 4:  // near the smallest normal
                return sign * std::ldexp(1.0 + static_cast<double>(pick(1000)) * 0x1p-52, -1022);
            default:
                return sign * std::ldexp(1.0 + uniform(), exponent());
        }
    }

    double value(double s) {
        const double sign = coin() ? -1.0 : 1.0;
        const double mag = std::fabs(s) > 0 ? std::fabs(s) : std::ldexp(1.0, exponent());
        const double u = ulp(mag);
        switch (pick(10)) {
            case 0:  // a tie in the sum's units
                return sign * (static_cast<double>(pick(16)) + 0.5) * u;
            case 1:  // a tie far from the first units
                return sign * (static_cast<double>(rng_() >> 20) + 0.5) * u;
            case 2:  // a whole number of units
                return sign * static_cast<double>(1 + pick(1000)) * u;
            case 3:  // just off a tie
                return sign * (static_cast<double>(pick(8)) + 0.5) * u *
                       (1 + (coin() ? 1 : -1) * 0x1p-40);
            case 4:  // subnormal
                return sign * std::bit_cast<double>(rng_() & ((uint64_t{1} << 52) - 1));
            case 5:
                return sign * 0.0;
            case 6:
                return pick(4) == 0 ? std::numeric_limits<double>::quiet_NaN()
                                    : sign * std::numeric_limits<double>::infinity();
            default:  // a random fraction of the sum, from about its size to far below its ulp
                return sign * std::ldexp(mag * (0.5 + uniform()), -static_cast<int>(pick(64)));
        }
    }

    uint64_t count(uint64_t max) {  // log-uniform in [0, max]
        return static_cast<uint64_t>(std::exp(uniform() * std::log(static_cast<double>(max) + 1))) -
               1;
    }

  private:
    static double ulp(double x) {
        return std::nextafter(x, std::numeric_limits<double>::infinity()) - x;
    }
    uint64_t pick(uint64_t n) { return rng_() % n; }
    bool coin() { return rng_() & 1; }
    double uniform() { return std::uniform_real_distribution<double>(0, 1)(rng_); }
    // Mostly binades of everyday figures, some at either end of the range.
    int exponent() {
        switch (pick(4)) {
            case 0:
                return -1021 + static_cast<int>(pick(8));
            case 1:
                return 1016 + static_cast<int>(pick(8));
            default:
                return static_cast<int>(pick(120)) - 60;
        }
    }

    std::mt19937_64 rng_;
};

void expect_same_bits(double s, double v, uint64_t n) {
    const double want = looped(s, v, n);
    const double got = added(s, v, n);
    EXPECT_EQ(std::bit_cast<uint64_t>(got), std::bit_cast<uint64_t>(want))
        << std::hexfloat << "s " << s << " v " << v << " n " << n << ": " << got << " for " << want;
}

TEST(ExactAdd, SameBitsAsTheLoopOnShortRuns) {
    Triples t(0x5eed'0001);
    for (int i = 0; i < 500'000 && !HasFailure(); ++i) {
        const double s = t.sum();
        const double v = t.value(s);
        expect_same_bits(s, v, t.count(1024));
    }
}

TEST(ExactAdd, SameBitsAsTheLoopOnLongRuns) {
    Triples t(0x5eed'0002);
    for (int i = 0; i < 20'000 && !HasFailure(); ++i) {
        const double s = t.sum();
        const double v = t.value(s);
        expect_same_bits(s, v, t.count(100'000));
    }
}

}  // namespace
}  // namespace numasim
