// Load balancing across the sched domains (kernel/sched/fair.c, "sched_balance_*" since v6.10):
// the periodic balance from the tick, newidle balance when a CPU runs out of work, and the
// fork-time search for the idlest CPU, each with the NUMA hooks.
#pragma once

namespace numasim {

struct System;
struct Task;

enum class GroupType { HasSpare = 0, FullyBusy = 1, Overloaded = 2 };
enum class CpuIdleType { NotIdle, Idle, NewlyIdle };

// The sd_flag of select_task_rq_fair()'s slow path: the search starts at the highest of the
// CPU's domains that carries the flag (each level below it carrying it too) and skips a level
// without it. kAnyDomain searches from the top level: the model's stand-in for
// select_fallback_rq() when a task's CPU leaves its affinity mask.
enum class SdFlag { kBalanceFork, kBalanceExec, kAnyDomain };

// find_idlest_cpu() / sched_balance_find_dst_cpu(): fork and exec placement.
int find_idlest_cpu(System& sys, const Task& p, int prev_cpu, SdFlag flag);
// From the tick: rebalance_domains() for this CPU, and nohz_balancer_kick() with the `nohz` knob.
void trigger_load_balance(System& sys, int cpu);
// load_balance() at every level of cpu's domains whose interval has expired, then the next
// balance time of each level; `idle` as the CPU is (the ilb passes Idle for a nohz-idle CPU).
void rebalance_domains(System& sys, int cpu, CpuIdleType idle);
// sched_balance_newidle(): pull work to a CPU that is about to go idle.
void newidle_balance(System& sys, int cpu);

}  // namespace numasim
