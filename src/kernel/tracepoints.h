// The scheduler and migration tracepoints (include/trace/events/sched.h, migrate.h), fired
// where the kernel fires them. Each returns at once when its event is not enabled. The four
// NUMA-balancing events are in numab/numab.h, beside the counters they also bump; reclaim's
// (vmscan.h) in mm/vmscan.cpp, through trace_event_on_cpu.
#pragma once

#include <cstdint>

#include "kernel/trace_event.h"

namespace numasim {

struct System;
struct Task;

// A task leaves `cpu`: it sleeps, exits or is moved away. The sched_switch itself is emitted by
// trace_sched_settle() once schedule() has picked what runs next.
void trace_sched_left_cpu(System& sys, int cpu, const Task& p, SwitchOutState s);
// End of schedule() on `cpu`: sched_switch if what the CPU runs changed since the last one.
void trace_sched_settle(System& sys, int cpu);
// try_to_wake_up(): `p` is runnable again on `target_cpu`, woken from `waker_cpu` (the waker's
// CPU for a futex wake, the one it slept on for its own timer).
void trace_sched_wakeup(System& sys, const Task& p, int target_cpu, int waker_cpu);
// set_task_cpu(): fired before p.cpu changes.
void trace_sched_migrate_task(System& sys, const Task& p, int dest_cpu);
void trace_sched_process_fork(System& sys, const Task& parent, const Task& child);
void trace_sched_process_exit(System& sys, const Task& p);
// migrate_pages() of a NUMA hinting fault (mode MIGRATE_ASYNC, reason numa_misplaced): pages
// that moved or not, and THPs that moved or not.
void trace_mm_migrate_pages(System& sys, const Task& p, uint64_t succeeded, uint64_t failed,
                            uint64_t thp_succeeded, uint64_t thp_failed);
// migrate_pages() of the migrate_pages(2) system call (MIGRATE_SYNC, reason syscall_or_cpuset)
// on `cpu`, made by `caller` (a daemon outside the simulation; null: the task running there).
void trace_mm_migrate_pages_syscall(System& sys, int cpu, const Task* caller, uint64_t succeeded,
                                    uint64_t failed, uint64_t thp_succeeded, uint64_t thp_failed);
// The start of a migrate_pages() call on `cpu` under `current` at `ts` (the kernels that have
// it: System::has_migrate_pages_start).
void trace_mm_migrate_pages_start(System& sys, int cpu, const Task* current, Nanos ts,
                                  MigrateMode mode, MigrateReason reason);

// An event of `id` firing on `cpu` at its runqueue's clock, under the task running there: the
// fields a tracepoint fills in before its own.
TraceEvent trace_event_on_cpu(const System& sys, TraceEventId id, int cpu);

}  // namespace numasim
