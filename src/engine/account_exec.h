// update_curr()'s charge of CPU time to a running task, as the engine's user steps make it
// (Engine::user_step) and as the deferred ticks' replay makes it again over a run of held steps.
#pragma once

#include "sched/rq.h"
#include "sched/task.h"
#include "sim/clock.h"

namespace numasim {

// The vruntime `delta` ns of CPU time give `p`. At nice 0 the scaling is by 1024 / 1024, exact
// in binary: the same bits without a divide.
inline double exec_vruntime(const Task& p, Nanos delta) {
    return p.weight == NICE_0_LOAD
               ? static_cast<double>(delta)
               : static_cast<double>(delta) * NICE_0_LOAD / static_cast<double>(p.weight);
}

// Charges `delta` of CPU time on `rq` ending at `now`. se.exec_start follows the last
// accounting, as in the kernel, where numa_get_avg_runtime() and task_hot() read it.
inline void account_exec(Rq& rq, Task& p, Nanos delta, Nanos now) {
    p.sum_exec_runtime += delta;
    rq.busy_time += delta;
    p.vruntime += exec_vruntime(p, delta);
    p.exec_start = now;
}

}  // namespace numasim
