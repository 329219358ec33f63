// Helpers shared by the workload models: machine sizing, policies, per-task metrics, and a
// program that replays a list of phases. Each model keeps its own constants in its own file.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/program.h"
#include "mm/mempolicy.h"
#include "sim/clock.h"
#include "workload/result.h"

namespace numasim {

struct System;
struct Task;
struct Topology;

// bzero()/memset() of a buffer far larger than the caches, one thread, data in local DRAM.
// John McCalpin (Intel forum "Single-threaded memory performance for dual socket Xeon E5-*
// systems", 2014) explains single-thread bandwidth on two-socket Xeons as limited by the ~10
// outstanding L1D misses per core: 10 x 64 B / ~85 ns = 7.5 GB/s, measured 6-12 GB/s; the
// project's oracle measured 16.5 GB/s for one store per line on its (newer) host. 10 GB/s sits
// in that range; the cost model caps it by the machine's own latency and line fill buffers.
inline constexpr double BZERO_RATE_GBS = 10.0;

MemPolicy make_policy(MpolMode mode, uint64_t nodes);
inline uint64_t node_bit(int node) {
    return uint64_t{1} << node;
}

// The local clock of the CPU `p` runs on: the time at which its next phase starts.
Nanos task_clock(const System& sys, const Task& p);

// Live and dead tasks that belong to workload `index`, in creation order.
std::vector<const Task*> workload_tasks(const System& sys, int index);

// Per-task figures every workload reports (getrusage, /proc/<pid>/sched).
TaskFigures task_figures(const System& sys, const Task& p);

struct RunTimes {
    Nanos start = 0;       // earliest start_time
    Nanos end = 0;         // latest exit_time, or now if some task still runs
    bool finished = true;  // every task exited
    double user_s = 0, sys_s = 0;
};
RunTimes run_times(const System& sys, const std::vector<const Task*>& tasks);

// A stateful program built from closures: `next` fills the phase or returns false to exit. Most
// models need a little state per task (a step counter), which the closure captures.
class FnProgram : public TaskProgram {
  public:
    using Fn = std::function<bool(Task&, Phase&)>;
    explicit FnProgram(Fn fn) : fn_(std::move(fn)) {}
    bool next_phase(Task& task, Phase& phase) override { return fn_(task, phase); }

  private:
    Fn fn_;
};

// A short sleep used to wait for an event (a startup barrier, a stop flag) without burning CPU:
// a 1 us CPU burst, then `sleep` of idle time.
void make_wait_phase(Phase& ph, Nanos sleep);

}  // namespace numasim
