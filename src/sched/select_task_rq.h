// select_task_rq_fair() for a wake-up (kernel/sched/fair.c; SD_BALANCE_WAKE in v4.x, WF_TTWU
// from v5.10): the waker records its wakee (record_wakee), a waker and wakee that switch
// partners more often than the LLC has CPUs spread out (wake_wide); otherwise the lowest domain
// of the waker's CPU that has SD_WAKE_AFFINE and spans the wakee's previous CPU lets
// wake_affine() choose between the two CPUs, and select_idle_sibling() looks for an idle CPU
// around the choice. No level of the model has SD_BALANCE_WAKE (none has in the kernel), so
// the slow path (find_idlest_cpu) never runs for a wake-up.
#pragma once

#include <cstdint>

#include "sim/clock.h"

namespace numasim {

struct System;
struct Task;
struct SchedDomain;
struct WakeeFlips;

// Who calls try_to_wake_up(): the CPU it runs on (smp_processor_id()) and `current` there, a
// task, or that CPU's idle task (nullptr) for an interrupt on an idle CPU; sync is WF_SYNC (the
// waker will sleep soon: pipe and socket wake-ups; a futex wake is not sync). cpu -1: the
// sleeper's own timer, which fires on the CPU it slept on (timer_waker).
struct Waker {
    int cpu = -1;
    Task* task = nullptr;
    bool sync = false;
};
Waker timer_waker(const System& sys, const Task& p);

// record_wakee() halves a waker's flips once per HZ jiffies: one second.
inline constexpr Nanos WAKEE_FLIP_DECAY_NS = NSEC_PER_SEC;
void record_wakee(WakeeFlips& current, const Task& p, Nanos now);
// wake_wide(): both flip counts reach llc_size and one is llc_size times the other.
bool wake_wide(unsigned waker_flips, unsigned wakee_flips, int llc_size);

// nr_cpumask_bits of wake_affine_idle() and wake_affine_weight(): no CPU preferred.
inline constexpr int WAKE_AFFINE_NONE = -1;
int wake_affine_idle(const System& sys, int this_cpu, int prev_cpu, bool sync);
int wake_affine_weight(const System& sys, const SchedDomain& sd, const Task& p, const Task* current,
                       int this_cpu, int prev_cpu, bool sync);
// WA_IDLE then WA_WEIGHT (both on by default since v4.15); counts the schedstats.
int wake_affine(System& sys, const SchedDomain& sd, Task& p, const Task* current, int this_cpu,
                int prev_cpu, bool sync);

// The target if idle, then prev if idle and sharing the target's cache, then p's
// recent_used_cpu likewise, then an idle core of the target's LLC, then any idle CPU there.
int select_idle_sibling(System& sys, Task& p, int prev, int target);

int select_task_rq_fair(System& sys, Task& p, int prev_cpu, const Waker& w);

}  // namespace numasim
