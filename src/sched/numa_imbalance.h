// The NUMA imbalance allowance: how far the NUMA groups of a domain may stay imbalanced so that
// tasks that communicate share a node while it has room (kernel/sched/fair.c,
// adjust_numa_imbalance() and its callers). knobs.numa_imbalance selects the release's rules,
// and these functions are the only place that reads it:
//
//   none           before v5.6: no allowance anywhere.
//   imbalance_pct  Mel Gorman's first posting (2019-12-18): the balancer ignores an imbalance of
//                  at most half of (imbalance_pct - 100) % of the busiest group's CPUs (at
//                  least 2) while that group runs fewer than half its CPUs less that amount.
//   busiest_min    v5.6 (b396f52326de): the balancer ignores the imbalance while the busiest
//                  group runs at most NUMA_IMBALANCE_MIN (2) tasks.
//   src_min        v5.7 (fb86f5b21192): the same, and task_numa_find_cpu ignores it while the
//                  source would run at most 2 tasks after the move.
//   fixed          v5.10 (233e7aca4c8a): task_numa_find_cpu asks about the destination after
//                  the move instead; fork placement keeps a task in its NUMA group while the
//                  group has an idle CPU.
//   imb_numa_nr    v5.18+ (e496132ebedd): an imbalance of at most NUMA_IMBALANCE_MIN counts as
//                  none while the destination runs at most sd->imb_numa_nr tasks: counted after
//                  the move in task_numa_find_cpu, as the local group plus the pulled task in
//                  calculate_imbalance, and as the local group plus the new task in fork
//                  placement, where imb_numa_nr is capped at the task's allowed CPUs.
//
// v5.11 to v5.17 allowed a floating imbalance of a quarter of the destination's CPUs
// (7d2b5dd0bcc4, 2cfb7a1b031b); no value models those releases. Fork placement in v5.5 to v5.10
// kept a task in its NUMA group while the group had an idle CPU, a rule of v5.5's
// find_idlest_group() rework rather than of the allowance; only `fixed` applies it, the earlier
// values keep the generic group rule.
#pragma once

#include "numab/knobs.h"

namespace numasim {

struct SchedDomain;
struct SgStats;

// task_numa_find_cpu(): the imbalance a move leaves; `src_running` and `dst_running` count the
// two nodes after the move.
long numa_move_imbalance(const NumaBalancingKnobs& k, long imbalance, int src_running,
                         int dst_running, int imb_numa_nr);

// calculate_imbalance() in a NUMA domain whose local group has spare capacity: the number of
// tasks to move for a task or idle-CPU difference of `imbalance`.
long numa_balance_imbalance(const NumaBalancingKnobs& k, const SchedDomain& sd, long imbalance,
                            const SgStats& busiest, const SgStats& local);

// Whether find_idlest_group() has NUMA rules for a domain whose local and idlest groups both
// have spare capacity (the preferred-node checks, then numa_fork_spreads).
bool numa_fork_rules(const NumaBalancingKnobs& k);
// find_idlest_group() in such a domain, once the preferred node decided nothing: whether a new
// task leaves the local group for the idlest one.
bool numa_fork_spreads(const NumaBalancingKnobs& k, unsigned local_running, unsigned local_idle,
                       unsigned idlest_idle, int imb_numa_nr, int nr_cpus_allowed);

}  // namespace numasim
