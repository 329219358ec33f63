// The fair scheduling class, reduced to what NUMA balancing interacts with (kernel/sched/fair.c
// and core.c): enqueue/dequeue with the NUMA rq counters, the tick, wakeup and fork placement,
// moving a task between CPUs, PELT load signals, and periodic, idle and newidle load balancing
// over the sched domains with the NUMA hooks (fbq_type, migrate_degrades_locality, the NUMA
// imbalance allowance). The policy is CFS (cfs.h) or EEVDF (eevdf.h) as knobs.sched_class
// selects (features.h); this file calls either at the kernel's call sites.
#pragma once

#include <cstdint>

#include "sched/select_task_rq.h"
#include "sim/clock.h"

namespace numasim {

struct System;
struct Task;
struct SchedDomain;

// --- lifecycle ---
void wake_up_new_task(System& sys, Task& p);  // fork/clone: place (SD_BALANCE_FORK) and enqueue
// Sleeping -> runnable on the CPU select_task_rq_fair() chooses; by default woken by its own
// timer on the CPU it slept on.
void try_to_wake_up(System& sys, Task& p, const Waker& waker = {});
// curr blocks: a sleep (which EEVDF may delay, v6.12) or the exit.
void dequeue_sleeping_task(System& sys, Task& p, bool exiting = false);
void schedule(System& sys, int cpu);  // pick the next task if curr is gone or preempted

// --- tick ---
void scheduler_tick(System& sys, int cpu);  // task_tick_fair + trigger_load_balance
// For a CPU that has just ticked and runs one task which stays alone and runs on without a
// break: until when each later tick does only what SettledTicks::tick() (sched/settled_ticks.h)
// does, followed by rebalance_domains(cpu, NotIdle) once rq->next_balance falls due; that is, the
// first time a scan period falls due (sys.now if its ticks do more already: another task, a
// resched, PELT averages not at their fixed point). An idle CPU to kick is not foreseen:
// nohz_kick_flags() must be 0 at each such tick too. The engine's deferred ticks (engine/engine.h)
// rely on it.
Nanos settled_tick_until(const System& sys, int cpu);

// --- moving tasks ---
// set_task_cpu()+enqueue on dst: used by the load balancer and by NUMA migrate_task_to/swap.
// Counts a CPU migration, calls update_scan_period() on a node change, charges cache refill.
void move_task(System& sys, Task& p, int dst_cpu);
bool cpus_share_cache(const System& sys, int a, int b);

// --- load signals read by NUMA balancing (update_numa_stats, task_numa_compare) ---
unsigned long task_h_load(const System& sys, const Task& p);
unsigned long cpu_load(const System& sys, int cpu);
unsigned long cpu_runnable(const System& sys, int cpu);
unsigned long cpu_util_cfs(const System& sys, int cpu);
unsigned long capacity_of(const System& sys, int cpu);
bool idle_cpu(const System& sys, int cpu);
bool is_core_idle(const System& sys, int cpu);
bool test_idle_cores(const System& sys, int cpu);  // the LLC of cpu has a fully idle core

// --- PELT ---
void update_load_avg(System& sys, Task& p);  // brings p's averages up to sys.now
// Whether p's averages, if marked settled (SchedAvg::settled_delta), are still the fixed point
// of an update over that interval in the state and weight kept with it (the invariant checker's).
bool pelt_settle_holds(const Task& p);

// --- the NUMA imbalance allowance (v5.6+) ---
inline constexpr int NUMA_IMBALANCE_MIN = 2;  // kernel/sched/fair.c
long adjust_numa_imbalance(long imbalance, int dst_running, int imb_numa_nr);
// The v5.7-v5.10 form (fb86f5b21192): no imbalance while `nr_running` is at most
// NUMA_IMBALANCE_MIN (the source's count in v5.7-v5.9, the destination's from v5.10).
long adjust_numa_imbalance(long imbalance, int nr_running);

}  // namespace numasim
