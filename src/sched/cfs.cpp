#include "sched/cfs.h"

#include <algorithm>

#include "kernel/system.h"
#include "sched/sched_tunables.h"

namespace numasim::cfs {

namespace {

Nanos sched_latency(const System& sys) {
    return SYSCTL_SCHED_LATENCY * sched_tunable_factor(sys.nr_cpus());
}
Nanos min_granularity(const System& sys) {
    return SYSCTL_SCHED_MIN_GRANULARITY * sched_tunable_factor(sys.nr_cpus());
}

}  // namespace

void place_entity(const System& sys, const Rq& rq, const Rq& prev, Task& se, bool initial) {
    if (initial) {
        // START_DEBIT: a new task starts one slice behind, so forking cannot starve others.
        se.vruntime = rq.min_vruntime + static_cast<double>(min_granularity(sys));
        return;
    }
    // GENTLE_FAIR_SLEEPERS: credit at most half a latency period of sleep.
    const double floor = rq.min_vruntime - static_cast<double>(sched_latency(sys)) / 2;
    se.vruntime = std::max(se.vruntime - prev.min_vruntime + rq.min_vruntime, floor);
}

void migrate_task_rq_fair(const Rq& src, const Rq& dst, Task& se) {
    se.vruntime = se.vruntime - src.min_vruntime + dst.min_vruntime;
}

Task* pick_next_entity(const Rq& rq) {
    Task* next = nullptr;
    for (Task* t : rq.queued)
        if (!next || t->vruntime < next->vruntime) next = t;
    return next;
}

bool check_preempt_tick(const System& sys, const Rq& rq) {
    // Preempt once curr has had its share of the latency period.
    if (rq.queued.empty()) return false;
    const Nanos period =
        std::max(sched_latency(sys), min_granularity(sys) * static_cast<Nanos>(rq.nr_running));
    const Nanos ideal = std::max(min_granularity(sys), period / static_cast<Nanos>(rq.nr_running));
    const Task& curr = *rq.curr;
    const Nanos ran = curr.sum_exec_runtime - curr.prev_sum_exec_runtime;
    return ran > ideal;
}

bool check_preempt_wakeup(const System& sys, const Rq& rq, const Task& p) {
    return rq.curr->vruntime - p.vruntime >
           static_cast<double>(SYSCTL_SCHED_WAKEUP_GRANULARITY *
                               sched_tunable_factor(sys.nr_cpus()));
}

}  // namespace numasim::cfs
