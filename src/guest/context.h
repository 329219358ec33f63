// What every guest program gets: the guest's machine as sysfs shows it, the run's clock and
// deadline, its seed, and a board in shared memory where every task posts how far it got, for
// the runner's progress lines.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "machine/topology.h"
#include "policy/numactl_args.h"
#include "sim/clock.h"

namespace numasim::guest {

// One task's progress; each slot has a cache line of its own.
struct alignas(64) ProgressSlot {
    std::atomic<uint64_t> bytes{0};   // moved in the current phase
    std::atomic<uint64_t> before{0};  // moved in the phases already done
    std::atomic<int32_t> phase{0};    // phases done
    std::atomic<int32_t> state{0};    // 0 unused, 1 running, 2 finished
    char name[32] = {};               // "process.instance/thread"
};

class ProgressBoard {
  public:
    static constexpr int kSlots = 4096;
    // Maps the slots shared, so that forked processes write where the runner reads.
    static ProgressBoard* create();
    // A slot for a new task (nullptr when all are taken: the task then reports nothing).
    ProgressSlot* claim(const std::string& name);
    int used() const { return std::min(next_.load(), kSlots); }
    const ProgressSlot& slot(int i) const { return slots_[i]; }

  private:
    std::atomic<int> next_{0};
    ProgressSlot slots_[kSlots];
};

struct Context {
    Topology topo;       // nodes, CPUs and distances of the running kernel
    Nanos start = 0;     // CLOCK_MONOTONIC at the runner's start
    Nanos deadline = 0;  // the scenario's duration after start
    uint64_t seed = 1;   // the scenario's seed
    int workload = 0;    // index of the [[workload]] table
    // policy "numactl": each started process's numactl line (guest/numactl.h); else empty.
    std::vector<NumactlBinding> numactl;
    int first_process = 0;  // processes the earlier workloads started from outside
    ProgressBoard* board = nullptr;

    double elapsed_s() const;
};

// The machine from /sys/devices/system/node: each node's CPUs (cpulist), memory (MemTotal) and
// SLIT row (distance). Throws std::runtime_error if sysfs has no nodes.
Topology sysfs_topology(const std::string& root = "/sys/devices/system/node");

// "0-3,8,10-11" -> {0, 1, 2, 3, 8, 10, 11}.
std::vector<int> parse_cpu_list(const std::string& text);

}  // namespace numasim::guest
