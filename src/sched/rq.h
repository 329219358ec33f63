// A per-CPU runqueue (struct rq with its cfs_rq folded in): the running task, the runnable
// tasks ordered by vruntime, and the NUMA counters the load balancer reads.
#pragma once

#include <cstdint>
#include <vector>

#include "sched/wakee.h"
#include "sim/clock.h"

namespace numasim {

struct Mm;
struct Task;

inline constexpr unsigned long SCHED_CAPACITY_SCALE = 1024;  // capacity of one CPU

struct alignas(64) Rq {
    int cpu = 0;
    Task* curr = nullptr;               // nullptr when idle
    std::vector<Task*> queued;          // runnable, not running; unordered (few per CPU)
    unsigned nr_running = 0;            // cfs h_nr_running, curr included
    unsigned nr_numa_running = 0;       // tasks with a preferred node
    unsigned nr_preferred_running = 0;  // tasks running on their preferred node
    bool numa_migrate_on = false;       // a NUMA search has picked this CPU as destination
    bool need_resched = false;
    // NO_HZ idle (sched/nohz.h): the tick is stopped and the CPU is in nohz.idle_cpus_mask; it
    // stays set until the CPU's first busy tick (nohz_balance_exit_idle).
    bool nohz_tick_stopped = false;
    bool nohz_idle = false;  // sd->nohz_idle of the CPU's LLC domain: not in nr_busy_cpus
    // The engine holds back this CPU's ticks and clock (System::catch_up_cpu plays them).
    bool ticks_deferred = false;
    unsigned nohz_flags = 0;  // NOHZ_*_KICK asked of this CPU as idle load balancer
    // (The fields above are what every tick reads of every CPU: one cache line.)
    double min_vruntime = 0;
    Nanos clock = 0;  // time up to which this CPU has been simulated
    unsigned long cpu_capacity = SCHED_CAPACITY_SCALE;
    WakeeFlips idle_wakee;  // the idle task's record_wakee() state: it wakes from interrupts
    uint64_t nr_switches = 0;
    // CPU time its tasks ran here (update_curr's deltas; kswapd's thread among them): what
    // /proc/stat shows as not idle.
    Nanos busy_time = 0;
    // Time work that is no task of the model (a placement daemon's pass, kernel/agent_calls.h)
    // takes on this CPU before what runs here goes on: the task waits without being charged,
    // as if preempted.
    Nanos kthread_debt = 0;
    Mm* loaded_mm = nullptr;  // cpu_tlbstate.loaded_mm: this CPU is in its mm_cpumask (mm/tlb.h)
    // sd->last_balance of each domain level: when this CPU last balanced there. Whether a level
    // is due depends on whether the CPU is busy when it looks (get_sd_balance_interval()).
    std::vector<Nanos> last_balance;
    Nanos next_balance = 0;  // rq->next_balance: when the earliest level falls due
    std::vector<unsigned> balance_interval_ms;
    std::vector<unsigned> nr_balance_failed;
};

}  // namespace numasim
