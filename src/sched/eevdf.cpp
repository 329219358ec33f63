#include "sched/eevdf.h"

#include <algorithm>

#include "sched/rq.h"
#include "sched/task.h"

namespace numasim::eevdf {

namespace {

// The kernel's cfs_rq->avg_vruntime (S) and avg_load (W) with curr added, over v0 =
// min_vruntime.
struct Sums {
    double v0 = 0, S = 0, W = 0;
    int nr = 0;
};

Sums sums(const Rq& rq) {
    Sums s;
    s.v0 = rq.min_vruntime;
    auto add = [&](const Task& t) {
        const double w = static_cast<double>(t.weight);
        s.S += w * (t.vruntime - s.v0);
        s.W += w;
        ++s.nr;
    };
    if (rq.curr) add(*rq.curr);
    for (const Task* t : rq.queued)
        add(*t);
    return s;
}

double average(const Sums& s) {
    return s.W > 0 ? s.v0 + s.S / s.W : s.v0;
}

bool eligible(const Sums& s, const Task& se) {
    return s.S >= (se.vruntime - s.v0) * s.W;
}

}  // namespace

double calc_delta_fair(Nanos delta, const Task& se) {
    return static_cast<double>(delta) * static_cast<double>(NICE_0_LOAD) /
           static_cast<double>(se.weight);
}

double avg_vruntime(const Rq& rq) {
    return average(sums(rq));
}

bool entity_eligible(const Rq& rq, const Task& se) {
    return eligible(sums(rq), se);
}

Task* pick_eevdf(const Rq& rq) {
    const Sums s = sums(rq);
    if (s.nr == 0) return nullptr;
    // A single entity runs whatever its lag.
    if (s.nr == 1) return rq.curr ? rq.curr : rq.queued.front();
    Task* curr = rq.curr;
    if (curr && !eligible(s, *curr)) curr = nullptr;
    // RUN_TO_PARITY: set_next_entity() stashed the deadline of the request curr was picked for.
    if (curr && curr->vlag == curr->deadline) return curr;
    Task* best = nullptr;
    for (Task* se : rq.queued)
        if (eligible(s, *se) && (!best || se->deadline < best->deadline)) best = se;
    if (!best || (curr && curr->deadline < best->deadline)) best = curr;
    if (!best) {
        // Rounding can leave no entity eligible; the kernel then takes the leftmost (v6.6).
        for (Task* se : rq.queued)
            if (!best || se->vruntime < best->vruntime) best = se;
    }
    return best;
}

void place_entity(const Rq& rq, Task& se, Nanos base_slice, int flags) {
    const Sums s = sums(rq);
    se.slice = base_slice;
    double vslice = calc_delta_fair(se.slice, se);
    double lag = 0;
    // PLACE_LAG: joining changes V by -w x lag / (W + w), so the stored lag is inflated to come
    // out whole after the join. An empty runqueue has nothing to lag behind.
    if (s.nr > 0) lag = se.vlag * (s.W + static_cast<double>(se.weight)) / s.W;
    se.vruntime = average(s) - lag;
    if (se.rel_deadline) {
        se.deadline += se.vruntime;
        se.rel_deadline = false;
        return;
    }
    // PLACE_DEADLINE_INITIAL: a new task starts with half a request to ease into the competition.
    if (flags & ENQUEUE_INITIAL) vslice /= 2;
    se.deadline = se.vruntime + vslice;
}

bool update_deadline(Task& se, Nanos base_slice) {
    if (se.vruntime < se.deadline) return false;
    se.slice = base_slice;
    se.deadline = se.vruntime + calc_delta_fair(se.slice, se);
    return true;
}

void update_entity_lag(const Rq& rq, Task& se) {
    const double lag = avg_vruntime(rq) - se.vruntime;
    const double limit = calc_delta_fair(std::max<Nanos>(2 * se.slice, TICK_NSEC), se);
    se.vlag = std::clamp(lag, -limit, limit);
}

}  // namespace numasim::eevdf
