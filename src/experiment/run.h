// Runs a scenario: one simulation per iteration, each with its own seed derived from the
// scenario's, on the worker pool. Results come back in iteration order, so the output is
// byte-identical whatever the number of workers. report/run_report.h prints them.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "experiment/observation.h"
#include "kernel/counters.h"
#include "kernel/latency.h"
#include "sim/clock.h"
#include "workload/result.h"

namespace numasim {

struct Scenario;

// A task as /proc/<pid>/ shows it at the end of the run.
struct ProcTask {
    int pid = 0, tgid = 0;
    std::string comm;
    int cpu = 0, node = 0;
    double utime_s = 0, stime_s = 0;
    std::string state;  // "runnable", "sleeping", "exited"
    uint64_t nr_migrations = 0, nvcsw = 0, nivcsw = 0, faults = 0;
    int numa_preferred_nid = -1;
    uint64_t numa_pages_migrated = 0;
    double bytes = 0;                   // moved by its access streams
    uint64_t numa_task_migrations = 0;  // sched_move_numa and sched_swap_numa it took part in
    std::string proc_sched;             // the /proc/<pid>/sched NUMA lines
};

// A named region of a process at the end of the run (a workload's buffer, the executable's
// data, a stack; per-thread slices left out), with its present pages per node as
// /proc/<pid>/numa_maps shows them. `object` numbers the memory objects in order of appearance,
// so that the mappings of one shared object can be told from private ones.
struct MappingPages {
    int pid = 0;
    std::string comm;
    std::string region;
    int object = 0;
    std::vector<uint64_t> node_pages;
};

// The latency histograms of one task (`--latency`, kernel/latency.h), with what names it.
struct TaskLatency {
    int pid = 0, tgid = 0;
    std::string comm;
    LatencyHists hists;
};

struct RunResult {
    uint64_t seed = 0;
    Nanos elapsed = 0;
    double user_s = 0, system_s = 0;
    Counters counters;
    std::vector<WorkloadResult> workloads;
    std::vector<ProcTask> tasks;
    std::vector<MappingPages> regions;  // every process's mappings at the end
    uint64_t ticks = 0;                 // global scheduler ticks simulated
    uint64_t events = 0;  // CPU ticks + faults + page and task migrations (docs/performance.md)
    bool latency_recorded = false;     // `--latency`: `latency` holds every task that has one
    std::vector<TaskLatency> latency;  // the tasks with a latency histogram, in task order
    // A user-space daemon's own CPU time (PlacementPolicy::kAgent: numad), charged to the CPUs
    // it ran on: its reads of /proc and sysfs, and its system calls. Not in user_s/system_s,
    // which are the workload's tasks' times.
    bool agent = false;
    double agent_read_s = 0, agent_syscall_s = 0;
};

// One run with `seed`; with `obs`, it also records what `obs` asks for (experiment/observation.h)
// under `label`.
RunResult run_once(const Scenario& sc, uint64_t seed, const ObserveOptions* obs = nullptr,
                   const RunLabel& label = {});

// The seed of iteration i: the scenario's for iteration 0 (so that a single run is
// reproducible from the seed in the file), derive_seed(seed, i) after that.
uint64_t iteration_seed(const Scenario& sc, int i);

// All iterations on `workers` threads; `progress` is called after each.
std::vector<RunResult> run_iterations(const Scenario& sc, int workers,
                                      const ObserveOptions* obs = nullptr,
                                      const std::function<void()>& progress = {});

// The benchmark operations of a run (every workload's); a run without any has "elsp", the
// elapsed time.
std::vector<Operation> run_operations(const RunResult& r);

// A figure of a run by name: an operation, "vmstat.<counter>", "sched.<counter>", "elapsed_s",
// "user_s", "system_s" or "hint_local_pct" (the share of NUMA hinting faults that were local).
std::optional<double> run_metric(const RunResult& r, std::string_view name);

}  // namespace numasim
