// The access loops of the guest runner: sweep, random and hot-set streams over real memory, in
// the proportions of their shares, until the phase's work, CPU time or the run's deadline is
// reached. A sweep touches every 64-byte line of its range in order, wrapping around; random
// and hot-set streams touch uniformly random lines (hot set: the first hot_fraction of the
// range takes hot_share of the accesses), as the model's access model draws them
// (engine/engine.cpp, touch_streams). Rates cannot be imposed on a real machine: the loops run
// as fast as the (virtual) CPU lets them.
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include "cost/access.h"
#include "sim/clock.h"
#include "sim/rng.h"

namespace numasim::guest {

inline constexpr uint64_t kLineBytes = 64;  // x86-64 cache line

struct LiveStream {
    char* base = nullptr;
    uint64_t bytes = 0;
    Pattern pattern = Pattern::Sweep;
    double share = 1.0;  // relative weight among the phase's streams
    double write_fraction = 0;
    double hot_fraction = 0.1, hot_share = 0.9;
    uint64_t cursor = 0;  // sweep: next line
    double carry = 0;     // bytes owed from earlier rounds
};

struct StopRule {
    double work_bytes = 0;  // 0: no limit
    Nanos cpu_ns = 0;       // thread CPU time; 0: no limit
    Nanos deadline = 0;     // CLOCK_MONOTONIC; 0: none
};

struct Moved {
    double bytes = 0;
    bool deadline = false;  // stopped because the run's time was up
};

// Lines of one round for each stream: the round's bytes split by share, carried over between
// rounds so that small shares get their due. Exposed for the tests.
std::vector<uint64_t> round_lines(std::vector<LiveStream>& streams, double round_bytes);

// Touches `lines` lines of `s` (sweep: from its cursor; random: drawn from `rng`); returns a
// value read, so that reads cannot be optimised away.
uint64_t touch_lines(LiveStream& s, uint64_t lines, Rng& rng);

// Runs the streams until `stop`; `progress` (may be null) receives the bytes moved so far.
Moved run_streams(std::vector<LiveStream>& streams, const StopRule& stop, Rng& rng,
                  std::atomic<uint64_t>* progress);

}  // namespace numasim::guest
