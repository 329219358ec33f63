// What record_wakee() keeps of a waker (task_struct's wakee_flips, wakee_flip_decay_ts and
// last_wakee): how often it switches from one wakee to another. Every task has one, and so has
// each CPU's idle task, the `current` of a wake-up from an interrupt on an idle CPU.
#pragma once

#include "sim/clock.h"

namespace numasim {

struct Task;

struct WakeeFlips {
    unsigned wakee_flips = 0;
    Nanos wakee_flip_decay_ts = 0;
    const Task* last_wakee = nullptr;
};

}  // namespace numasim
