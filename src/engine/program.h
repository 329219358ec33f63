// What a task does, as the engine sees it: a sequence of phases, each a mix of access streams
// over regions of memory with a rate and an amount of work. A workload model (one file per
// workload under workload/) builds the processes, threads and regions, and hands each task a
// TaskProgram that yields its phases. The engine never simulates individual accesses: it turns
// a phase's rate into bytes per unit of CPU time and asks the streams which pages of interest
// (not yet present, or PROT_NONE) the task touched meanwhile. The scheduler's Task only holds
// a pointer to its program; the engine keeps each task's phase and cursors (engine/engine.h).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "cost/access.h"
#include "mm/mempolicy.h"
#include "sim/clock.h"

namespace numasim {

struct Task;

struct Phase {
    std::vector<AccessStream> streams;
    double rate_gbs = 1.0;  // bytes per ns (= GB/s) this task would move at local latency
    double mlp = 0;         // outstanding misses; 0 = the machine's line fill buffers
    double work_bytes = 0;  // phase ends after this many bytes (0: no limit)
    Nanos cpu_time = 0;     // or after this much CPU time (0: no limit)
    Nanos sleep_after = 0;  // then sleep this long before the next phase
    std::optional<MemPolicy> set_mempolicy;        // set_mempolicy() at phase start
    std::optional<std::vector<int>> set_affinity;  // sched_setaffinity() at phase start (CPU ids)
    bool clear_affinity = false;                   // back to all CPUs at phase start
    bool exec = false;  // execve() at phase start: sched_exec() places the task (SD_BALANCE_EXEC)
    // pthread_join() on every other thread of the thread group after the phase's work: the task
    // sleeps (no wakeups, like a futex wait on the exiting threads' tids) until they have exited.
    bool join = false;
    // FUTEX_WAKE at the phase's start, from this task's CPU at its clock: each of these tasks
    // that sleeps in a futex_wait phase is woken (try_to_wake_up()); one that does not sleep yet
    // finds its futex posted and does not sleep at the end of its phase.
    std::vector<Task*> futex_wake;
    // FUTEX_WAIT after the phase's work: the task sets its futex to blocked at the phase's start
    // and sleeps at its end until another task's futex_wake, unless one came meanwhile.
    bool futex_wait = false;
    // Exact timing: while the task runs this phase, and until its next phase starts, the engine
    // keeps an event just after the phase's predicted end, so that what the program does there
    // (a futex_wake of another task) happens at its own time, not at the next tick. One event
    // per phase; for programs whose tasks wake each other within microseconds (schbench).
    bool exact_end = false;
    double ops_per_byte = 0;  // workload metric: operations completed per byte moved

    // The part of the phase the cost model sees.
    AccessMix access() const { return {streams, rate_gbs, mlp}; }
};

class TaskProgram {
  public:
    virtual ~TaskProgram() = default;
    // Fills the next phase of `task`; returns false when the task should exit.
    virtual bool next_phase(Task& task, Phase& phase) = 0;
};

}  // namespace numasim
