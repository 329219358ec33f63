// The load balancer's group selection and imbalance arithmetic before Vincent Guittot's rework
// (0b0695f2b34a "sched/fair: Rework load_balance()", v5.5), as kernel/sched/fair.c had them in
// v4.x-v5.4: everything is load. A group is overloaded or "other" (the misfit, asym and
// imbalanced classes do not arise here); the busiest group is the most overloaded, then the one
// with the highest avg_load; the imbalance is the load that brings both groups to the domain
// average, or fix_small_imbalance()'s one task's worth. The NUMA imbalance allowance did not
// exist yet. The integer arithmetic is the kernel's (unsigned long, truncating divisions).
#include <algorithm>
#include <limits>

#include "kernel/system.h"
#include "sched/fair.h"
#include "sched/lb_env.h"
#include "sched/sched_domain.h"

namespace numasim {

namespace {

constexpr unsigned long SCALE = SCHED_CAPACITY_SCALE;

struct Sg {
    const SgStats* s = nullptr;
    unsigned long avg_load = 0;       // group_load x SCALE / capacity
    unsigned long load_per_task = 0;  // group_load / sum_nr_running
    bool overloaded = false;          // group_no_capacity
};

// group_is_overloaded() and group_has_capacity() of v5.4: utilisation only (the runnable test
// came in v5.7).
bool group_is_overloaded(const SgStats& s, int pct) {
    return s.sum_nr_running > s.weight &&
           s.capacity * 100 < s.util * static_cast<unsigned long>(pct);
}
bool group_has_capacity(const SgStats& s, int pct) {
    return s.sum_nr_running < s.weight ||
           s.capacity * 100 > s.util * static_cast<unsigned long>(pct);
}

Sg make_sg(const SgStats& s, int pct) {
    Sg g;
    g.s = &s;
    g.avg_load = s.capacity ? s.load * SCALE / s.capacity : 0;
    g.load_per_task = s.sum_nr_running ? s.load / s.sum_nr_running : 0;
    g.overloaded = group_is_overloaded(s, pct);
    return g;
}

// fix_small_imbalance(): move one task's load if that evens the groups out or if it raises the
// throughput the two groups get together.
long fix_small_imbalance(const System& sys, const LbEnv& env, const Sg& local, const Sg& busiest) {
    unsigned long imbn = 2;
    unsigned long local_lpt = local.load_per_task;
    if (!local.s->sum_nr_running) {
        const unsigned nr = sys.rqs[env.dst_cpu].nr_running;  // cpu_avg_load_per_task()
        local_lpt = nr ? cpu_load(sys, env.dst_cpu) / nr : 0;
    } else if (busiest.load_per_task > local_lpt) {
        imbn = 1;
    }
    const unsigned long bcap = busiest.s->capacity, lcap = local.s->capacity;
    const unsigned long scaled_busy_lpt = busiest.load_per_task * SCALE / bcap;
    if (busiest.avg_load + scaled_busy_lpt >= local.avg_load + scaled_busy_lpt * imbn)
        return static_cast<long>(busiest.load_per_task);
    unsigned long capa_now = bcap * std::min(busiest.load_per_task, busiest.avg_load) +
                             lcap * std::min(local_lpt, local.avg_load);
    capa_now /= SCALE;
    unsigned long capa_move = 0;
    if (busiest.avg_load > scaled_busy_lpt)
        capa_move += bcap * std::min(busiest.load_per_task, busiest.avg_load - scaled_busy_lpt);
    const unsigned long tmp = busiest.avg_load * bcap < busiest.load_per_task * SCALE
                                  ? busiest.avg_load * bcap / lcap
                                  : busiest.load_per_task * SCALE / lcap;
    capa_move += lcap * std::min(local_lpt, local.avg_load + tmp);
    capa_move /= SCALE;
    return capa_move > capa_now ? static_cast<long>(busiest.load_per_task) : 0;
}

long calculate_imbalance(const System& sys, const LbEnv& env, const Sg& local, const Sg& busiest,
                         unsigned long sds_avg_load) {
    // Below or above the domain average: only a small imbalance can be fixed.
    if (busiest.avg_load <= sds_avg_load || local.avg_load >= sds_avg_load)
        return fix_small_imbalance(sys, env, local, busiest);
    // With both groups overloaded, do not move so much that busiest drops below its capacity.
    unsigned long load_above_capacity = std::numeric_limits<unsigned long>::max();
    if (busiest.overloaded && local.overloaded) {
        load_above_capacity = busiest.s->sum_nr_running * SCALE;
        if (load_above_capacity > busiest.s->capacity) {
            load_above_capacity -= busiest.s->capacity;
            load_above_capacity *= NICE_0_LOAD;
            load_above_capacity /= busiest.s->capacity;
        } else {
            load_above_capacity = std::numeric_limits<unsigned long>::max();
        }
    }
    const unsigned long max_pull = std::min(busiest.avg_load - sds_avg_load, load_above_capacity);
    const long imbalance =
        static_cast<long>(std::min(max_pull * busiest.s->capacity,
                                   (sds_avg_load - local.avg_load) * local.s->capacity) /
                          SCALE);
    if (imbalance < static_cast<long>(busiest.load_per_task))
        return fix_small_imbalance(sys, env, local, busiest);
    return imbalance;
}

}  // namespace

const SgStats* find_busiest_group_v54(System& sys, LbEnv& env, std::vector<SgStats>& groups) {
    const SchedDomain& sd = *env.sd;
    const int pct = sd.imbalance_pct;
    unsigned long total_load = 0, total_cap = 0;
    for (size_t i = 0; i < sd.groups.size(); ++i) {
        groups.push_back(group_stats(sys, sd, i));
        groups.back().local = sd.holds_cpu[i];  // env.dst_cpu's own domain
        total_load += groups.back().load;
        total_cap += groups.back().capacity;
    }
    // The kernel's group list starts at the local group, so the local statistics are known
    // when the others are looked at.
    auto local_it =
        std::find_if(groups.begin(), groups.end(), [](const SgStats& s) { return s.local; });
    if (local_it == groups.end()) return nullptr;
    const Sg local = make_sg(*local_it, pct);
    Sg busiest;
    for (const SgStats& s : groups) {
        if (s.local) continue;
        Sg g = make_sg(s, pct);
        // prefer_sibling: a group with two tasks more than a local group with capacity counts
        // as overloaded, so the excess moves to the sibling.
        if (sd.prefer_sibling && group_has_capacity(*local_it, pct) &&
            s.sum_nr_running > local_it->sum_nr_running + 1)
            g.overloaded = true;
        // update_sd_pick_busiest(): the higher class, then the higher avg_load.
        const bool better = !busiest.s || g.overloaded > busiest.overloaded ||
                            (g.overloaded == busiest.overloaded && g.avg_load > busiest.avg_load);
        // The empty starting point only gives way to a group with some load.
        if (better && (busiest.s || g.overloaded || g.avg_load > 0)) busiest = g;
    }
    if (!busiest.s || busiest.s->sum_nr_running == 0) return nullptr;
    if (sd.numa)
        env.fbq = fbq_classify_group(busiest.s->sum_nr_running, busiest.s->nr_numa_running,
                                     busiest.s->nr_preferred_running);
    const unsigned long sds_avg_load = total_cap ? total_load * SCALE / total_cap : 0;
    env.type = MigrationType::LoadV54;
    // An idle CPU with room pulls from an overloaded group whatever the averages say.
    const bool force =
        env.idle != CpuIdleType::NotIdle && group_has_capacity(*local.s, pct) && busiest.overloaded;
    if (!force) {
        if (local.avg_load >= busiest.avg_load) return nullptr;
        if (local.avg_load >= sds_avg_load) return nullptr;
        if (env.idle == CpuIdleType::Idle) {
            // Not overloaded and at most one idle CPU apart: balanced.
            if (!busiest.overloaded && local.s->idle_cpus <= busiest.s->idle_cpus + 1)
                return nullptr;
        } else if (100 * busiest.avg_load <= static_cast<unsigned long>(pct) * local.avg_load) {
            return nullptr;
        }
    }
    env.imbalance = calculate_imbalance(sys, env, local, busiest, sds_avg_load);
    return env.imbalance ? busiest.s : nullptr;
}

}  // namespace numasim
