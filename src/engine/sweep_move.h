// A sweep stream's cursor moved by the bytes of one step: the arithmetic of
// Engine::sweep_cursor(), shared with the deferred ticks' replay, which keeps the carry and the
// cursor in registers over a run of held steps and must give the same bits.
#pragma once

#include <algorithm>
#include <cstdint>

namespace numasim {

// Moves the cursor `pos` (below `count`, the region's pages) by `sb` bytes plus the `carry` of
// bytes short of the next page, for pages of `size` bytes (`inv_size` = 1 / size, exact).
// Returns the pages passed (0: none), the first of them in `start`.
inline uint64_t sweep_move(double& carry, uint64_t& pos, double sb, double inv_size, double size,
                           uint64_t count, uint64_t& start) {
    const double pages_f = (carry + sb) * inv_size;
    // Never negative: the signed conversion truncates the same, in fewer steps.
    uint64_t n = static_cast<uint64_t>(static_cast<int64_t>(pages_f));
    carry = (pages_f - static_cast<double>(n)) * size;
    if (n == 0 || count == 0) return 0;
    n = std::min(n, count);
    start = pos;
    // The cursor stays below count, so only a wrap needs the remainder.
    pos = start + n < count ? start + n : (start + n) % count;
    return n;
}

}  // namespace numasim
