// Simulated time: signed 64-bit nanoseconds since the start of a run, plus the kernel's tick.
#pragma once

#include <cstdint>

namespace numasim {

using Nanos = int64_t;

inline constexpr Nanos NSEC_PER_USEC = 1000;
inline constexpr Nanos NSEC_PER_MSEC = 1000 * NSEC_PER_USEC;
inline constexpr Nanos NSEC_PER_SEC = 1000 * NSEC_PER_MSEC;

// CONFIG_HZ of the distribution kernels the seed postings and the oracle ran (Debian, SUSE and
// RHEL all ship CONFIG_HZ_250). jiffies and the scheduler tick follow from it.
inline constexpr int HZ = 250;
inline constexpr Nanos TICK_NSEC = NSEC_PER_SEC / HZ;

inline constexpr int64_t ns_to_jiffies(Nanos t) {
    return t / TICK_NSEC;
}
inline constexpr Nanos msecs_to_ns(int64_t ms) {
    return ms * NSEC_PER_MSEC;
}
inline constexpr double ns_to_s(Nanos t) {
    return static_cast<double>(t) / NSEC_PER_SEC;
}

}  // namespace numasim
