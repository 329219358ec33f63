// Steps end at costly hinting faults (docs/model.md "Steps end at costly faults"). A CPU is
// advanced to each event in one user step, and the pages its streams touched in the step are
// decided at one instant: the engine's resolution is the interval between events. A hinting
// fault's kernel time is CPU time too, and every touch after it in the step really comes that
// much later. Where the user time up to a touch and the kernel time of the step's hinting faults
// so far reach the event the CPU is advanced to, the touches after it fall past the event: the
// walk is cut there, the CPU pays the kernel time, and the rest of the walk is decided when it
// has, at the CPU's clock and after the other CPUs have been advanced past the faults between.
// A step is cut only where a hinting fault with kernel time was taken, and each cut carries its
// CPU past the event, so a CPU is cut at most once per event: the cost grows with faults, not
// with accesses.
#pragma once

#include <cstddef>
#include <cstdint>

#include "sim/clock.h"

namespace numasim {

// The share of the interval to the event that a step's user time and the kernel time of its
// hinting faults may fill before the touches after them wait: all of it. The engine already
// decides a step's touches at one instant, so a decision may stand up to one interval from its
// real time; kernel time within that is of the same order and needs no cut. Past it the
// decisions would run ahead of the other CPUs by more than the engine's resolution (cowsum's
// children decided a second of migrations at one instant). A smaller share would cut walks whose
// touches fall within the interval and resume them before the other CPUs reach the same time,
// which costs steps and changes no order.
inline constexpr double kStepKernelShare = 1.0;

// Where a cut walk goes on (Engine::walk_streams), kept with the task's run: the step's bytes,
// the stream and the page it stopped after.
struct StepWalk {
    bool pending = false;  // a walk was cut and goes on once the fault's kernel time has passed
    bool ends = false;     // its step ended the phase: the phase finishes once the walk is done
    double bytes = 0;      // the step's bytes of progress (a random stream's draws follow them)
    size_t stream = 0;     // the stream the walk goes on in
    bool resume = false;   // that stream goes on from `from` (else it starts)
    uint64_t from = 0;     // its first page not yet decided (VMA index)
    uint64_t hi = 0;       // sweep: the end of the range `from` is in; chunks: the chunk's end
    uint64_t wrap = 0;     // sweep: pages from the region's start still to walk after that range
    uint64_t x = 0;        // chunks: the cells below x are decided
    unsigned part = 0;     // random: the part (the hot set, then the rest) `from` is in
    bool write = false;    // chunks: the cut chunk's write
};

// The clock of a walk while it runs: when each touch comes, and the kernel time of the hinting
// faults taken so far.
struct StepClock {
    Nanos limit = 0;   // from the walk's start to the event the CPU is advanced to
    Nanos used = 0;    // the user time the walk's touches spread over (0: a walk that goes on)
    Nanos kernel = 0;  // kernel time of the walk's hinting faults so far
    Nanos start = 0;   // the CPU's clock where the walk's user time began
    // Kernel time of the walk's first-touch faults so far. It is paid after the step (the walk
    // is never cut for it), but each touch after such a fault really comes that much later:
    // only the clock of a touch (at) counts it.
    Nanos faults = 0;
    // The touches of the current range, in order: page j is touch pos0 + (j - lo) of n.
    uint64_t lo = 0, pos0 = 0, n = 1;
    bool cut = false;  // the walk stopped after its last touch

    void range(uint64_t lo_, uint64_t pos0_, uint64_t n_) {
        lo = lo_;
        pos0 = pos0_;
        n = n_ ? n_ : 1;
    }
    // User time of the step up to the end of the touch of page j.
    Nanos user_at(uint64_t j) const {
        const double k = static_cast<double>(pos0 + (j - lo) + 1);
        return static_cast<Nanos>(static_cast<double>(used) * k / static_cast<double>(n));
    }
    // When the touch of page j comes: the walk's start, its user time up to the touch, and the
    // kernel time of the faults before it (racing huge-page clears, mm/huge_clear.h).
    Nanos at(uint64_t j) const { return start + user_at(j) + kernel + faults; }
    // Whether, with `extra` more kernel time, the touch of page j ends at or past the share of the
    // interval (kStepKernelShare): the touches after it wait.
    bool past(uint64_t j, Nanos extra) const {
        return static_cast<double>(user_at(j) + kernel + extra) >=
               kStepKernelShare * static_cast<double>(limit);
    }
};

}  // namespace numasim
