// The system calls a user-space daemon (PlacementPolicy::kAgent) makes on another process, with
// their kernel effects and costs, and the daemon's own CPU time. The daemon is not a task of the
// simulation; what its reads of /proc and its calls cost (System::agent_read_ns,
// System::agent_kernel_ns) is charged at the end of each pass to the CPU it woke on
// (Rq::kthread_debt): whatever runs there waits (docs/placement-policies.md).
#pragma once

#include <cstdint>
#include <vector>

namespace numasim {

struct System;
struct Task;

// sched_setaffinity(tid, cpus) for every thread of process `pid` (what a daemon does walking
// /proc/PID/task): each live thread may run on `cpus` only; a queued or running thread on a CPU
// now outside them moves at once (__set_cpus_allowed_ptr -> affine_move_task), a sleeping one
// where its wake-up places it. Returns the threads set.
int sched_setaffinity_threads(System& sys, int pid, const std::vector<int>& cpus);

// migrate_pages(pid, maxnode, old_nodes, new_nodes) (kernel_migrate_pages, mm/mempolicy.c)
// from a daemon running on `cpu`, whose thread the trace events show as `caller`: the pages that
// could not be moved, or -1 if no process has that pid (ESRCH).
int64_t sys_migrate_pages(System& sys, int pid, uint64_t old_nodes, uint64_t new_nodes, int cpu,
                          const Task* caller = nullptr);

// The kernel time of one sched_setaffinity(2) on a thread whose CPU stays allowed, measured
// (thread CPU time, median of 9 x 20000 calls; docs/model.md "A daemon's own time").
inline constexpr double SCHED_SETAFFINITY_NS = 750;

// The CPU the daemon runs its pass on: the CPU it ran on last if that is idle, else an idle
// CPU sharing its last-level cache (select_idle_sibling()), else the last one, where it waits
// its turn. The first pass starts from CPU 0.
int agent_wake_cpu(System& sys);

// Charges what the daemon spent since the last charge (its reads and its calls) to the CPU it
// woke on (System::agent_cpu, which the daemon sets from agent_wake_cpu() at each wake-up), as
// time that CPU's task waits (Rq::kthread_debt); System::agent_charged_ns keeps the total.
void charge_agent_pass(System& sys);

}  // namespace numasim
