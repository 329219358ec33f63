// The engine's part of invariant checking: when a run checks. The kernel's state is checked by
// kernel/invariants.h; Engine::set_check_invariants() turns checking on for a run.
#pragma once

#include <cstdint>

namespace numasim {

struct System;

// When a run checks. A full check costs about 20 ns per mapped page (measured on the default
// scenario); simulating costs about 70 ns per event (faults, scanned PTE words, page and task
// migrations, CPU ticks). A check is due after a tick once the events simulated since the last
// check reach the mapped pages divided by PAGES_PER_EVENT: small simulations are checked after
// every tick, and checking adds at most about PAGES_PER_EVENT x 20 / 70 (~60 %) to any run,
// whatever its size. The end of every run is checked too.
class InvariantCadence {
  public:
    static constexpr uint64_t PAGES_PER_EVENT = 2;
    bool due(const System& sys, uint64_t ticks);

  private:
    uint64_t last_work_ = 0;
};

}  // namespace numasim
