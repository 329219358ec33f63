// Fair-class tunables and their defaults (kernel/sched/fair.c), scaled as SCHED_TUNABLESCALING_LOG
// does: factor = 1 + ilog2(min(nr_cpus, 8)).
#pragma once

#include "sim/clock.h"

namespace numasim {

inline constexpr Nanos SYSCTL_SCHED_LATENCY = 6 * NSEC_PER_MSEC;
inline constexpr Nanos SYSCTL_SCHED_MIN_GRANULARITY = 750 * NSEC_PER_USEC;
inline constexpr Nanos SYSCTL_SCHED_WAKEUP_GRANULARITY = 1 * NSEC_PER_MSEC;
// EEVDF's request size (v6.6, e4ec3318a17f renamed min_granularity to base_slice; same value).
inline constexpr Nanos SYSCTL_SCHED_BASE_SLICE = 750 * NSEC_PER_USEC;
inline constexpr Nanos SYSCTL_SCHED_MIGRATION_COST = 500 * NSEC_PER_USEC;  // task_hot()
// PELT: the contribution of a period halves after 32 ms (y^32 = 0.5).
inline constexpr double PELT_HALFLIFE_NS = 32.0 * NSEC_PER_MSEC;

int sched_tunable_factor(int nr_cpus);
Nanos sysctl_sched_base_slice(int nr_cpus);  // SYSCTL_SCHED_BASE_SLICE x the factor

}  // namespace numasim
