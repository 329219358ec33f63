// The key popularity of a key-value cache driven by memtier_benchmark's Zipfian key pattern
// (--key-pattern Z, --key-zipf-exp), and where the keys' items lie in the server's memory.
// memtier draws key k of 1..N with probability k^-s / H(N, s) (obj_gen.cpp's rejection-inversion
// sampler is exact); a shift of the hot set by `offset` keys makes key (r - 1 + offset) mod N + 1
// the r-th most popular. docs/workloads/kv-cache.md.
#pragma once

#include <cstdint>

namespace numasim {

// H(n, s) = sum_{k=1..n} k^-s: exact up to a few thousand terms, Euler-Maclaurin beyond.
double generalized_harmonic(uint64_t n, double s);

// Keys 0..n-1 (key index k is memtier's key k + 1) with rank r (0-based) at key (r + offset)
// mod n: the share of the draws that fall on keys [0, x), x in [0, n] and fractional (the part
// of a key below x takes that part of its share: an item's bytes on either side of a page
// boundary).
double zipf_key_cdf(uint64_t n, double s, uint64_t offset, double x);

}  // namespace numasim
