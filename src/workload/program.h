// What a task does, as the engine sees it: a sequence of phases, each a mix of access streams
// over regions of memory with a rate and an amount of work. A workload model (one file per
// workload under workload/) builds the processes, threads and regions, and hands each task a
// TaskProgram that yields its phases. The engine never simulates individual accesses: it turns
// a phase's rate into bytes per unit of CPU time and asks the streams which pages of interest
// (not yet present, or PROT_NONE) the task touched meanwhile.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "mm/mempolicy.h"
#include "sim/clock.h"

namespace numasim {

struct Region;
struct Task;

enum class Pattern : uint8_t {
    Sweep,   // sequential pass over the region, wrapping around (bzero, memset, streaming)
    Random,  // uniform random pages of the region
    HotSet,  // a hot fraction of the pages takes a hot share of the accesses, the rest uniform
};

struct AccessStream {
    Region* region = nullptr;
    Pattern pattern = Pattern::Sweep;
    double share = 1.0;                   // fraction of the phase's bytes that go to this stream
    double write_fraction = 0.0;          // fraction of accesses that are stores
    double hot_fraction = 0.1;            // HotSet: fraction of the region's pages that are hot
    double hot_share = 0.9;               // HotSet: fraction of accesses that go to the hot pages
    bool start_at_thread_offset = false;  // Sweep: start at `start_page` instead of 0
    uint64_t start_page = 0;
};

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
    double ops_per_byte = 0;  // workload metric: operations completed per byte moved
};

class TaskProgram {
  public:
    virtual ~TaskProgram() = default;
    // Fills the next phase of `task`; returns false when the task should exit.
    virtual bool next_phase(Task& task, Phase& phase) = 0;
};

}  // namespace numasim
