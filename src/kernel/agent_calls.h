// The system calls a user-space daemon (PlacementPolicy::kAgent) makes on another process, with
// their kernel effects and costs. The daemon is not a task of the simulation: it takes no CPU
// time from the workload's tasks, and the kernel time of its calls is added up in
// System::agent_kernel_ns instead of being charged to a CPU (docs/placement-policies.md).
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

}  // namespace numasim
