// The (cpu, pid) tag a folio keeps of the last task that took a NUMA hinting fault on it, as in
// include/linux/mm.h: cpupid = (cpu << LAST__PID_SHIFT) | (pid & LAST__PID_MASK). Only the low
// 8 bits of the pid are kept, so unrelated tasks collide 1 time in 256, and the model keeps that.
#pragma once

#include <cstdint>

namespace numasim {

using cpupid_t = uint32_t;

inline constexpr int LAST__PID_SHIFT = 8;  // include/linux/mm.h
inline constexpr uint32_t LAST__PID_MASK = (1u << LAST__PID_SHIFT) - 1;
inline constexpr int LAST__CPU_SHIFT = 24 - LAST__PID_SHIFT;  // NR_CPUS_BITS in a 24-bit field
inline constexpr uint32_t LAST__CPU_MASK = (1u << LAST__CPU_SHIFT) - 1;
inline constexpr uint32_t LAST_CPUPID_MASK = (1u << (LAST__PID_SHIFT + LAST__CPU_SHIFT)) - 1;
// "-1 & LAST_CPUPID_MASK": the value of a folio that has never taken a hinting fault.
inline constexpr cpupid_t CPUPID_UNSET = LAST_CPUPID_MASK;

inline constexpr cpupid_t cpu_pid_to_cpupid(int cpu, int pid) {
    return ((static_cast<uint32_t>(cpu) & LAST__CPU_MASK) << LAST__PID_SHIFT) |
           (static_cast<uint32_t>(pid) & LAST__PID_MASK);
}
inline constexpr int cpupid_to_pid(cpupid_t c) {
    return static_cast<int>(c & LAST__PID_MASK);
}
inline constexpr int cpupid_to_cpu(cpupid_t c) {
    return static_cast<int>((c >> LAST__PID_SHIFT) & LAST__CPU_MASK);
}
inline constexpr bool cpupid_pid_unset(cpupid_t c) {
    return cpupid_to_pid(c) == static_cast<int>(LAST__PID_MASK);
}
// A stored cpupid whose CPU field is beyond the machine (the unset value) is not a real CPU.
inline constexpr bool cpupid_valid(cpupid_t c, int nr_cpu_ids) {
    return cpupid_to_cpu(c) < nr_cpu_ids;
}
// Memory tiering mode keeps a scan time in ms in a slow-tier folio's cpupid field instead
// (include/linux/mm.h, v6.0+): in buckets of 2^PAGE_ACCESS_TIME_BUCKETS ms when the field is
// narrower than PAGE_ACCESS_TIME_MIN_BITS, else to the ms. With the 24-bit field the times are
// exact and wrap every 2^24 ms (4 h 40 min), so a latency is taken modulo that.
inline constexpr int LAST_CPUPID_SHIFT = LAST__PID_SHIFT + LAST__CPU_SHIFT;
inline constexpr int PAGE_ACCESS_TIME_MIN_BITS = 12;
inline constexpr int PAGE_ACCESS_TIME_BUCKETS = LAST_CPUPID_SHIFT < PAGE_ACCESS_TIME_MIN_BITS
                                                    ? PAGE_ACCESS_TIME_MIN_BITS - LAST_CPUPID_SHIFT
                                                    : 0;
inline constexpr uint32_t PAGE_ACCESS_TIME_MASK = LAST_CPUPID_MASK << PAGE_ACCESS_TIME_BUCKETS;

inline constexpr bool cpupid_match_pid(int task_pid, cpupid_t c) {
    return (static_cast<uint32_t>(task_pid) & LAST__PID_MASK) ==
           static_cast<uint32_t>(cpupid_to_pid(c));
}

}  // namespace numasim
