// The event loop. Every CPU is simulated lazily: its running task makes progress at the cost
// model's rate until the time of the next event, and the pages of interest its streams touched
// meanwhile (not yet present, PROT_NONE, or shared and written) go through the fault paths.
// The global tick then runs scheduler_tick() and the NUMA scan work on every CPU.
#pragma once

#include "sim/clock.h"

namespace numasim {

struct System;
struct Task;

class Engine {
  public:
    explicit Engine(System& sys);
    // Runs until `end` or until no task is left; returns the time the run stopped.
    Nanos run(Nanos end);
    // Brings `cpu` up to time `t`.
    void advance_cpu(int cpu, Nanos t);
    uint64_t ticks() const { return ticks_; }

  private:
    void tick();
    bool start_next_phase(Task& p);
    void finish_phase(Task& p);
    // Walks the streams of p's phase for `bytes` of progress; returns false if p left the CPU.
    bool touch_streams(Task& p, double bytes);
    bool handle_touch(Task& p, struct Vma& vma, uint64_t idx, bool write);
    void apply_phase_setup(Task& p);

    System& sys_;
    uint64_t ticks_ = 0;
    double llc_miss_carry_ = 0;  // fractional cache misses not yet counted
    int live_tasks() const;
};

}  // namespace numasim
