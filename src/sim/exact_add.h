// n additions of one value, `s += v` one after the other, with the loop's bits (IEEE double,
// round to nearest, ties to even) but a cost that follows the binades the sum crosses, not n.
//
// Why it is exact: inside one binade [2^e, 2^(e+1)) every double is a multiple of u = 2^(e-52)
// and so is v, scaled: v = w u with w a binary fraction. The sum s + v = (m + w) u, with m = s/u
// an integer, rounds to m + k where k = w rounded to the nearest integer, whatever m is, as long
// as m + w stays within the binade (a sum that reaches 2^(e+1) exactly is a multiple of u too).
// Only a tie, w = j + 1/2, looks at m: it goes to the even one of m + j and m + j + 1. After it m
// is even, and every further step adds j when j is even and j + 1 when j is odd: a constant
// again. So the steps that keep the sum within the binade are one integer product; the step
// that leaves it is taken as a double addition; then the next binade, and so on.
//
// The loop itself where it is cheaper (fewer than 128 steps left; a sum below 64 |v|, whose
// binades hold few steps) and for what this does not reason about: NaN and infinities, a sum
// that moves towards zero (v of the other sign). A zero or subnormal sum takes one step at a
// time until it is normal.
#pragma once

#include <cstdint>

namespace numasim {

namespace exact_add_detail {

// A step of the loop is 4 instructions; a call that reasons costs 130 to 280 (callgrind, GCC 12
// -O3, one to three binades): below 128 steps the loop is cheaper, or not dearer by much.
inline constexpr uint64_t kMinSteps = 128;

// The path for kMinSteps steps and more (exact_add.cpp): out of line, so that the callers'
// loops stay as they were for the short runs that are most calls.
void exact_add_many(double& sum, double v, uint64_t n);

}  // namespace exact_add_detail

// Adds `v` to `s` `n` times: the bits of `for (i < n) s += v`.
inline void exact_add_n(double& sum, double v, uint64_t n) {
    if (n >= exact_add_detail::kMinSteps) {
        exact_add_detail::exact_add_many(sum, v, n);
        return;
    }
    double s = sum;
    for (; n > 0; --n)
        s += v;
    sum = s;
}

}  // namespace numasim
