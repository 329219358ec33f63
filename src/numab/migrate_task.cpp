// Moving a task toward its memory (kernel/sched/fair.c and core.c): numa_migrate_preferred,
// task_numa_migrate with update_numa_stats / numa_classify / task_numa_find_cpu /
// task_numa_compare / task_numa_assign / load_too_imbalanced, and the moves themselves,
// migrate_task_to and migrate_swap.
//
// Release switches read here:
//   smallimp         SMALLIMP threshold (v4.19, 6fd98e775f24); 0 = the code before it.
//   idle_early_stop  stop the CPU loop once an idle destination is taken (v4.19).
//   numa_classify    v5.7's reconciliation with the load balancer: node_type, the imbalance
//                    allowance, the idle-CPU shortcut, the preferred-node swap biases and the
//                    swap-candidate stop. Off = the v4.x search (maymove from
//                    load_too_imbalanced only; a move to an idle CPU keeps env.dst_cpu, where
//                    v4.19 ran select_idle_sibling on the destination CPU).
//   numa_imbalance   the allowance, decoded in sched/numa_imbalance.cpp.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <utility>

#include "cost/constants.h"
#include "kernel/latency.h"
#include "numab/internal.h"
#include "numab/numa_env.h"
#include "sched/fair.h"
#include "sched/numa_imbalance.h"
#include "sched/sched_domain.h"

namespace numasim {

using namespace numab;

namespace {

constexpr int EINVAL_ = 22;  // errno values the kernel functions return
constexpr int EAGAIN_ = 11;
// task_numa_migrate's default imbalance_pct when no SD_NUMA domain is found.
constexpr int NUMA_ENV_DEFAULT_IMBALANCE_PCT = 112;

// Reading `lines` cache lines of CPU `cpu`'s runqueue or current task from the searching CPU:
// each was last written there, so each is a transfer from that CPU's cache.
void read_remote_lines(const System& sys, TaskNumaEnv& env, int cpu, double lines) {
    env.search_ns += lines * sys.cost.line_transfer_ns(env.src_nid, sys.cpu_to_node(cpu));
}

// update_numa_stats() reads every CPU of the node.
void read_node_stats(const System& sys, TaskNumaEnv& env, int nid) {
    for (int cpu : sys.topo.nodes[nid].cpus)
        read_remote_lines(sys, env, cpu, cost::NUMA_STATS_LINES_PER_CPU);
}

// numa_idle_core(): prefer a CPU whose whole core is idle over packing SMT siblings.
int numa_idle_core(const System& sys, int idle_core, int cpu) {
    if (!sys.sched.smt_present || idle_core >= 0 || !test_idle_cores(sys, cpu)) return idle_core;
    return is_core_idle(sys, cpu) ? cpu : idle_core;
}

// Whether the search stops after this candidate (the kernel's return value).
bool task_numa_compare(System& sys, TaskNumaEnv& env, long taskimp, long groupimp, bool maymove);

}  // namespace

void task_numa_find_cpu(System& sys, TaskNumaEnv& env, long taskimp, long groupimp) {
    const NumaBalancingKnobs& k = sys.knobs;
    bool maymove = false;
    if (k.numa_classify && env.dst_stats.node_type == NumaType::HasSpare) {
        // Would the move create an imbalance the load balancer would undo? If src runs more
        // tasks than dst the move improves the balance, so that case is allowed.
        const long src_running = static_cast<long>(env.src_stats.nr_running) - 1;
        const long dst_running = static_cast<long>(env.dst_stats.nr_running) + 1;
        long imbalance = std::max(0L, dst_running - src_running);
        imbalance = numa_move_imbalance(k, imbalance, static_cast<int>(src_running),
                                        static_cast<int>(dst_running), env.imb_numa_nr);
        if (!imbalance) {
            maymove = true;
            if (env.dst_stats.idle_cpu >= 0) {
                env.dst_cpu = env.dst_stats.idle_cpu;
                task_numa_assign(sys, env, nullptr, 0);
                return;
            }
        }
    } else {
        // Is moving p alone better than swapping? Only if it does not worsen the load balance.
        const long load = static_cast<long>(task_h_load(sys, *env.p));
        const long dst_load = static_cast<long>(env.dst_stats.load) + load;
        const long src_load = static_cast<long>(env.src_stats.load) - load;
        maymove = !load_too_imbalanced(src_load, dst_load, env);
    }
    for (int cpu : sys.topo.nodes[env.dst_nid].cpus) {
        if (!env.p->allowed(cpu)) continue;
        env.dst_cpu = cpu;
        read_remote_lines(
            sys, env, cpu,
            sys.rqs[cpu].curr ? cost::NUMA_COMPARE_LINES_BUSY : cost::NUMA_COMPARE_LINES_IDLE);
        if (task_numa_compare(sys, env, taskimp, groupimp, maymove)) break;
    }
}

namespace {

bool task_numa_compare(System& sys, TaskNumaEnv& env, long taskimp, long groupimp, bool maymove) {
    const NumaBalancingKnobs& k = sys.knobs;
    const bool v57 = k.numa_classify;
    Task& p = *env.p;
    NumaGroup* p_ng = p.numa_group;
    Rq& dst_rq = sys.rqs[env.dst_cpu];
    long imp = p_ng ? groupimp : taskimp;
    long moveimp = imp;
    const int dist = env.dist;
    bool stopsearch = false;

    if (dst_rq.numa_migrate_on) return false;  // another search already took this CPU
    Task* cur = dst_rq.curr;
    if (cur && cur->exiting()) cur = nullptr;
    if (cur == &p) return v57;  // we raced onto the destination ourselves

    if (!cur) {
        // An idle destination: a plain move.
        const bool take =
            k.smallimp > 0 ? (maymove && moveimp >= env.best_imp) : (maymove || imp > env.best_imp);
        if (!take) return false;
        goto assign;
    }
    if (!k.numa_task_swap) {
        // Swaps switched off: a busy CPU can still take p as a move, as the move test below
        // would let it, but cur never goes the other way.
        if (!maymove || moveimp <= env.best_imp) return false;
        imp = k.smallimp > 0 ? moveimp : moveimp - 1;
        cur = nullptr;
        goto assign;
    }
    if (!cur->allowed(env.src_cpu)) return false;  // cur could not go to the source CPU
    // A swap candidate not heading for its preferred node loses to one that is (v5.7).
    if (v57 && env.best_task && env.best_task->numa_preferred_nid == env.src_nid &&
        cur->numa_preferred_nid != env.src_nid)
        return false;

    // imp: how much the pair gains in fault locality from swapping.
    if (cur->numa_group == p_ng) {
        // No swap within a group (or between ungrouped tasks) while dst has spare capacity: it
        // helps one task at the other's expense and does nothing for the load.
        if (v57 && env.dst_stats.node_type == NumaType::HasSpare) return false;
        imp = taskimp + static_cast<long>(task_weight(sys, *cur, env.src_nid, dist)) -
              static_cast<long>(task_weight(sys, *cur, env.dst_nid, dist));
        if (cur->numa_group) imp -= imp / 16;  // hysteresis within a group
    } else {
        if (cur->numa_group && p_ng)
            imp += static_cast<long>(group_weight(sys, *cur, env.src_nid, dist)) -
                   static_cast<long>(group_weight(sys, *cur, env.dst_nid, dist));
        else
            imp += static_cast<long>(task_weight(sys, *cur, env.src_nid, dist)) -
                   static_cast<long>(task_weight(sys, *cur, env.dst_nid, dist));
    }
    // The preferred-node biases (v5.7, 88cca72c9673, with the rest of the swap rules above).
    if (v57 && cur->numa_preferred_nid == env.dst_nid) imp -= imp / 16;  // cur is home
    if (v57 && cur->numa_preferred_nid == env.src_nid) imp += imp / 8;   // cur goes home

    if (k.smallimp == 0) {
        // Before SMALLIMP: any gain over the best so far, and a move wins one point lower.
        if (imp <= env.best_imp) return false;
        if (maymove && moveimp > imp && moveimp > env.best_imp) {
            imp = moveimp - 1;
            cur = nullptr;
            goto assign;
        }
    } else if (maymove && moveimp > imp && moveimp > env.best_imp) {
        imp = moveimp;
        cur = nullptr;
        goto assign;
    }
    // Prefer a swap partner moving to its preferred node over one that is not (v5.7).
    if (v57 && env.best_task && cur->numa_preferred_nid == env.src_nid &&
        env.best_task->numa_preferred_nid != env.src_nid)
        goto assign;
    // A small improvement only ping-pongs tasks and costs cache misses.
    if (k.smallimp > 0 && (imp < k.smallimp || imp <= env.best_imp + k.smallimp / 2)) return false;
    {
        // Overloaded: keep the load balanced.
        const long load =
            static_cast<long>(task_h_load(sys, p)) - static_cast<long>(task_h_load(sys, *cur));
        if (load) {
            const long dst_load = static_cast<long>(env.dst_stats.load) + load;
            const long src_load = static_cast<long>(env.src_stats.load) - load;
            if (load_too_imbalanced(src_load, dst_load, env)) return false;
        }
    }

assign:
    if (!cur && v57) {
        // A move: use the idle CPU found by update_numa_stats, or keep a still-idle best CPU.
        int cpu = env.dst_stats.idle_cpu;
        if (cpu < 0) cpu = env.dst_cpu;
        if (!idle_cpu(sys, cpu) && env.best_cpu >= 0 && idle_cpu(sys, env.best_cpu))
            cpu = env.best_cpu;
        env.dst_cpu = cpu;
    }
    task_numa_assign(sys, env, cur, imp);
    // Stop at an idle destination when a move is allowed: another swap candidate may be
    // better, but searching is not free (v4.19).
    // v4.19 stopped whenever the chosen destination was idle (cur == NULL); v5.7 also
    // requires the move to be allowed and the best CPU to be idle still.
    if (k.idle_early_stop && !cur &&
        (!v57 || (maymove && env.best_cpu >= 0 && idle_cpu(sys, env.best_cpu))))
        stopsearch = true;
    // A swap is needed and the best partner moves to its preferred node: good enough (v5.7).
    if (v57 && !maymove && env.best_task && env.best_task->numa_preferred_nid == env.src_nid)
        stopsearch = true;
    return stopsearch;
}

}  // namespace

NumaType numa_classify(unsigned imbalance_pct, const NumaStats& ns) {
    const unsigned long pct = imbalance_pct;
    if (ns.nr_running > ns.weight && (ns.compute_capacity * 100 < ns.util * pct ||
                                      ns.compute_capacity * pct < ns.runnable * 100))
        return NumaType::Overloaded;
    if (ns.nr_running < ns.weight || (ns.compute_capacity * 100 > ns.util * pct &&
                                      ns.compute_capacity * pct > ns.runnable * 100))
        return NumaType::HasSpare;
    return NumaType::FullyBusy;
}

void update_numa_stats(const System& sys, const TaskNumaEnv& env, NumaStats& ns, int nid,
                       bool find_idle) {
    ns = NumaStats{};
    int idle_core = -1;
    for (int cpu : sys.topo.nodes[nid].cpus) {
        const Rq& rq = sys.rqs[cpu];
        ns.load += cpu_load(sys, cpu);
        ns.runnable += cpu_runnable(sys, cpu);
        ns.util += cpu_util_cfs(sys, cpu);
        ns.nr_running += rq.nr_running;
        ns.compute_capacity += capacity_of(sys, cpu);
        if (find_idle && idle_core < 0 && !rq.nr_running && idle_cpu(sys, cpu)) {
            if (rq.numa_migrate_on || !env.p->allowed(cpu)) continue;
            if (ns.idle_cpu == -1) ns.idle_cpu = cpu;
            idle_core = numa_idle_core(sys, idle_core, cpu);
        }
    }
    ns.weight = static_cast<unsigned>(sys.topo.nodes[nid].cpus.size());
    ns.node_type = numa_classify(static_cast<unsigned>(env.imbalance_pct), ns);
    if (idle_core >= 0) ns.idle_cpu = idle_core;
}

void task_numa_assign(System& sys, TaskNumaEnv& env, Task* p, long imp) {
    Rq* rq = &sys.rqs[env.dst_cpu];
    // Claim the destination; if another search holds it, look for another idle CPU there.
    if (env.best_cpu != env.dst_cpu && std::exchange(rq->numa_migrate_on, true)) {
        const auto& cpus = sys.topo.nodes[env.dst_nid].cpus;
        const size_t n = cpus.size();
        const size_t pos =
            static_cast<size_t>(std::find(cpus.begin(), cpus.end(), env.dst_cpu) - cpus.begin());
        bool found = false;
        for (size_t i = 1; i <= n && !found; ++i) {  // for_each_cpu_wrap from dst_cpu + 1
            const int cpu = cpus[(pos + i) % n];
            if (cpu == env.best_cpu || !idle_cpu(sys, cpu) || !env.p->allowed(cpu)) continue;
            env.dst_cpu = cpu;
            rq = &sys.rqs[cpu];
            if (!std::exchange(rq->numa_migrate_on, true)) found = true;
        }
        if (!found) return;
    }
    // The previous best CPU is released now that a better one is held.
    if (env.best_cpu != -1 && env.best_cpu != env.dst_cpu)
        sys.rqs[env.best_cpu].numa_migrate_on = false;
    env.best_task = p;
    env.best_imp = imp;
    env.best_cpu = env.dst_cpu;
}

bool load_too_imbalanced(long src_load, long dst_load, const TaskNumaEnv& env) {
    // Loads are compared relative to each node's capacity.
    const long src_capacity = static_cast<long>(env.src_stats.compute_capacity);
    const long dst_capacity = static_cast<long>(env.dst_stats.compute_capacity);
    const long imb = std::labs(dst_load * src_capacity - src_load * dst_capacity);
    const long orig_src_load = static_cast<long>(env.src_stats.load);
    const long orig_dst_load = static_cast<long>(env.dst_stats.load);
    const long old_imb = std::labs(orig_dst_load * src_capacity - orig_src_load * dst_capacity);
    return imb > old_imb;  // would the change make things worse?
}

bool task_numa_compare_for_test(System& sys, TaskNumaEnv& env, long taskimp, long groupimp,
                                bool maymove) {
    return task_numa_compare(sys, env, taskimp, groupimp, maymove);
}

int task_numa_migrate(System& sys, Task& p) {
    TaskNumaEnv env;
    // Whatever the outcome, the searching task pays for the lines it read.
    struct ChargeSearch {
        System& sys;
        Task& p;
        const TaskNumaEnv& env;
        ~ChargeSearch() {
            p.kernel_debt += static_cast<Nanos>(std::llround(env.search_ns));
            sys.cost.stats().numa_search_ns += env.search_ns;
        }
    } charge{sys, p, env};
    env.p = &p;
    env.src_cpu = p.cpu;
    env.src_nid = sys.task_node(p);
    env.imbalance_pct = NUMA_ENV_DEFAULT_IMBALANCE_PCT;
    // The lowest SD_NUMA domain: smallest imbalance, first to move tasks about.
    const SchedDomain* sd = sys.sched.sd_numa(env.src_cpu);
    if (sd) {
        env.imbalance_pct = 100 + (sd->imbalance_pct - 100) / 2;
        env.imb_numa_nr = sd->imb_numa_nr;
    } else {
        // A cpuset whose domains do not cross nodes: stop trying.
        sched_setnuma(sys, p, sys.task_node(p));
        return -EINVAL_;
    }

    env.dst_nid = p.numa_preferred_nid;
    int dist = env.dist = node_distance(sys, env.src_nid, env.dst_nid);
    long taskweight = static_cast<long>(task_weight(sys, p, env.src_nid, dist));
    long groupweight = static_cast<long>(group_weight(sys, p, env.src_nid, dist));
    update_numa_stats(sys, env, env.src_stats, env.src_nid, false);
    read_node_stats(sys, env, env.src_nid);
    long taskimp = static_cast<long>(task_weight(sys, p, env.dst_nid, dist)) - taskweight;
    long groupimp = static_cast<long>(group_weight(sys, p, env.dst_nid, dist)) - groupweight;
    update_numa_stats(sys, env, env.dst_stats, env.dst_nid, true);
    read_node_stats(sys, env, env.dst_nid);
    task_numa_find_cpu(sys, env, taskimp, groupimp);  // a spot on the preferred node?

    // Look elsewhere when the preferred node is full, or the group spans several nodes.
    NumaGroup* ng = p.numa_group;
    if (env.best_cpu == -1 || (ng && ng->active_nodes > 1)) {
        for (int nid = 0; nid < sys.nr_nodes(); ++nid) {
            if (!node_has_cpus(sys, nid) || nid == env.src_nid || nid == p.numa_preferred_nid)
                continue;
            // Kernel quirk kept: the distance is taken to the previous env.dst_nid.
            dist = node_distance(sys, env.src_nid, env.dst_nid);
            if (sys.sched.numa_topology_type == NumaTopologyType::Backplane && dist != env.dist) {
                taskweight = static_cast<long>(task_weight(sys, p, env.src_nid, dist));
                groupweight = static_cast<long>(group_weight(sys, p, env.src_nid, dist));
            }
            taskimp = static_cast<long>(task_weight(sys, p, nid, dist)) - taskweight;
            groupimp = static_cast<long>(group_weight(sys, p, nid, dist)) - groupweight;
            if (taskimp < 0 && groupimp < 0) continue;  // both must not lose
            env.dist = dist;
            env.dst_nid = nid;
            update_numa_stats(sys, env, env.dst_stats, env.dst_nid, true);
            read_node_stats(sys, env, env.dst_nid);
            task_numa_find_cpu(sys, env, taskimp, groupimp);
        }
    }

    // A group member moving into one of the group's active nodes adopts it as preferred, so
    // the workload settles; no CPU found means it settles where it is.
    if (ng) {
        const int nid = env.best_cpu == -1 ? env.src_nid : sys.cpu_to_node(env.best_cpu);
        if (nid != p.numa_preferred_nid) sched_setnuma(sys, p, nid);
    }
    if (env.best_cpu == -1) {
        trace_sched_stick_numa(sys, p, env.src_cpu, nullptr, -1);
        return -EAGAIN_;
    }
    Rq& best_rq = sys.rqs[env.best_cpu];
    int ret;
    if (!env.best_task) {
        ret = migrate_task_to(sys, p, env.best_cpu);
        best_rq.numa_migrate_on = false;
        if (ret != 0) trace_sched_stick_numa(sys, p, env.src_cpu, nullptr, env.best_cpu);
        return ret;
    }
    ret = migrate_swap(sys, p, *env.best_task, env.best_cpu, env.src_cpu);
    best_rq.numa_migrate_on = false;
    if (ret != 0) trace_sched_stick_numa(sys, p, env.src_cpu, env.best_task, env.best_cpu);
    return ret;
}

void numa_migrate_preferred(System& sys, Task& p) {
    // Switch numa_task_migrate (v3.13, "sched: Reschedule task on preferred NUMA node once
    // selected" and the system-wide move/swap search): off, only the load balancer's NUMA hooks
    // act on the preferred node.
    if (!sys.knobs.numa_task_migrate) return;
    if (p.numa_preferred_nid == NUMA_NO_NODE || p.numa_faults.empty()) return;
    // Retry periodically: at most every second, sooner when scanning fast (or, under a policy
    // that times placement itself, sooner when its own period is short).
    const PlacementPolicy* pol = sys.placement_policy;
    const unsigned period_ms = pol && pol->has(PlacementPolicy::kNumaPlacement)
                                   ? pol->numa_retry_period_ms(sys, p)
                                   : p.numa_scan_period;
    const int64_t interval = std::min<int64_t>(HZ, msecs_to_jiffies(period_ms) / 16);
    p.numa_migrate_retry = sys.jiffies() + interval;
    if (sys.task_node(p) == p.numa_preferred_nid) return;
    task_numa_migrate(sys, p);
}

namespace {

// Latency accounting: the wait on the destination's runqueue starts when the move is done (or
// is none, if the move's own schedule() already picked the task there).
void note_numa_move(System& sys, const Task& p) {
    if (!sys.latency) return;
    const Rq& rq = sys.rqs[static_cast<size_t>(p.cpu)];
    sys.latency->numa_moved(p, rq.curr == &p, rq.clock);
}

}  // namespace

int migrate_task_to(System& sys, Task& p, int target_cpu) {
    const int curr_cpu = p.cpu;
    if (curr_cpu == target_cpu) return 0;
    if (!p.allowed(target_cpu)) return -EINVAL_;
    trace_sched_move_numa(sys, p, curr_cpu, target_cpu);
    // The kernel's stopper runs on curr_cpu and moves p; in the simulator it is immediate.
    move_task(sys, p, target_cpu);
    note_numa_move(sys, p);
    return 0;
}

int migrate_swap(System& sys, Task& cur, Task& p, int target_cpu, int curr_cpu) {
    // cur runs on curr_cpu and goes to target_cpu; p comes the other way.
    if (curr_cpu == target_cpu) return -EINVAL_;
    if (!cur.allowed(target_cpu) || !p.allowed(curr_cpu)) return -EINVAL_;
    trace_sched_swap_numa(sys, cur, curr_cpu, p, target_cpu);
    // migrate_swap_stop(): fails if either task moved since it was chosen. The simulator runs
    // the swap at once, so only a task that stopped being runnable there can fail it.
    const bool cur_there =
        cur.cpu == curr_cpu && !cur.exiting() && cur.state != TaskState::Sleeping;
    const bool p_there = p.cpu == target_cpu && !p.exiting() && p.state != TaskState::Sleeping;
    if (!cur_there || !p_there) return -EAGAIN_;
    move_task(sys, cur, target_cpu);
    move_task(sys, p, curr_cpu);
    note_numa_move(sys, cur);
    note_numa_move(sys, p);
    return 0;
}

}  // namespace numasim
