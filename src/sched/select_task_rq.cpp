#include "sched/select_task_rq.h"

#include <algorithm>
#include <utility>

#include "kernel/system.h"
#include "sched/fair.h"

namespace numasim {

namespace {

// The wake_affine_weight() bias (WA_BIAS, on since v4.15): the previous CPU's load counts with
// half the domain's imbalance_pct margin over the waker's, in percent.
constexpr int64_t WA_BIAS_SCALE = 100;

bool in_span(const SchedDomain& sd, int cpu) {
    return std::binary_search(sd.span.begin(), sd.span.end(), cpu);
}

// sd_llc_size: the CPUs of the highest cache-sharing domain of cpu, 1 without one.
int sd_llc_size(const System& sys, int cpu) {
    const SchedDomain* llc = sys.sched.sd_llc(cpu);
    return llc ? static_cast<int>(llc->span.size()) : 1;
}

}  // namespace

Waker timer_waker(const System& sys, const Task& p) {
    return {.cpu = p.cpu, .task = sys.rqs[p.cpu].curr, .sync = false};
}

void record_wakee(WakeeFlips& current, const Task& p, Nanos now) {
    // A waker with less than a wake-up per jiffy builds up few flips: one halving is enough.
    if (now > current.wakee_flip_decay_ts + WAKEE_FLIP_DECAY_NS) {
        current.wakee_flips >>= 1;
        current.wakee_flip_decay_ts = now;
    }
    if (current.last_wakee != &p) {
        current.last_wakee = &p;
        ++current.wakee_flips;
    }
}

bool wake_wide(unsigned waker_flips, unsigned wakee_flips, int llc_size) {
    // A 1:N relation whose N exceeds the LLC: the partners are spread, not pulled together.
    const unsigned factor = static_cast<unsigned>(llc_size);
    const unsigned hi = std::max(waker_flips, wakee_flips);
    const unsigned lo = std::min(waker_flips, wakee_flips);
    return lo >= factor && hi >= lo * factor;
}

int wake_affine_idle(const System& sys, int this_cpu, int prev_cpu, bool sync) {
    // An idle waking CPU means an interrupt woke the task: pull only within a cache, and keep
    // prev if that is idle too (its cache is as warm).
    if (idle_cpu(sys, this_cpu) && cpus_share_cache(sys, this_cpu, prev_cpu))
        return idle_cpu(sys, prev_cpu) ? prev_cpu : this_cpu;
    // The waker is about to sleep and is all this CPU runs.
    if (sync && sys.rqs[this_cpu].nr_running == 1) return this_cpu;
    if (sys.knobs.wake_affine_prev_idle && idle_cpu(sys, prev_cpu)) return prev_cpu;
    return WAKE_AFFINE_NONE;
}

int wake_affine_weight(const System& sys, const SchedDomain& sd, const Task& p, const Task* current,
                       int this_cpu, int prev_cpu, bool sync) {
    // The load each CPU would have with p on it. The model's cpu_load() counts the runnable
    // tasks only (v4.x's runnable_load_avg); v5.5+ reads load_avg, which still holds p's
    // decaying blocked load on prev, hence the subtraction below in both.
    auto this_eff = static_cast<int64_t>(cpu_load(sys, this_cpu));
    if (sync && current) {
        const auto current_load = static_cast<int64_t>(task_h_load(sys, *current));
        if (current_load > this_eff) return this_cpu;
        this_eff -= current_load;
    }
    const auto task_load = static_cast<int64_t>(task_h_load(sys, p));
    this_eff += task_load;
    this_eff *= WA_BIAS_SCALE;
    this_eff *= static_cast<int64_t>(capacity_of(sys, prev_cpu));
    auto prev_eff = static_cast<int64_t>(cpu_load(sys, prev_cpu));
    prev_eff -= task_load;
    prev_eff *= WA_BIAS_SCALE + (sd.imbalance_pct - 100) / 2;
    prev_eff *= static_cast<int64_t>(capacity_of(sys, this_cpu));
    // A sync tie goes to the waker's CPU.
    if (sync) prev_eff += 1;
    return this_eff < prev_eff ? this_cpu : WAKE_AFFINE_NONE;
}

int wake_affine(System& sys, const SchedDomain& sd, Task& p, const Task* current, int this_cpu,
                int prev_cpu, bool sync) {
    int target = wake_affine_idle(sys, this_cpu, prev_cpu, sync);
    if (target == WAKE_AFFINE_NONE)
        target = wake_affine_weight(sys, sd, p, current, this_cpu, prev_cpu, sync);
    ++p.nr_wakeups_affine_attempts;
    if (target == WAKE_AFFINE_NONE) return prev_cpu;
    ++p.nr_wakeups_affine;
    return target;
}

int select_idle_sibling(System& sys, Task& p, int prev, int target) {
    if (idle_cpu(sys, target) && p.allowed(target)) return target;
    // prev's cache is warm for p: take it if idle and cache-affine to the target.
    if (prev != target && cpus_share_cache(sys, prev, target) && idle_cpu(sys, prev) &&
        p.allowed(prev))
        return prev;
    // A CPU p ran on recently (v4.16). Since v5.15 it is the prev of the last wake-up, set at
    // each one; before, the CPU p last woke another task from, and prev once this one is taken.
    const int recent = p.recent_used_cpu;
    const bool record_prev = sys.knobs.recent_used_cpu_prev;
    if (record_prev) p.recent_used_cpu = prev;
    if (recent >= 0 && recent != prev && recent != target &&
        cpus_share_cache(sys, recent, target) && idle_cpu(sys, recent) && p.allowed(recent)) {
        if (!record_prev) p.recent_used_cpu = prev;
        return recent;
    }
    const SchedDomain* llc = sys.sched.sd_llc(target);
    if (!llc) return target;
    int idle = -1;
    for (int c : llc->span) {
        if (!p.allowed(c) || !idle_cpu(sys, c)) continue;
        if (is_core_idle(sys, c)) return c;
        if (idle < 0) idle = c;
    }
    return idle >= 0 ? idle : target;
}

int select_task_rq_fair(System& sys, Task& p, int prev_cpu, const Waker& w) {
    const int this_cpu = w.cpu;
    Task* current = w.task;
    // An exiting waker's wake-ups are not sync (its CLONE_CHILD_CLEARTID wake, for one).
    const bool sync = w.sync && current && !current->exiting();
    WakeeFlips& flips = current ? current->wakee : sys.rqs[this_cpu].idle_wakee;
    record_wakee(flips, p, sys.now);
    const bool want_affine =
        !wake_wide(flips.wakee_flips, p.wakee.wakee_flips, sd_llc_size(sys, this_cpu)) &&
        p.allowed(this_cpu);
    int new_cpu = prev_cpu;
    if (want_affine) {
        // The lowest domain of the waker's CPU where an affine wake-up may land that also
        // spans prev: the two CPUs are close enough to choose between.
        for (const SchedDomain& sd : sys.sched.domains[this_cpu]) {
            if (!sd.wake_affine || !in_span(sd, prev_cpu)) continue;
            if (this_cpu != prev_cpu)
                new_cpu = wake_affine(sys, sd, p, current, this_cpu, prev_cpu, sync);
            break;
        }
    }
    new_cpu = select_idle_sibling(sys, p, prev_cpu, new_cpu);
    if (want_affine && current && !sys.knobs.recent_used_cpu_prev)
        current->recent_used_cpu = this_cpu;
    return new_cpu;
}

}  // namespace numasim
