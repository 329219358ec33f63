#include "sched/fair.h"

#include <algorithm>
#include <bit>
#include <cmath>

#include "cost/constants.h"
#include "engine/system.h"
#include "numab/numab.h"
#include "sched/load_balance.h"
#include "sched/sched_tunables.h"

namespace numasim {

int sched_tunable_factor(int nr_cpus) {
    return 1 + std::bit_width(static_cast<unsigned>(std::min(nr_cpus, 8))) - 1;
}

namespace {

Nanos sched_latency(const System& sys) {
    return SYSCTL_SCHED_LATENCY * sched_tunable_factor(sys.nr_cpus());
}
Nanos min_granularity(const System& sys) {
    return SYSCTL_SCHED_MIN_GRANULARITY * sched_tunable_factor(sys.nr_cpus());
}

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
    account_numa_enqueue(sys, rq, p);
}

void dequeue_queued(System& sys, Rq& rq, Task& p) {
    auto it = std::find(rq.queued.begin(), rq.queued.end(), &p);
    if (it != rq.queued.end()) rq.queued.erase(it);
    --rq.nr_running;
    account_numa_dequeue(sys, rq, p);
}

// select_idle_sibling(): prefer the target, then an idle core in its LLC, then any idle CPU.
int select_idle_sibling(const System& sys, const Task& p, int target) {
    if (idle_cpu(sys, target) && p.allowed(target)) return target;
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

// --- PELT ---

void update_load_avg(System& sys, Task& p) {
    const Nanos delta = sys.now - p.avg.last_update_time;
    if (delta <= 0) return;
    const double decay = std::exp2(-static_cast<double>(delta) / PELT_HALFLIFE_NS);
    const bool running = p.state == TaskState::Running;
    const bool runnable = running || p.state == TaskState::Runnable;
    const double w = static_cast<double>(p.weight);
    p.avg.load_avg = p.avg.load_avg * decay + (runnable ? w : 0) * (1 - decay);
    p.avg.runnable_avg = p.avg.runnable_avg * decay + (runnable ? 1024.0 : 0) * (1 - decay);
    p.avg.util_avg = p.avg.util_avg * decay + (running ? 1024.0 : 0) * (1 - decay);
    // load_sum is the geometric series behind load_avg, in LOAD_AVG_MAX units.
    p.avg.load_sum = p.avg.runnable_avg / 1024.0 * LOAD_AVG_MAX;
    p.avg.last_update_time = sys.now;
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
    for (int s : sys.topo.smt_siblings(cpu))
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
    const int cpu = find_idlest_cpu(sys, p, p.cpu);
    Rq& rq = sys.rqs[cpu];
    // START_DEBIT: a new task starts one slice behind, so forking cannot starve others.
    p.vruntime = rq.min_vruntime + static_cast<double>(min_granularity(sys));
    if (cpu != p.cpu && p.sum_exec_runtime > 0) ++sys.counters.migrations;
    enqueue_task(sys, rq, p);
    if (!rq.curr) schedule(sys, cpu);
}

void try_to_wake_up(System& sys, Task& p) {
    if (p.state != TaskState::Sleeping) return;
    update_load_avg(sys, p);
    const int prev = p.cpu;
    int cpu = select_idle_sibling(sys, p, prev);
    if (!p.allowed(cpu)) cpu = find_idlest_cpu(sys, p, prev);
    Rq& rq = sys.rqs[cpu];
    // GENTLE_FAIR_SLEEPERS: credit at most half a latency period of sleep.
    const double floor = rq.min_vruntime - static_cast<double>(sched_latency(sys)) / 2;
    p.vruntime = std::max(p.vruntime - sys.rqs[prev].min_vruntime + rq.min_vruntime, floor);
    if (cpu != prev) {
        ++sys.counters.migrations;
        ++p.nr_migrations;
        if (sys.cpu_to_node(cpu) != sys.cpu_to_node(prev)) update_scan_period(sys, p, cpu);
    }
    enqueue_task(sys, rq, p);
    if (!rq.curr)
        schedule(sys, cpu);
    else if (rq.curr->vruntime - p.vruntime >
             static_cast<double>(SYSCTL_SCHED_WAKEUP_GRANULARITY *
                                 sched_tunable_factor(sys.nr_cpus())))
        rq.need_resched = true;  // check_preempt_wakeup
}

void dequeue_sleeping_task(System& sys, Task& p) {
    Rq& rq = sys.rqs[p.cpu];
    update_load_avg(sys, p);
    if (rq.curr == &p) {
        rq.curr = nullptr;
        --rq.nr_running;
        account_numa_dequeue(sys, rq, p);
        ++p.nvcsw;
    } else if (p.state == TaskState::Runnable) {
        dequeue_queued(sys, rq, p);
    }
    p.state = TaskState::Sleeping;
}

void schedule(System& sys, int cpu) {
    Rq& rq = sys.rqs[cpu];
    Task* prev = rq.curr;
    if (prev && !rq.need_resched) return;
    rq.need_resched = false;
    Task* next = nullptr;
    for (Task* t : rq.queued)
        if (!next || t->vruntime < next->vruntime) next = t;
    if (prev && next && prev->vruntime <= next->vruntime) return;  // prev stays
    if (!next) {
        if (!prev) {
            rq.idle_stamp = sys.now;
            newidle_balance(sys, cpu);
            // A task pulled by the balance may already have been picked (move_task schedules
            // an idle destination); then this CPU is busy again.
            if (rq.curr) return;
            for (Task* t : rq.queued)
                if (!next || t->vruntime < next->vruntime) next = t;
            if (!next) return;
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
    rq.curr = next;
    ++rq.nr_switches;
    ++sys.counters.cs;
    next->kernel_debt += static_cast<Nanos>(cost::CONTEXT_SWITCH_NS);
    update_min_vruntime(rq);
}

// --- tick ---

void scheduler_tick(System& sys, int cpu) {
    Rq& rq = sys.rqs[cpu];
    if (Task* curr = rq.curr) {
        update_load_avg(sys, *curr);
        update_min_vruntime(rq);
        // check_preempt_tick(): preempt once curr has had its share of the latency period.
        if (!rq.queued.empty()) {
            const Nanos period = std::max(sched_latency(sys),
                                          min_granularity(sys) * static_cast<Nanos>(rq.nr_running));
            const Nanos ideal =
                std::max(min_granularity(sys), period / static_cast<Nanos>(rq.nr_running));
            const Nanos ran = curr->sum_exec_runtime - curr->prev_sum_exec_runtime;
            if (ran > ideal) rq.need_resched = true;
        }
        if (sys.numa_balancing_enabled()) task_tick_numa(sys, *curr);
    }
    for (Task* t : rq.queued)
        update_load_avg(sys, *t);
    trigger_load_balance(sys, cpu);
}

// --- moving tasks ---

void move_task(System& sys, Task& p, int dst_cpu) {
    const int src_cpu = p.cpu;
    if (src_cpu == dst_cpu) return;
    Rq& src = sys.rqs[src_cpu];
    Rq& dst = sys.rqs[dst_cpu];
    update_load_avg(sys, p);
    const bool was_running = src.curr == &p;
    if (was_running) {
        src.curr = nullptr;
        --src.nr_running;
        account_numa_dequeue(sys, src, p);
        ++p.nivcsw;
    } else {
        dequeue_queued(sys, src, p);
    }
    // migrate_task_rq_fair(): keep vruntime relative to the runqueues, and reset the scan
    // period when the task changes node.
    p.vruntime = p.vruntime - src.min_vruntime + dst.min_vruntime;
    if (sys.cpu_to_node(src_cpu) != sys.cpu_to_node(dst_cpu)) update_scan_period(sys, p, dst_cpu);
    ++sys.counters.migrations;
    ++p.nr_migrations;
    p.last_migration_time = sys.now;
    // The task's cached working set stays behind: refill the private caches, and across LLCs
    // as much of its footprint as the LLC held, from wherever its memory is.
    double refill = cost::PRIVATE_CACHE_BYTES;
    if (!cpus_share_cache(sys, src_cpu, dst_cpu))
        refill = std::max(refill, sys.cost.llc_bytes() / 4);
    p.stall_debt += static_cast<Nanos>(
        sys.cost.refill_ns(refill, sys.cpu_to_node(dst_cpu), sys.cpu_to_node(src_cpu)));
    enqueue_task(sys, dst, p);
    if (was_running) schedule(sys, src_cpu);
    if (!dst.curr)
        schedule(sys, dst_cpu);
    else if (was_running)
        dst.need_resched = true;
}

}  // namespace numasim
