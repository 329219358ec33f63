// The fair class's feature set (kernel/sched/features.h), decoded from knobs.sched_class: the one
// place that says what "cfs", "eevdf" and "eevdf_complete" mean. Each flag carries the kernel's
// feature name where there is one.
#pragma once

#include "numab/knobs.h"

namespace numasim {

struct SchedFeatures {
    bool eevdf = false;  // EEVDF picking and lag placement (147f3efaa241, v6.6); else CFS
    // v6.12, "Complete EEVDF" (P. Zijlstra, 2024-07-27, patches 17-22):
    bool delay_dequeue = false;       // DELAY_DEQUEUE: a sleeper with negative lag stays queued
    bool delay_zero = false;          // DELAY_ZERO: positive lag is clipped to 0 when it leaves
    bool place_rel_deadline = false;  // PLACE_REL_DEADLINE: a migration keeps the relative deadline
    // PLACE_DEADLINE_INITIAL (on in both releases) takes effect only where the half slice survives:
    // v6.6 places a new task a second time at enqueue without ENQUEUE_INITIAL, v6.12 places it
    // once, at its first enqueue (Zhang Qiao's change in the v6.12 pull).
    bool place_deadline_initial = false;
};

inline SchedFeatures sched_features(const NumaBalancingKnobs& k) {
    switch (k.sched_class) {
        case SchedClass::Cfs:
            return {};
        case SchedClass::Eevdf:
            return {.eevdf = true};
        case SchedClass::EevdfComplete:
            return {.eevdf = true,
                    .delay_dequeue = true,
                    .delay_zero = true,
                    .place_rel_deadline = true,
                    .place_deadline_initial = true};
    }
    return {};
}

}  // namespace numasim
