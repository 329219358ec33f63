// What the cost model sees of a task: how its current phase touches memory. A workload builds
// these streams into the phases of its programs (engine/program.h); the engine hands the cost
// model only this narrow view of the task it runs.
#pragma once

#include <cstdint>
#include <span>

namespace numasim {

struct Region;

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

    bool operator==(const AccessStream&) const = default;
};

// The memory behaviour of one running phase.
struct AccessMix {
    std::span<const AccessStream> streams;
    double rate_gbs = 1.0;  // bytes per ns (= GB/s) the task would move at local latency
    double mlp = 0;         // outstanding misses; 0 = the machine's line fill buffers
};

}  // namespace numasim
