// The ticks of a CPU whose one task runs on alone and settled (fair.h, settled_tick_until()):
// each sets the PELT update's time, starts the task's next EEVDF request once the last is used
// up (update_deadline()) and moves min_vruntime up to the task's vruntime (update_min_vruntime()
// with nothing queued). The engine's deferred ticks play a run of them later, between the user
// steps that move the vruntime: the policy and the request's size in virtual time are looked up
// once, the deadline and min_vruntime kept in hand, and store() leaves the task and runqueue as
// the ticks one by one would have. scheduler_tick() takes a busy CPU's settled tick with one
// of them too, when its CPU is not deferred. Latency accounting's tick (LatencyRecorder::tick)
// is left to the caller, which can look the task's remote-access stall up once for the whole run.
#pragma once

#include <algorithm>
#include <cmath>

#include "kernel/system.h"
#include "sched/eevdf.h"
#include "sched/features.h"
#include "sched/rq.h"
#include "sched/sched_tunables.h"
#include "sched/task.h"
#include "sim/clock.h"

namespace numasim {

class SettledTicks {
  public:
    // The ticks of rq's curr, alone on rq (nothing queued) from now until store(). Inline: a
    // busy CPU's scheduler_tick() takes one at a time (fair.cpp).
    SettledTicks(const System& sys, Rq& rq)
        : rq_(rq),
          eevdf_(sched_features(sys.knobs).eevdf),
          base_slice_(sysctl_sched_base_slice(sys.nr_cpus())),
          vslice_(eevdf::calc_delta_fair(base_slice_, *rq.curr)),
          deadline_(rq.curr->deadline),
          min_vruntime_(rq.min_vruntime) {}

    // A tick at `now`, the task's vruntime then being `vruntime`.
    void tick(double vruntime, Nanos now) {
        ticked_ = true;
        last_update_ = now;
        // update_deadline(): a request is used up unless vruntime < deadline.
        if (eevdf_ && !(vruntime < deadline_)) {
            deadline_ = vruntime + vslice_;
            renewed_ = true;
        }
        if (std::isfinite(vruntime)) min_vruntime_ = std::max(min_vruntime_, vruntime);
    }

    // What the ticks so far leave in the task and its runqueue.
    void store() const;

  private:
    Rq& rq_;
    bool eevdf_;           // the policy: EEVDF's requests, or CFS's min_vruntime alone
    Nanos base_slice_;     // a new request's size (sysctl_sched_base_slice)
    double vslice_;        // in the task's virtual time (calc_delta_fair)
    double deadline_;      // the task's, in hand
    double min_vruntime_;  // rq's, in hand
    Nanos last_update_ = 0;
    bool ticked_ = false, renewed_ = false;
};

}  // namespace numasim
