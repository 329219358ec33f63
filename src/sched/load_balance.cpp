#include "sched/load_balance.h"

#include <algorithm>

#include "kernel/system.h"
#include "numab/numab.h"
#include "sched/fair.h"
#include "sched/lb_env.h"
#include "sched/nohz.h"
#include "sched/numa_imbalance.h"
#include "sched/sched_tunables.h"

namespace numasim {

namespace {

// group_classify(): overloaded when more tasks than CPUs and the capacity is used up.
GroupType group_classify(const SgStats& s, int imbalance_pct) {
    if (s.sum_nr_running > s.weight && (s.capacity * 100 < s.util * imbalance_pct ||
                                        s.capacity * imbalance_pct < s.runnable * 100))
        return GroupType::Overloaded;
    if (s.sum_nr_running < s.weight || (s.capacity * 100 > s.util * imbalance_pct &&
                                        s.capacity * imbalance_pct > s.runnable * 100))
        return GroupType::HasSpare;
    return GroupType::FullyBusy;
}

// Whether the imbalance is counted in tasks: migrate_task, and in this model migrate_util too
// (the kernel counts that one in utilisation; docs/model.md).
bool counted_in_tasks(MigrationType t) {
    return t == MigrationType::Task || t == MigrationType::Util;
}

}  // namespace

SgStats group_stats(System& sys, const SchedDomain& sd, size_t g) {
    const std::vector<int>& cpus = sd.groups[g];
    const SgSums sums = sys.sg_cache.enabled() && g < sd.group_ids.size()
                            ? sys.sg_cache.get(sys, sd.group_ids[g])
                            : sum_group(sys, cpus);
    SgStats s;
    s.cpus = &cpus;
    s.load = sums.load;
    s.util = sums.util;
    s.runnable = sums.runnable;
    s.capacity = sums.capacity;
    s.sum_nr_running = sums.sum_nr_running;
    s.idle_cpus = sums.idle_cpus;
    s.weight = sums.weight;
    s.nr_numa_running = sums.nr_numa_running;
    s.nr_preferred_running = sums.nr_preferred_running;
    s.avg_load = s.capacity ? static_cast<double>(s.load) * SCHED_CAPACITY_SCALE / s.capacity : 0;
    s.type = group_classify(s, sd.imbalance_pct);
    return s;
}

namespace {

bool task_hot(const System& sys, const Task& p) {
    return sys.now - p.exec_start < SYSCTL_SCHED_MIGRATION_COST;
}

bool can_migrate_task(System& sys, Task& p, int dst_cpu, const SchedDomain& sd, CpuIdleType idle,
                      unsigned nr_balance_failed) {
    if (!p.allowed(dst_cpu)) return false;
    if (sys.rqs[p.cpu].curr == &p) return false;
    // An EEVDF sleeper whose dequeue is delayed (v6.12) is asleep: nothing to balance.
    if (p.sched_delayed) return false;
    int hot = migrate_degrades_locality(sys, p, p.cpu, dst_cpu, sd, idle == CpuIdleType::Idle);
    if (hot == -1) hot = task_hot(sys, p);
    return hot <= 0 || static_cast<int>(nr_balance_failed) > sd.cache_nice_tries;
}

// sibling_imbalance() (v6.6): the task-count difference that evens out running tasks per core
// between two groups; an empty local group takes at least one task off a busy sibling.
long sibling_imbalance(const LbEnv& env, const SgStats& busiest, const SgStats& local) {
    if (env.idle == CpuIdleType::NotIdle || busiest.sum_nr_running == 0) return 0;
    const long nb = busiest.weight, nl = local.weight;
    const long rb = busiest.sum_nr_running, rl = local.sum_nr_running;
    if (nb == nl) return std::max(0L, rb - rl);
    long imb = std::max(0L, nl * rb - nb * rl);
    imb = (2 * imb + nl + nb) / (nl + nb);
    if (imb <= 1 && rl == 0 && rb > 1) imb = 2;
    return imb;
}

// find_busiest_group() + calculate_imbalance(), reduced to the group types we model.
const SgStats* find_busiest_group(System& sys, LbEnv& env, std::vector<SgStats>& groups) {
    const SchedDomain& sd = *env.sd;
    const SgStats* local = nullptr;
    const SgStats* busiest = nullptr;
    unsigned long total_load = 0, total_cap = 0;
    // env.dst_cpu is the CPU whose domain sd is: holds_cpu says which groups hold it.
    for (size_t i = 0; i < sd.groups.size(); ++i) {
        groups.push_back(group_stats(sys, sd, i));
        SgStats& s = groups.back();
        s.local = sd.holds_cpu[i];
        total_load += s.load;
        total_cap += s.capacity;
    }
    for (const auto& s : groups) {
        if (s.local) {
            if (!local) local = &s;
            continue;
        }
        if (s.sum_nr_running == 0) continue;
        if (!busiest || s.type > busiest->type ||
            (s.type == busiest->type &&
             (s.type == GroupType::HasSpare ? (s.idle_cpus < busiest->idle_cpus ||
                                               (s.idle_cpus == busiest->idle_cpus &&
                                                s.sum_nr_running > busiest->sum_nr_running))
                                            : s.avg_load > busiest->avg_load)))
            busiest = &s;
    }
    if (!local || !busiest) return nullptr;
    if (sd.numa)
        env.fbq = fbq_classify_group(busiest->sum_nr_running, busiest->nr_numa_running,
                                     busiest->nr_preferred_running);
    if (busiest->type < local->type) return nullptr;
    if (local->type == GroupType::HasSpare) {
        const long sibling = sibling_imbalance(env, *busiest, *local);
        // prefer_sibling spreads running tasks evenly over sibling groups before anything else.
        const bool force = sd.prefer_sibling && sibling > 1;
        if (!force && busiest->type != GroupType::Overloaded) {
            if (env.idle == CpuIdleType::NotIdle) return nullptr;  // let an idle CPU pull
            if (busiest->weight > 1 && local->idle_cpus <= busiest->idle_cpus + 1) return nullptr;
            if (busiest->sum_nr_running == 1) return nullptr;
        }
        env.type = MigrationType::Task;
        if (busiest->type == GroupType::Overloaded && !sd.shares_llc && !force) {
            // Fill the local group's spare capacity: the kernel's migrate_util, counted here in
            // tasks like migrate_task.
            env.type = MigrationType::Util;
            env.imbalance = std::max(
                1L, static_cast<long>(local->weight) - static_cast<long>(local->sum_nr_running));
            return busiest;
        }
        if (busiest->weight == 1 || sd.prefer_sibling)
            env.imbalance = sibling;
        else
            env.imbalance = std::max<long>(
                0, static_cast<long>(local->idle_cpus) - static_cast<long>(busiest->idle_cpus));
        if (sd.numa)
            env.imbalance = numa_balance_imbalance(sys.knobs, sd, env.imbalance, *busiest, *local);
        else
            env.imbalance >>= 1;  // tasks to move to restore balance
        return env.imbalance > 0 ? busiest : nullptr;
    }
    // Local group is busy too: balance the average load per capacity.
    if (local->avg_load >= busiest->avg_load) return nullptr;
    if (100 * busiest->avg_load <= sd.imbalance_pct * local->avg_load) return nullptr;
    const double avg =
        total_cap ? static_cast<double>(total_load) * SCHED_CAPACITY_SCALE / total_cap : 0;
    env.type = MigrationType::Load;
    env.imbalance = static_cast<long>(std::min((busiest->avg_load - avg) * busiest->capacity,
                                               (avg - local->avg_load) * local->capacity) /
                                      SCHED_CAPACITY_SCALE);
    return env.imbalance > 0 ? busiest : nullptr;
}

int find_busiest_queue(System& sys, const LbEnv& env, const SgStats& group) {
    int busiest = -1;
    double best = -1;
    for (int c : *group.cpus) {
        const Rq& rq = sys.rqs[c];
        if (rq.nr_running == 0) continue;
        if (env.sd->numa && static_cast<int>(fbq_classify_rq(rq)) > static_cast<int>(env.fbq))
            continue;
        double v;
        if (counted_in_tasks(env.type))
            v = rq.nr_running;
        else {
            // A lone task is no source. The kernel makes it one when its load fits in the
            // imbalance (and the CPU's capacity is not reduced, which never happens here); the
            // v5.4 path keeps that test, the v5.5+ path skips every lone task.
            if (rq.nr_running == 1 && (env.type != MigrationType::LoadV54 ||
                                       static_cast<long>(cpu_load(sys, c)) > env.imbalance))
                continue;
            v = static_cast<double>(cpu_load(sys, c)) / capacity_of(sys, c);
        }
        if (v > best) {
            best = v;
            busiest = c;
        }
    }
    return busiest;
}

// should_we_balance(): one CPU per group does the work: the first idle one, else the first.
bool should_we_balance(const System& sys, int cpu, const SchedDomain& sd, CpuIdleType idle) {
    if (idle == CpuIdleType::NewlyIdle) return true;
    // The local group, the first of the CPU's own domain (sd->groups), holds the CPU.
    const std::vector<int>& local = sd.groups.front();
    for (int c : local)
        if (idle_cpu(sys, c)) return c == cpu;
    return local.front() == cpu;
}

// A level backs off: its interval doubles, up to max_interval (2 x min_interval).
void back_off(Rq& dst, const SchedDomain& sd, size_t level) {
    dst.balance_interval_ms[level] =
        std::min(dst.balance_interval_ms[level] * 2, 2 * sd.min_interval_ms);
}

// The end of load_balance() when the domain is balanced, or when another CPU balances for this
// CPU's group (out_balanced): the failure count clears and the level backs off. Newidle
// balancing, which runs whenever a CPU runs out of work, leaves the interval alone.
void out_balanced(Rq& dst, const SchedDomain& sd, size_t level, CpuIdleType idle) {
    dst.nr_balance_failed[level] = 0;
    if (idle != CpuIdleType::NewlyIdle) back_off(dst, sd, level);
}

// get_sd_balance_interval(): the level's interval, stretched by busy_factor while the CPU runs
// something, so that busy CPUs balance less often than idle ones.
Nanos get_sd_balance_interval(const Rq& rq, size_t level, bool cpu_busy) {
    const unsigned ms = rq.balance_interval_ms[level] * (cpu_busy ? SD_BUSY_FACTOR : 1);
    return msecs_to_ns(ms);
}

// load_balance(): pull tasks from the busiest runqueue of the domain to dst_cpu; fall back to
// moving the running task (active balance) after repeated failures. Clears
// *continue_balancing when another CPU of the group balances at this level, so that the
// levels above are left to it too.
bool load_balance(System& sys, int cpu, size_t level, CpuIdleType idle, bool* continue_balancing) {
    const SchedDomain& sd = sys.sched.domains[cpu][level];
    Rq& dst = sys.rqs[cpu];
    if (!should_we_balance(sys, cpu, sd, idle)) {
        *continue_balancing = false;
        out_balanced(dst, sd, level, idle);
        return false;
    }
    LbEnv env{cpu, &sd, idle};
    // Kept between calls (per host thread, as parallel runs each have their own), so that a pass
    // does not allocate; nothing reads it once the busiest queue is found, so a balance nested in
    // the moves below may reuse it.
    thread_local std::vector<SgStats> groups;
    groups.clear();
    // The rework of v5.5 (0b0695f2b34a) against the balancer before it.
    const SgStats* busiest = sys.knobs.lb_rework ? find_busiest_group(sys, env, groups)
                                                 : find_busiest_group_v54(sys, env, groups);
    const int src_cpu = busiest ? find_busiest_queue(sys, env, *busiest) : -1;
    if (src_cpu < 0 || src_cpu == cpu) {
        out_balanced(dst, sd, level, idle);
        return false;
    }
    // From here the domain is unbalanced: the interval returns to its minimum, unless active
    // balance was kicked (below).
    Rq& src = sys.rqs[src_cpu];
    int moved = 0;
    // detach_tasks(): walk the queued tasks, oldest vruntime last as the kernel walks its list.
    std::vector<Task*> candidates = src.queued;
    std::sort(candidates.begin(), candidates.end(),
              [](const Task* a, const Task* b) { return a->pid < b->pid; });
    for (Task* p : candidates) {
        if (env.imbalance <= 0) break;
        if (!can_migrate_task(sys, *p, cpu, sd, idle, dst.nr_balance_failed[level])) continue;
        const long load = static_cast<long>(task_h_load(sys, *p));
        // A load imbalance takes a task only if its load fits what is left to move, a test each
        // failed pass halves (shr_bound(load, nr_balance_failed), v5.5+), so that a lone big
        // task waits for the failures instead of overshooting at once.
        if (env.type == MigrationType::Load &&
            (std::max(1L, load) >> std::min(dst.nr_balance_failed[level], 63u)) > env.imbalance)
            continue;
        if (env.type == MigrationType::LoadV54 && load / 2 > env.imbalance) continue;
        move_task(sys, *p, cpu);
        ++moved;
        env.imbalance -= counted_in_tasks(env.type) ? 1 : std::max(1L, load);
        if (idle == CpuIdleType::NewlyIdle) break;
    }
    if (moved) {
        dst.nr_balance_failed[level] = 0;
        dst.balance_interval_ms[level] = sd.min_interval_ms;
        return true;
    }
    // Only periodic balancing counts a failure: newidle balancing runs every time the CPU runs
    // out of work, and counting those would push tasks off their CPUs (cache-hot migrations and
    // active balances) far more often than the kernel does.
    if (idle != CpuIdleType::NewlyIdle) ++dst.nr_balance_failed[level];
    // need_active_balance(): after cache_nice_tries + 2 failures, push the running task, from
    // whatever CPU balances. Before v5.11 any imbalance qualified; from e9b9734b7465 only one
    // counted in tasks (imbalanced_active_balance()): an overloaded group has a waiting task,
    // which detach_tasks() takes once the failures have relaxed its load test. (The kernel's
    // other cases, asymmetric packing, misfit tasks and CPU capacity taken by IRQs or other
    // classes, do not arise in the model.) The stopper then moves the task whatever its cache
    // or locality (LBF_ACTIVE_LB; before it, the count reset to cache_nice_tries + 1 made
    // can_migrate_task() agree).
    const bool need_active =
        (!sys.knobs.lb_rework || env.type == MigrationType::Task) &&
        static_cast<int>(dst.nr_balance_failed[level]) > sd.cache_nice_tries + 2;
    if (need_active && src.curr && src.curr->allowed(cpu)) {
        move_task(sys, *src.curr, cpu);
        dst.nr_balance_failed[level] = sd.cache_nice_tries + 1;
        // Having kicked active balance, the level backs off before v5.11 (doubling up to
        // max_interval); from e9b9734b7465 (v5.11) it keeps its interval, since
        // need_active_balance() no longer holds once the count was reset. lb_rework separates
        // the two: every profile is either v4.x or v6.x.
        if (!sys.knobs.lb_rework) back_off(dst, sd, level);
        return true;
    }
    dst.balance_interval_ms[level] = sd.min_interval_ms;
    return false;
}

}  // namespace

void trigger_load_balance(System& sys, int cpu) {
    // The SCHED_SOFTIRQ is raised once the earliest level is due; the kick is decided from the
    // tick itself. A CPU without domains (on_null_domain()) balances with nobody.
    const Rq& rq = sys.rqs[cpu];
    const bool due = sys.now >= rq.next_balance;
    // With no CPU's tick stopped (none in nohz.idle_cpus_mask, this one included), the kick has
    // no CPU to take out of the mask and none to kick: every busy CPU's tick on a full machine.
    if (sys.knobs.nohz && sys.nohz.nr_cpus != 0 && !sys.sched.domains[cpu].empty())
        nohz_balancer_kick(sys, cpu);
    if (due)
        rebalance_domains(sys, cpu, idle_cpu(sys, cpu) ? CpuIdleType::Idle : CpuIdleType::NotIdle);
}

void rebalance_domains(System& sys, int cpu, CpuIdleType idle) {
    Rq& rq = sys.rqs[cpu];
    const auto& doms = sys.sched.domains[cpu];
    bool busy = idle != CpuIdleType::Idle;
    bool continue_balancing = true;
    Nanos next_balance = sys.now + NEXT_BALANCE_HORIZON;
    for (size_t l = 0; l < doms.size() && continue_balancing; ++l) {
        // A level is due by the interval of the CPU's state now, from when it last balanced
        // there: a CPU that has just gone idle balances at its idle interval at once.
        Nanos interval = get_sd_balance_interval(rq, l, busy);
        if (sys.now >= rq.last_balance[l] + interval) {
            ++sys.balancing_depth;
            const bool pulled = load_balance(sys, cpu, l, idle, &continue_balancing);
            --sys.balancing_depth;
            if (pulled) {
                idle = idle_cpu(sys, cpu) ? CpuIdleType::Idle : CpuIdleType::NotIdle;
                busy = idle != CpuIdleType::Idle;
            }
            rq.last_balance[l] = sys.now;
            interval = get_sd_balance_interval(rq, l, busy);
        }
        next_balance = std::min(next_balance, rq.last_balance[l] + interval);
    }
    if (!doms.empty()) rq.next_balance = next_balance;
}

void newidle_balance(System& sys, int cpu) {
    // A CPU emptied by a pull must not pull straight back inside the same balance.
    if (sys.balancing_depth) return;
    ++sys.balancing_depth;
    Rq& rq = sys.rqs[cpu];
    const auto& doms = sys.sched.domains[cpu];
    // The levels it looks at fall due at their idle interval: the CPU is about to idle, and
    // its next periodic balance (or the idle load balancer's for it) must not wait out the
    // busy interval it had while it ran.
    Nanos next_balance = sys.now + NEXT_BALANCE_HORIZON;
    bool continue_balancing = true;  // every CPU may balance when newly idle
    for (size_t l = 0; l < doms.size() && rq.queued.empty() && !rq.curr; ++l) {
        load_balance(sys, cpu, l, CpuIdleType::NewlyIdle, &continue_balancing);
        next_balance =
            std::min(next_balance, rq.last_balance[l] + get_sd_balance_interval(rq, l, false));
    }
    rq.next_balance = std::min(rq.next_balance, next_balance);
    --sys.balancing_depth;
}

namespace {

bool has_flag(const SchedDomain& sd, SdFlag flag) {
    switch (flag) {
        case SdFlag::kBalanceFork:
            return sd.balance_fork;
        case SdFlag::kBalanceExec:
            return sd.balance_exec;
        case SdFlag::kAnyDomain:
            return true;
    }
    return true;
}

}  // namespace

int find_idlest_cpu(System& sys, const Task& p, int prev_cpu, SdFlag flag) {
    // Walk from the highest domain with the flag down, choosing the idlest group at each level.
    int cpu = p.allowed(prev_cpu) ? prev_cpu : -1;
    if (cpu < 0)
        for (int c = 0; c < sys.nr_cpus(); ++c)
            if (p.allowed(c)) {
                cpu = c;
                break;
            }
    long top = -1;
    for (const SchedDomain& sd : sys.sched.domains[cpu]) {
        if (!has_flag(sd, flag)) break;
        ++top;
    }
    for (long l = top; l >= 0; --l) {
        l = std::min<long>(l, static_cast<long>(sys.sched.domains[cpu].size()) - 1);
        const SchedDomain& sd = sys.sched.domains[cpu][l];
        if (!has_flag(sd, flag)) continue;
        const SgStats* local = nullptr;
        const SgStats* idlest = nullptr;
        std::vector<SgStats> groups;
        groups.reserve(sd.groups.size());
        for (size_t i = 0; i < sd.groups.size(); ++i) {
            const std::vector<int>& g = sd.groups[i];
            bool allowed = false;
            for (int c : g)
                allowed |= p.allowed(c);
            if (!allowed) continue;
            groups.push_back(group_stats(sys, sd, i));
            groups.back().local = sd.holds_cpu[i];
        }
        for (const auto& s : groups) {
            if (s.local) {
                if (!local) local = &s;
                continue;
            }
            if (!idlest || s.type < idlest->type ||
                (s.type == idlest->type &&
                 (s.idle_cpus > idlest->idle_cpus ||
                  (s.idle_cpus == idlest->idle_cpus && s.sum_nr_running < idlest->sum_nr_running))))
                idlest = &s;
        }
        if (!idlest) continue;
        bool go = false;
        if (!local || idlest->type < local->type)
            go = true;
        else if (idlest->type == local->type && local->type == GroupType::HasSpare) {
            if (sd.numa && numa_fork_rules(sys.knobs)) {
                // Keep a task near its preferred node, and allow a small imbalance.
                const int pref = p.numa_preferred_nid;
                if (pref != NUMA_NO_NODE && sys.cpu_to_node(cpu) == pref) continue;
                go = (pref != NUMA_NO_NODE && sys.cpu_to_node(idlest->cpus->front()) == pref) ||
                     numa_fork_spreads(sys.knobs, local->sum_nr_running, local->idle_cpus,
                                       idlest->idle_cpus, sd.imb_numa_nr, p.nr_cpus_allowed);
            } else {
                go = idlest->idle_cpus > local->idle_cpus + (sd.shares_llc ? 0 : 1) ||
                     (idlest->idle_cpus > local->idle_cpus &&
                      idlest->sum_nr_running + 1 < local->sum_nr_running);
            }
        } else if (idlest->type == local->type) {
            go = idlest->avg_load * sd.imbalance_pct < local->avg_load * 100;
        }
        if (!go) continue;
        // The idlest CPU of that group, preferring a fully idle core.
        int best = -1;
        for (int c : *idlest->cpus) {
            if (!p.allowed(c)) continue;
            if (best < 0 || sys.rqs[c].nr_running < sys.rqs[best].nr_running ||
                (sys.rqs[c].nr_running == sys.rqs[best].nr_running && idle_cpu(sys, c) &&
                 is_core_idle(sys, c) && !is_core_idle(sys, best)))
                best = c;
        }
        if (best >= 0) cpu = best;  // and continue the walk in the new CPU's lower domains
    }
    return cpu;
}

}  // namespace numasim
