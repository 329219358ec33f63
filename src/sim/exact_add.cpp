#include "sim/exact_add.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace numasim::exact_add_detail {

namespace {

// IEEE 754 binary64: 52 stored fraction bits, an 11-bit biased exponent, the sign on top.
constexpr int kFractionBits = 52;
constexpr uint64_t kFractionMask = (uint64_t{1} << kFractionBits) - 1;
constexpr uint64_t kExponentMask = 0x7ff;  // all ones: infinity or NaN
constexpr uint64_t kSignBit = uint64_t{1} << 63;
// A normal double is m 2^(E - 1075), m in [2^52, 2^53) (the hidden bit set), E its biased
// exponent; a subnormal is m 2^(1 - 1075), m < 2^52.
constexpr uint64_t kHiddenBit = uint64_t{1} << kFractionBits;
constexpr uint64_t kBinadeEnd = uint64_t{1} << (kFractionBits + 1);
// While |s| < 64 |v| the sum's binade holds fewer than 32 steps and it crosses one about every
// doubling, so the loop leads until the sum is that large.
constexpr double kLeadRatio = 64;

}  // namespace

void exact_add_many(double& sum, double v, uint64_t n) {
    double s = sum;
    // NaN (a zero or NaN among them) leads no step: the checks below see to those.
    const double lead = kLeadRatio - std::fabs(s) / std::fabs(v);
    if (lead > 0) {
        const uint64_t steps = lead >= static_cast<double>(n) ? n : static_cast<uint64_t>(lead) + 1;
        for (uint64_t i = 0; i < steps; ++i)
            s += v;
        n -= steps;
    }
    while (n >= kMinSteps) {
        const auto sb = std::bit_cast<uint64_t>(s);
        const auto vb = std::bit_cast<uint64_t>(v);
        const uint64_t se = (sb >> kFractionBits) & kExponentMask;
        const uint64_t ve = (vb >> kFractionBits) & kExponentMask;
        if (se == kExponentMask || ve == kExponentMask) break;
        if ((vb & ~kSignBit) == 0) {  // a zero: the first step settles the sign of a zero sum
            s += v;
            n = 0;
            break;
        }
        if (se == 0) {  // zero or subnormal: one step
            s += v;
            --n;
            continue;
        }
        if ((sb ^ vb) & kSignBit) break;  // towards zero: binades shrink
        // Rounding is symmetric in sign: work on magnitudes, the sign bit is put back.
        const uint64_t sign = sb & kSignBit;
        uint64_t m = (sb & kFractionMask) | kHiddenBit;  // s = m u, u = 2^(se - 1075)
        const uint64_t mv = ve == 0 ? vb & kFractionMask : (vb & kFractionMask) | kHiddenBit;
        // v = mv 2^d u (a subnormal's exponent is that of the smallest normals).
        const int d = static_cast<int>(ve == 0 ? 1 : ve) - static_cast<int>(se);
        // w = v/u: its floor and ceiling, whether it is a tie (j + 1/2) or above one.
        uint64_t j = 0;
        uint64_t ceil_w = 0;
        bool tie = false;
        bool up = false;
        if (d >= 0) {
            if (d > kFractionBits + 1 || mv > (kBinadeEnd >> d)) {  // w > 2^53: one step
                s += v;
                --n;
                continue;
            }
            j = ceil_w = mv << d;
        } else {
            const int sh = -d;
            if (sh > kFractionBits + 1) {  // w < 2^53 / 2^54 = 1/2: s + v = s, for ever
                n = 0;
                break;
            }
            j = mv >> sh;
            const uint64_t rem = mv & ((uint64_t{1} << sh) - 1);
            const uint64_t half = uint64_t{1} << (sh - 1);
            tie = rem == half;
            up = rem > half;
            ceil_w = j + (rem != 0);
        }
        uint64_t k = j + up;  // the step in units of u
        if (tie) {
            if (m & 1) {  // the one step that looks at m's parity
                s += v;
                --n;
                continue;
            }
            k = j + (j & 1);
        }
        if (k == 0) {  // s + v = s, and so for ever
            n = 0;
            break;
        }
        // A step from m stays within the binade when m + w <= 2^53, i.e. m + ceil(w) <= 2^53.
        if (m + ceil_w > kBinadeEnd) {  // this step leaves it
            s += v;
            --n;
            continue;
        }
        // Steps i = 0 .. c-1 start at m + i k; k <= ceil(w), so m + c k <= 2^53.
        const uint64_t c = std::min(n, (kBinadeEnd - m - ceil_w) / k + 1);
        m += c * k;
        n -= c;
        // 2^53 u is the first double of the next binade (infinity past the largest binade).
        const uint64_t bits = m == kBinadeEnd ? (se + 1) << kFractionBits
                                              : (se << kFractionBits) | (m & kFractionMask);
        s = std::bit_cast<double>(sign | bits);
    }
    for (; n > 0; --n)
        s += v;
    sum = s;
}

}  // namespace numasim::exact_add_detail
