#include "sched/fair.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

#include "cost/constants.h"
#include "kernel/latency.h"
#include "kernel/system.h"
#include "kernel/tracepoints.h"
#include "mm/tlb.h"
#include "numab/numab.h"
#include "sched/cfs.h"
#include "sched/eevdf.h"
#include "sched/features.h"
#include "sched/load_balance.h"
#include "sched/nohz.h"
#include "sched/sched_tunables.h"
#include "sched/select_task_rq.h"
#include "sched/settled_ticks.h"

namespace numasim {

int sched_tunable_factor(int nr_cpus) {
    return 1 + std::bit_width(static_cast<unsigned>(std::min(nr_cpus, 8))) - 1;
}

Nanos sysctl_sched_base_slice(int nr_cpus) {
    return SYSCTL_SCHED_BASE_SLICE * sched_tunable_factor(nr_cpus);
}

namespace {

Nanos base_slice(const System& sys) {
    return sysctl_sched_base_slice(sys.nr_cpus());
}

// prev_state of a task that leaves its CPU for good or to sleep: an exiting thread is reaped at
// once (EXIT_DEAD), a thread-group leader waits for its parent (EXIT_ZOMBIE).
SwitchOutState switch_out_state(const Task& p, bool exiting) {
    if (!exiting) return SwitchOutState::Sleeping;
    return p.pid == p.tgid ? SwitchOutState::Zombie : SwitchOutState::Dead;
}

struct SettleOnReturn {
    System& sys;
    int cpu;
    ~SettleOnReturn() { trace_sched_settle(sys, cpu); }
};

void update_min_vruntime(Rq& rq) {
    double v = rq.curr ? rq.curr->vruntime : INFINITY;
    for (Task* t : rq.queued)
        v = std::min(v, t->vruntime);
    if (std::isfinite(v)) rq.min_vruntime = std::max(rq.min_vruntime, v);
}

void enqueue_task(System& sys, Rq& rq, Task& p) {
    rq.queued.push_back(&p);
    ++rq.nr_running;
    p.state = TaskState::Runnable;
    p.cpu = rq.cpu;
    sys.sg_cache.cpu_changed(rq.cpu);
    account_numa_enqueue(sys, rq, p);
}

void dequeue_queued(System& sys, Rq& rq, Task& p) {
    auto it = std::find(rq.queued.begin(), rq.queued.end(), &p);
    if (it != rq.queued.end()) rq.queued.erase(it);
    --rq.nr_running;
    sys.sg_cache.cpu_changed(rq.cpu);
    account_numa_dequeue(sys, rq, p);
}

// --- EEVDF call sites ---

// update_curr() as EEVDF sees it (vruntime itself is charged by the engine as the task runs):
// a request that ended starts the next one and, with company on the runqueue, asks for a
// reschedule (update_deadline).
void update_curr(System& sys, Rq& rq) {
    if (rq.curr && eevdf::update_deadline(*rq.curr, base_slice(sys)) && rq.nr_running > 1)
        rq.need_resched = true;
    update_min_vruntime(rq);
}

// check_preempt_wakeup(): preempt curr iff the pick would now be the wakee.
void check_preempt_wakeup(System& sys, Rq& rq, Task& p) {
    if (rq.curr == &p || rq.need_resched) return;
    update_curr(sys, rq);
    if (eevdf::pick_eevdf(rq) == &p) rq.need_resched = true;
}

// The end of a delayed dequeue (v6.12): the entity leaves with its lag, positive lag clipped
// to zero (DELAY_ZERO).
void finish_delayed_dequeue(System& sys, Rq& rq, Task& p) {
    eevdf::update_entity_lag(rq, p);
    if (sched_features(sys.knobs).delay_zero && p.vlag > 0) p.vlag = 0;
    p.sched_delayed = false;
    dequeue_queued(sys, rq, p);
}

// requeue_delayed_entity() (v6.12): a delayed sleeper woken before it left runs on where it
// is; if its lag has turned positive it is placed again with zero lag (DELAY_ZERO).
void requeue_delayed_entity(System& sys, Rq& rq, Task& p) {
    if (sched_features(sys.knobs).delay_zero) {
        eevdf::update_entity_lag(rq, p);
        if (p.vlag > 0) {
            rq.queued.erase(std::find(rq.queued.begin(), rq.queued.end(), &p));
            p.vlag = 0;
            eevdf::place_entity(rq, p, base_slice(sys), 0);
            rq.queued.push_back(&p);
            sys.sg_cache.cpu_changed(rq.cpu);  // the queue order the PELT sums are taken in
        }
    }
    p.sched_delayed = false;
    p.state = TaskState::Runnable;
}

// The class's choice for rq (curr included for EEVDF); delayed entities the pick lands on
// complete their dequeue and the pick is retried.
Task* pick_next_entity(System& sys, Rq& rq) {
    if (!sched_features(sys.knobs).eevdf) return cfs::pick_next_entity(rq);
    for (;;) {
        Task* se = eevdf::pick_eevdf(rq);
        if (!se || !se->sched_delayed) return se;
        update_curr(sys, rq);
        finish_delayed_dequeue(sys, rq, *se);
    }
}

}  // namespace

bool cpus_share_cache(const System& sys, int a, int b) {
    return sys.topo.cpus[a].llc == sys.topo.cpus[b].llc;
}

long adjust_numa_imbalance(long imbalance, int dst_running, int imb_numa_nr) {
    // Allow a small imbalance so that communicating tasks stay on one node while it has room.
    if (dst_running > imb_numa_nr) return imbalance;
    if (imbalance <= NUMA_IMBALANCE_MIN) return 0;
    return imbalance;
}

long adjust_numa_imbalance(long imbalance, int nr_running) {
    return nr_running <= NUMA_IMBALANCE_MIN ? 0 : imbalance;
}

// --- PELT ---

namespace {

struct PeltAverages {
    double load, runnable, util;
};

// One update's decay of `avg` towards a task of weight `w` that was runnable and running (or
// not) over the interval whose decay factor is `decay`.
PeltAverages pelt_step(const SchedAvg& avg, double decay, double w, bool runnable, bool running) {
    return {avg.load_avg * decay + (runnable ? w : 0) * (1 - decay),
            avg.runnable_avg * decay + (runnable ? 1024.0 : 0) * (1 - decay),
            avg.util_avg * decay + (running ? 1024.0 : 0) * (1 - decay)};
}

}  // namespace

bool pelt_settle_holds(const Task& p) {
    const SchedAvg& a = p.avg;
    if (a.settled_delta == 0) return true;
    const double decay = std::exp2(-static_cast<double>(a.settled_delta) / PELT_HALFLIFE_NS);
    const PeltAverages next = pelt_step(a, decay, static_cast<double>(a.settled_weight),
                                        a.settled_runnable, a.settled_running);
    return next.load == a.load_avg && next.runnable == a.runnable_avg && next.util == a.util_avg;
}

namespace {

// Whether update_load_avg(p) now is an update over `delta` (> 0) at the fixed point of that
// interval, p's state and weight: the arithmetic would give back the averages' own bits, so the
// update only moves last_update_time (a task that runs on ticks through here).
bool pelt_at_fixed_point(const Task& p, Nanos delta) {
    const bool running = p.state == TaskState::Running;
    const bool runnable = running || p.state == TaskState::Runnable;
    return delta == p.avg.settled_delta && runnable == p.avg.settled_runnable &&
           running == p.avg.settled_running && p.weight == p.avg.settled_weight;
}

}  // namespace

void update_load_avg(System& sys, Task& p) {
    const Nanos delta = sys.now - p.avg.last_update_time;
    if (delta <= 0) return;
    if (pelt_at_fixed_point(p, delta)) {
        p.avg.last_update_time = sys.now;
        return;
    }
    const bool running = p.state == TaskState::Running;
    const bool runnable = running || p.state == TaskState::Runnable;
    // Most updates come a tick after the last one: the same delta, so the same decay.
    thread_local Nanos last_delta = -1;
    thread_local double last_decay = 1;
    if (delta != last_delta) {
        last_delta = delta;
        last_decay = std::exp2(-static_cast<double>(delta) / PELT_HALFLIFE_NS);
    }
    const auto [load, runnable_avg, util] =
        pelt_step(p.avg, last_decay, static_cast<double>(p.weight), runnable, running);
    p.avg.last_update_time = sys.now;
    // A task that has run without a break for a couple of seconds reaches the fixed point of
    // the update (the same bits every tick); its groups' sums then still hold.
    if (load == p.avg.load_avg && runnable_avg == p.avg.runnable_avg && util == p.avg.util_avg) {
        p.avg.settled_delta = delta;
        p.avg.settled_runnable = runnable;
        p.avg.settled_running = running;
        p.avg.settled_weight = p.weight;
        return;
    }
    p.avg.settled_delta = 0;
    p.avg.load_avg = load;
    p.avg.runnable_avg = runnable_avg;
    p.avg.util_avg = util;
    // load_sum is the geometric series behind load_avg, in LOAD_AVG_MAX units.
    p.avg.load_sum = runnable_avg / 1024.0 * LOAD_AVG_MAX;
    sys.sg_cache.cpu_changed(p.cpu);
}

unsigned long task_h_load(const System&, const Task& p) {
    return static_cast<unsigned long>(p.avg.load_avg);
}

unsigned long cpu_load(const System& sys, int cpu) {
    const Rq& rq = sys.rqs[cpu];
    double l = rq.curr ? rq.curr->avg.load_avg : 0;
    for (const Task* t : rq.queued)
        l += t->avg.load_avg;
    return static_cast<unsigned long>(l);
}

unsigned long cpu_runnable(const System& sys, int cpu) {
    const Rq& rq = sys.rqs[cpu];
    double l = rq.curr ? rq.curr->avg.runnable_avg : 0;
    for (const Task* t : rq.queued)
        l += t->avg.runnable_avg;
    return static_cast<unsigned long>(l);
}

unsigned long cpu_util_cfs(const System& sys, int cpu) {
    const Rq& rq = sys.rqs[cpu];
    double u = rq.curr ? rq.curr->avg.util_avg : 0;
    for (const Task* t : rq.queued)
        u += t->avg.util_avg;
    return std::min(static_cast<unsigned long>(u), rq.cpu_capacity);
}

unsigned long capacity_of(const System& sys, int cpu) {
    return sys.rqs[cpu].cpu_capacity;
}

bool idle_cpu(const System& sys, int cpu) {
    return sys.rqs[cpu].nr_running == 0;
}

bool is_core_idle(const System& sys, int cpu) {
    for (int s : sys.sched.cpu_smt_mask(cpu))
        if (!idle_cpu(sys, s)) return false;
    return true;
}

bool test_idle_cores(const System& sys, int cpu) {
    const SchedDomain* llc = sys.sched.sd_llc(cpu);
    if (!llc) return false;
    for (int c : llc->span)
        if (is_core_idle(sys, c)) return true;
    return false;
}

// --- lifecycle ---

void wake_up_new_task(System& sys, Task& p) {
    p.avg.last_update_time = sys.now;
    // A new task starts with half a CPU of utilisation and full load (post_init_entity_util_avg).
    p.avg.load_avg = static_cast<double>(p.weight);
    p.avg.runnable_avg = 1024;
    p.avg.util_avg = 512;
    p.avg.settled_delta = 0;
    const int cpu = find_idlest_cpu(sys, p, p.cpu, SdFlag::kBalanceFork);
    sys.catch_up_cpu(cpu);
    Rq& rq = sys.rqs[cpu];
    const SchedFeatures feat = sched_features(sys.knobs);
    if (feat.eevdf) {
        update_curr(sys, rq);
        p.vlag = 0;  // __sched_fork()
        eevdf::place_entity(rq, p, base_slice(sys),
                            feat.place_deadline_initial ? eevdf::ENQUEUE_INITIAL : 0);
    } else {
        cfs::place_entity(sys, rq, rq, p, true);
    }
    if (cpu != p.cpu && p.sum_exec_runtime > 0) ++sys.counters.migrations;
    enqueue_task(sys, rq, p);
    if (!rq.curr)
        schedule(sys, cpu);
    else if (feat.eevdf)
        check_preempt_wakeup(sys, rq, p);
}

void try_to_wake_up(System& sys, Task& p, const Waker& waker) {
    if (p.state != TaskState::Sleeping) return;
    update_load_avg(sys, p);
    const SchedFeatures feat = sched_features(sys.knobs);
    if (p.sched_delayed) {
        // ttwu_runnable(): still queued, so it wakes where it is, without select_task_rq().
        sys.catch_up_cpu(p.cpu);
        Rq& rq = sys.rqs[p.cpu];
        requeue_delayed_entity(sys, rq, p);
        p.last_wakeup = rq.clock;
        trace_sched_wakeup(sys, p, p.cpu, p.cpu);
        if (!rq.curr)
            schedule(sys, rq.cpu);
        else
            check_preempt_wakeup(sys, rq, p);
        return;
    }
    const int prev = p.cpu;
    const Waker w = waker.cpu < 0 ? timer_waker(sys, p) : waker;
    int cpu = select_task_rq_fair(sys, p, prev, w);
    if (!p.allowed(cpu)) cpu = find_idlest_cpu(sys, p, prev, SdFlag::kAnyDomain);
    // The wakee is placed against the target's vruntimes (and, with CFS, prev's min_vruntime).
    sys.catch_up_cpu(cpu);
    sys.catch_up_cpu(prev);
    Rq& rq = sys.rqs[cpu];
    if (feat.eevdf) {
        // The lag stored at the sleep is applied against this runqueue's V (e8f331bcc270).
        update_curr(sys, rq);
        eevdf::place_entity(rq, p, base_slice(sys), 0);
    } else {
        cfs::place_entity(sys, rq, sys.rqs[prev], p, false);
    }
    if (cpu != prev) {
        trace_sched_migrate_task(sys, p, cpu);
        ++sys.counters.migrations;
        ++p.nr_migrations;
        if (sys.cpu_to_node(cpu) != sys.cpu_to_node(prev)) update_scan_period(sys, p, cpu);
    }
    enqueue_task(sys, rq, p);
    p.last_wakeup = rq.clock;
    trace_sched_wakeup(sys, p, cpu, w.cpu);
    if (!rq.curr)
        schedule(sys, cpu);
    else if (feat.eevdf)
        check_preempt_wakeup(sys, rq, p);
    else if (cfs::check_preempt_wakeup(sys, rq, p))
        rq.need_resched = true;
}

void dequeue_sleeping_task(System& sys, Task& p, bool exiting) {
    Rq& rq = sys.rqs[p.cpu];
    update_load_avg(sys, p);
    const SchedFeatures feat = sched_features(sys.knobs);
    if (rq.curr == &p) {
        if (feat.eevdf) {
            update_curr(sys, rq);
            // DELAY_DEQUEUE: an ineligible sleeper stays queued and keeps competing until its
            // negative lag is burnt off (exit dequeues at once).
            if (feat.delay_dequeue && !exiting && !eevdf::entity_eligible(rq, p)) {
                trace_sched_left_cpu(sys, rq.cpu, p, SwitchOutState::Sleeping);
                rq.curr = nullptr;
                rq.queued.push_back(&p);
                sys.sg_cache.cpu_changed(rq.cpu);
                p.sched_delayed = true;
                p.state = TaskState::Sleeping;
                ++p.nvcsw;
                return;
            }
            eevdf::update_entity_lag(rq, p);
        }
        trace_sched_left_cpu(sys, rq.cpu, p, switch_out_state(p, exiting));
        rq.curr = nullptr;
        --rq.nr_running;
        account_numa_dequeue(sys, rq, p);
        sys.sg_cache.cpu_changed(rq.cpu);
        ++p.nvcsw;
    } else if (p.state == TaskState::Runnable) {
        dequeue_queued(sys, rq, p);
    } else if (p.sched_delayed) {
        p.sched_delayed = false;
        dequeue_queued(sys, rq, p);
    }
    p.state = TaskState::Sleeping;
}

void schedule(System& sys, int cpu) {
    sys.catch_up_cpu(cpu);
    // Whatever the CPU ends up running, sched_switch reports the change when this returns.
    const SettleOnReturn settle{sys, cpu};
    Rq& rq = sys.rqs[cpu];
    Task* prev = rq.curr;
    if (prev && !rq.need_resched) return;
    const bool eevdf = sched_features(sys.knobs).eevdf;
    Task* next = pick_next_entity(sys, rq);
    rq.need_resched = false;           // after the pick, whose dequeues may have asked again
    if (prev && next == prev) return;  // EEVDF chose curr again
    if (prev && next && !eevdf && prev->vruntime <= next->vruntime) return;  // prev stays
    if (!next) {
        if (!prev) {
            newidle_balance(sys, cpu);
            // A task pulled by the balance may already have been picked (move_task schedules
            // an idle destination); then this CPU is busy again.
            if (rq.curr) return;
            next = pick_next_entity(sys, rq);
            if (!next) {
                // The CPU idles: with NO_HZ its tick stops now (the model's
                // tick_nohz_idle_stop_tick(), without the kernel's wait for a quiet timer).
                nohz_balance_enter_idle(sys, cpu);
                return;
            }
        } else {
            return;
        }
    }
    if (prev) {
        update_load_avg(sys, *prev);
        prev->state = TaskState::Runnable;
        rq.queued.push_back(prev);
        ++prev->nivcsw;
    }
    rq.queued.erase(std::find(rq.queued.begin(), rq.queued.end(), next));
    update_load_avg(sys, *next);
    next->state = TaskState::Running;
    next->exec_start = rq.clock;
    next->prev_sum_exec_runtime = next->sum_exec_runtime;
    // set_next_entity(): RUN_TO_PARITY's stash of the request the task is picked for.
    if (eevdf) next->vlag = next->deadline;
    rq.curr = next;
    sys.sg_cache.cpu_changed(cpu);
    switch_mm_irqs_off(sys, cpu, next->mm);
    ++rq.nr_switches;
    ++sys.counters.cs;
    next->kernel_debt += static_cast<Nanos>(sys.cost.k().CONTEXT_SWITCH_NS);
    if (sys.latency && !next->kthread()) sys.latency->picked(*next, rq.clock);
    update_min_vruntime(rq);
}

// --- tick ---

void scheduler_tick(System& sys, int cpu) {
    Rq& rq = sys.rqs[cpu];
    if (Task* curr = rq.curr) {
        const Nanos delta = sys.now - curr->avg.last_update_time;
        if (sys.settled_tick_in_place && rq.queued.empty() && delta > 0 &&
            pelt_at_fixed_point(*curr, delta)) {
            // curr alone on rq, its PELT update at its fixed point: SettledTicks::tick() and
            // store() leave what the calls below would, piece by piece:
            // - update_load_avg(curr) only sets last_update_time to now (pelt_at_fixed_point);
            //   SettledTicks stores its tick's time there.
            // - EEVDF's update_curr(): update_deadline() renews the request iff
            //   !(vruntime < deadline), to slice = base_slice and deadline = vruntime +
            //   calc_delta_fair(base_slice, curr); SettledTicks takes the same test against
            //   the same deadline and adds the same quotient (its vslice_, of the same task and
            //   weight), and store() sets the same slice. The resched asked when nr_running > 1
            //   is store()'s too. update_min_vruntime() with nothing queued takes max(rq's,
            //   curr's vruntime) when finite: SettledTicks::tick()'s test and max.
            // - CFS: the same update_min_vruntime(); check_preempt_tick() is false with nothing
            //   queued, and SettledTicks renews no request under CFS.
            // - The loop over rq.queued below updates nobody.
            // None of these emits a tracepoint or touches sg_cache; what comes after
            // (task_tick_numa against its deadline, the latency tick, trigger_load_balance's due
            // check) runs as on the full path, in the same order.
            SettledTicks settled(sys, rq);
            settled.tick(curr->vruntime, sys.now);
            settled.store();
            ++sys.settled_ticks_in_place;
        } else {
            update_load_avg(sys, *curr);
            if (sched_features(sys.knobs).eevdf) {
                update_curr(sys, rq);  // the only tick preemption: a request ended
            } else {
                update_min_vruntime(rq);
                if (cfs::check_preempt_tick(sys, rq)) rq.need_resched = true;
            }
        }
        if (sys.numa_balancing_enabled()) task_tick_numa(sys, *curr);
        if (sys.latency && !curr->kthread()) sys.latency->tick(*curr);
    }
    for (Task* t : rq.queued)
        update_load_avg(sys, *t);
    trigger_load_balance(sys, cpu);
}

Nanos settled_tick_until(const System& sys, int cpu) {
    const Rq& rq = sys.rqs[cpu];
    const Task* curr = rq.curr;
    // Alone on its runqueue and not asked to leave it: no tick preemption (EEVDF's needs a
    // second task, CFS's check_preempt_tick a queued one) and no other task's PELT update; not
    // still marked idle (nohz_balancer_kick would take it out).
    if (!curr || !rq.queued.empty() || rq.need_resched || curr->state != TaskState::Running ||
        rq.nohz_tick_stopped)
        return sys.now;
    // update_load_avg() a tick after an update that changed nothing changes nothing again.
    if (curr->avg.last_update_time != sys.now || curr->avg.settled_delta != TICK_NSEC)
        return sys.now;
    // task_tick_numa() acts once the runtime passes its deadline; the runtime grows with time.
    const Nanos deadline = task_tick_numa_deadline(sys, *curr);
    if (deadline == std::numeric_limits<Nanos>::max()) return deadline;
    return sys.now + (deadline - curr->sum_exec_runtime) + 1;
}

void SettledTicks::store() const {
    if (!ticked_) return;
    Task& curr = *rq_.curr;
    curr.avg.last_update_time = last_update_;
    if (renewed_) {
        curr.slice = base_slice_;
        curr.deadline = deadline_;
        if (rq_.nr_running > 1) rq_.need_resched = true;
    }
    rq_.min_vruntime = min_vruntime_;
}

// --- moving tasks ---

namespace {

// The cache refill `p` pays after moving: the cost model weighs what it touches against what
// runs on the destination's SMT siblings now (they share its L1 and L2) and on its LLC.
double move_refill_ns(const System& sys, const Task& p, int src_cpu, int dst_cpu) {
    std::vector<const AccessMix*> mates;
    for (int c : sys.sched.cpu_smt_mask(dst_cpu)) {
        const Task* t = sys.rqs[c].curr;
        if (c != dst_cpu && t && t != &p && t->touches) mates.push_back(t->touches);
    }
    return sys.cost.move_refill_ns(p.touches, p.index, src_cpu, dst_cpu, mates);
}

}  // namespace

void move_task(System& sys, Task& p, int dst_cpu) {
    const int src_cpu = p.cpu;
    if (src_cpu == dst_cpu) return;
    sys.catch_up_cpu(src_cpu);
    sys.catch_up_cpu(dst_cpu);
    Rq& src = sys.rqs[src_cpu];
    Rq& dst = sys.rqs[dst_cpu];
    const SchedFeatures feat = sched_features(sys.knobs);
    update_load_avg(sys, p);
    const bool was_running = src.curr == &p;
    trace_sched_migrate_task(sys, p, dst_cpu);
    if (feat.eevdf) {
        // dequeue_entity(): the lag is taken against the source's V with p still counted.
        update_curr(sys, src);
        eevdf::update_entity_lag(src, p);
        if (feat.place_rel_deadline) {
            p.deadline -= p.vruntime;
            p.rel_deadline = true;
        }
    }
    if (was_running) {
        trace_sched_left_cpu(sys, src_cpu, p, SwitchOutState::Preempted);
        src.curr = nullptr;
        --src.nr_running;
        account_numa_dequeue(sys, src, p);
        sys.sg_cache.cpu_changed(src_cpu);
        ++p.nivcsw;
    } else {
        dequeue_queued(sys, src, p);
    }
    // migrate_task_rq_fair(): keep vruntime relative to the runqueues (CFS) or re-apply the lag
    // (EEVDF), and reset the scan period when the task changes node.
    if (feat.eevdf) {
        update_curr(sys, dst);
        eevdf::place_entity(dst, p, base_slice(sys), 0);
    } else {
        cfs::migrate_task_rq_fair(src, dst, p);
    }
    if (sys.cpu_to_node(src_cpu) != sys.cpu_to_node(dst_cpu)) update_scan_period(sys, p, dst_cpu);
    ++sys.counters.migrations;
    ++p.nr_migrations;
    // The task's cached working set stays behind, except what is warm where it lands.
    p.stall_debt += static_cast<Nanos>(move_refill_ns(sys, p, src_cpu, dst_cpu));
    enqueue_task(sys, dst, p);
    if (was_running) schedule(sys, src_cpu);
    if (!dst.curr)
        schedule(sys, dst_cpu);
    else if (feat.eevdf)
        check_preempt_wakeup(sys, dst, p);  // attach_task() / move_queued_task()
    else if (was_running)
        dst.need_resched = true;
}

}  // namespace numasim
