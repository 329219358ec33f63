// Fault statistics, decay and the preferred node (kernel/sched/fair.c): task_numa_placement
// once per completed scan pass, the scan-period adaptation, node weights and scores, and the
// group-aware choice of preferred node on multi-hop topologies.
#include <algorithm>
#include <vector>

#include "mm/mm.h"
#include "numab/internal.h"
#include "sched/rq.h"

namespace numasim {

using namespace numab;

namespace {

// The last (unsigned) distance level: LOCAL_DISTANCE of include/linux/topology.h.
constexpr int LOCAL_DISTANCE = 10;

bool find_numa_distance(const System& sys, int dist) {
    const auto& d = sys.sched.numa_distances;
    return std::find(d.begin(), d.end(), dist) != d.end();
}

// numa_get_avg_runtime(): CPU time used since the last placement and the wall time it took;
// the very first time the PELT load_sum over LOAD_AVG_MAX stands in.
uint64_t numa_get_avg_runtime(Task& p, uint64_t* period) {
    const Nanos now = p.exec_start;
    const Nanos runtime = p.sum_exec_runtime;
    uint64_t delta;
    if (p.last_task_numa_placement) {
        delta = static_cast<uint64_t>(runtime - p.last_sum_exec_runtime);
        const Nanos per = now - p.last_task_numa_placement;
        *period = per < 0 ? 0 : static_cast<uint64_t>(per);
    } else {
        delta = static_cast<uint64_t>(p.avg.load_sum);
        *period = LOAD_AVG_MAX;
    }
    p.last_sum_exec_runtime = runtime;
    p.last_task_numa_placement = now;
    return delta;
}

}  // namespace

int task_faults_idx(const System& sys, numa_faults_stats s, int nid, int priv) {
    return 2 * (static_cast<int>(s) * sys.nr_nodes() + nid) + priv;
}

unsigned long task_faults(const System& sys, const Task& p, int nid) {
    if (p.numa_faults.empty()) return 0;
    return p.numa_faults[task_faults_idx(sys, NUMA_MEM, nid, 0)] +
           p.numa_faults[task_faults_idx(sys, NUMA_MEM, nid, 1)];
}

unsigned long group_faults(const System& sys, const Task& p, int nid) {
    const NumaGroup* ng = p.numa_group;
    if (!ng) return 0;
    return ng->faults[task_faults_idx(sys, NUMA_MEM, nid, 0)] +
           ng->faults[task_faults_idx(sys, NUMA_MEM, nid, 1)];
}

unsigned long group_faults_cpu(const System& sys, const NumaGroup& ng, int nid) {
    return ng.faults[task_faults_idx(sys, NUMA_CPU, nid, 0)] +
           ng.faults[task_faults_idx(sys, NUMA_CPU, nid, 1)];
}

unsigned long score_nearby_nodes(const System& sys, const Task& p, int nid, int maxdist,
                                 bool task) {
    const NumaTopologyType type = sys.sched.numa_topology_type;
    if (type == NumaTopologyType::Direct) return 0;  // all nodes equally far: nothing to add
    const int max_dist = sys.sched.sched_max_numa_distance;
    unsigned long score = 0;
    for (int node = 0; node < sys.nr_nodes(); ++node) {
        const int dist = node_distance(sys, nid, node);
        // The farthest nodes do not matter for placement; nid itself is counted by the caller.
        if (dist >= max_dist || node == nid) continue;
        // Backplane: compare groups of nodes closer than the hop limit `maxdist`.
        if (type == NumaTopologyType::Backplane && dist >= maxdist) continue;
        unsigned long faults = task ? task_faults(sys, p, node) : group_faults(sys, p, node);
        // Glueless mesh: the farther the node, the less its faults count.
        if (type == NumaTopologyType::GluelessMesh) {
            faults *= static_cast<unsigned long>(max_dist - dist);
            faults /= static_cast<unsigned long>(max_dist - LOCAL_DISTANCE);
        }
        score += faults;
    }
    return score;
}

unsigned long task_weight(const System& sys, const Task& p, int nid, int dist) {
    if (p.numa_faults.empty() || !p.total_numa_faults) return 0;
    const unsigned long faults =
        task_faults(sys, p, nid) + score_nearby_nodes(sys, p, nid, dist, true);
    return 1000 * faults / p.total_numa_faults;
}

unsigned long group_weight(const System& sys, const Task& p, int nid, int dist) {
    const NumaGroup* ng = p.numa_group;
    if (!ng || !ng->total_faults) return 0;
    const unsigned long faults =
        group_faults(sys, p, nid) + score_nearby_nodes(sys, p, nid, dist, false);
    return 1000 * faults / ng->total_faults;
}

void sched_setnuma(System& sys, Task& p, int nid) {
    // dequeue/enqueue around the change keeps nr_numa_running and nr_preferred_running exact.
    const bool queued =
        p.state == TaskState::Running || p.state == TaskState::Runnable || p.sched_delayed;
    Rq& rq = sys.rqs[p.cpu];
    if (queued) account_numa_dequeue(sys, rq, p);
    p.numa_preferred_nid = nid;
    if (queued) account_numa_enqueue(sys, rq, p);
}

void numa_group_count_active_nodes(System& sys, NumaGroup& ng) {
    unsigned long max_faults = 0;
    int active = 0;
    for (int n = 0; n < sys.nr_nodes(); ++n)
        if (node_has_cpus(sys, n)) max_faults = std::max(max_faults, group_faults_cpu(sys, ng, n));
    for (int n = 0; n < sys.nr_nodes(); ++n)
        if (node_has_cpus(sys, n) &&
            group_faults_cpu(sys, ng, n) * ACTIVE_NODE_FRACTION > max_faults)
            ++active;
    ng.max_faults_cpu = max_faults;
    ng.active_nodes = active;
}

void update_task_scan_period(System& sys, Task& p, unsigned long shared, unsigned long priv) {
    const unsigned long remote = p.numa_faults_locality[0];
    const unsigned long local = p.numa_faults_locality[1];
    // No recorded faults (idle, or activity outside balanced memory), or a migration failed
    // (migrating too fast or the node is full): scan slower. Kernel test is local + shared,
    // not local + remote; the locality counters are deliberately left as they are.
    if (local + shared == 0 || p.numa_faults_locality[2]) {
        p.numa_scan_period = std::min(p.numa_scan_period_max, p.numa_scan_period << 1);
        p.mm->numa_next_scan = jiffies_ns(sys) + msecs_to_jiffies_ns(p.numa_scan_period);
        return;
    }
    // The period is cut in NUMA_PERIOD_SLOTS; at NUMA_PERIOD_THRESHOLD it stays the same.
    const long period_slot =
        (static_cast<long>(p.numa_scan_period) + NUMA_PERIOD_SLOTS - 1) / NUMA_PERIOD_SLOTS;
    const int lr_ratio = static_cast<int>(local * NUMA_PERIOD_SLOTS / (local + remote));
    const int ps_ratio = static_cast<int>(priv * NUMA_PERIOD_SLOTS / (priv + shared));
    long diff;
    if (ps_ratio >= NUMA_PERIOD_THRESHOLD) {
        diff = std::max(ps_ratio - NUMA_PERIOD_THRESHOLD, 1) * period_slot;  // mostly private
    } else if (lr_ratio >= NUMA_PERIOD_THRESHOLD) {
        diff = std::max(lr_ratio - NUMA_PERIOD_THRESHOLD, 1) * period_slot;  // mostly local
    } else {
        // Private faults on remote memory: speed up to get the memory moved.
        diff =
            -static_cast<long>(NUMA_PERIOD_THRESHOLD - std::max(lr_ratio, ps_ratio)) * period_slot;
    }
    const long lo = task_scan_min(sys, p), hi = task_scan_max(sys, p);
    p.numa_scan_period = static_cast<unsigned>(
        std::clamp(static_cast<long>(p.numa_scan_period) + diff, lo, std::max(lo, hi)));
    std::fill(std::begin(p.numa_faults_locality), std::end(p.numa_faults_locality), 0);
}

int preferred_group_nid(System& sys, Task& p, int nid) {
    const NumaTopologyType type = sys.sched.numa_topology_type;
    if (type == NumaTopologyType::Direct) return nid;
    if (type == NumaTopologyType::GluelessMesh) {
        // The node with the best group weight, nearby nodes included.
        unsigned long max_score = 0;
        int max_node = nid;
        const int dist = sys.sched.sched_max_numa_distance;
        for (int node = 0; node < sys.nr_nodes(); ++node) {
            if (!node_has_cpus(sys, node)) continue;
            const unsigned long score = group_weight(sys, p, node, dist);
            if (score > max_score) {
                max_score = score;
                max_node = node;
            }
        }
        return max_node;
    }
    // Backplane: descend the hierarchy of node groups, keeping the busiest group each level.
    std::vector<bool> nodes(static_cast<size_t>(sys.nr_nodes()));
    for (int n = 0; n < sys.nr_nodes(); ++n)
        nodes[static_cast<size_t>(n)] = node_has_cpus(sys, n);
    for (int dist = sys.sched.sched_max_numa_distance; dist > LOCAL_DISTANCE; --dist) {
        if (!find_numa_distance(sys, dist)) continue;
        unsigned long max_faults = 0;
        std::vector<bool> max_group(nodes.size(), false);
        for (int a = 0; a < sys.nr_nodes(); ++a) {
            if (!nodes[static_cast<size_t>(a)]) continue;
            unsigned long faults = 0;
            std::vector<bool> this_group(nodes.size(), false);
            for (int b = 0; b < sys.nr_nodes(); ++b) {
                if (!nodes[static_cast<size_t>(b)]) continue;
                if (node_distance(sys, a, b) < dist) {
                    faults += group_faults(sys, p, b);
                    this_group[static_cast<size_t>(b)] = true;
                    nodes[static_cast<size_t>(b)] = false;
                }
            }
            if (faults > max_faults) {
                max_faults = faults;
                max_group = this_group;
                nid = a;  // at the smallest distance each group is one node: the winner
            }
        }
        if (!max_faults) break;
        nodes = max_group;
    }
    return nid;
}

void task_numa_placement(System& sys, Task& p) {
    // A policy that times placement (kNumaPlacement) says when a pass is due (the IBS posting:
    // every so many access faults); otherwise once per completed pass over the address space.
    const PlacementPolicy* pol = sys.placement_policy;
    if (pol && !pol->has(PlacementPolicy::kNumaPlacement)) pol = nullptr;
    if (pol) [[unlikely]] {
        if (!pol->numa_placement_due(sys, p)) return;
    } else {
        const int seq = p.mm->numa_scan_seq;
        if (p.numa_scan_seq == seq) return;
        p.numa_scan_seq = seq;
        p.numa_scan_period_max = task_scan_max(sys, p);
    }

    const unsigned long total_faults = p.numa_faults_locality[0] + p.numa_faults_locality[1];
    uint64_t period = 0;
    const uint64_t runtime = numa_get_avg_runtime(p, &period);
    NumaGroup* ng = p.numa_group;
    unsigned long fault_types[2] = {0, 0};
    unsigned long max_faults = 0;
    int max_nid = NUMA_NO_NODE;

    for (int nid = 0; nid < sys.nr_nodes(); ++nid) {
        unsigned long faults = 0, gfaults = 0;
        for (int priv = 0; priv < 2; ++priv) {
            const int mem = task_faults_idx(sys, NUMA_MEM, nid, priv);
            const int membuf = task_faults_idx(sys, NUMA_MEMBUF, nid, priv);
            const int cpu = task_faults_idx(sys, NUMA_CPU, nid, priv);
            const int cpubuf = task_faults_idx(sys, NUMA_CPUBUF, nid, priv);
            auto& f = p.numa_faults;
            // Decay the old window by half and add the faults since the last pass.
            const long diff = static_cast<long>(f[membuf]) - static_cast<long>(f[mem] / 2);
            fault_types[priv] += f[membuf];
            f[membuf] = 0;
            // Weight CPU-side faults by the share of time the task ran, scaled by 2^16, so
            // tasks that barely run count little in the group.
            long f_weight = static_cast<long>((runtime << 16) / (period + 1));
            f_weight =
                f_weight * static_cast<long>(f[cpubuf]) / static_cast<long>(total_faults + 1);
            const long f_diff = f_weight - static_cast<long>(f[cpu] / 2);
            f[cpubuf] = 0;
            f[mem] += static_cast<unsigned long>(diff);
            f[cpu] += static_cast<unsigned long>(f_diff);
            faults += f[mem];
            p.total_numa_faults += static_cast<unsigned long>(diff);
            if (ng) {
                ng->faults[mem] += static_cast<unsigned long>(diff);
                ng->faults[cpu] += static_cast<unsigned long>(f_diff);
                ng->total_faults += static_cast<unsigned long>(diff);
                gfaults += ng->faults[mem];
            }
        }
        const unsigned long score = ng ? gfaults : faults;
        if (score > max_faults) {  // first node with the strictly largest score
            max_faults = score;
            max_nid = nid;
        }
    }
    max_nid = numa_nearest_node_cpu(sys, max_nid);  // cannot run on a CPU-less node
    if (ng) {
        numa_group_count_active_nodes(sys, *ng);
        max_nid = preferred_group_nid(sys, p, max_nid);
    }
    // Switches numa_preferred_nid (v3.13, "sched: Select a preferred node with the most numa
    // hinting faults") and numa_scan_adapt (v3.14, 04bb2f947505): off, the statistics are kept
    // but no node is preferred, or the scan period stays where it is.
    const NumaBalancingKnobs& k = sys.knobs;
    if (k.numa_preferred_nid && max_faults && max_nid != p.numa_preferred_nid)
        sched_setnuma(sys, p, max_nid);
    if (pol)
        pol->numa_placement_done(sys, p, fault_types[0], fault_types[1]);
    else if (k.numa_scan_adapt)
        update_task_scan_period(sys, p, fault_types[0], fault_types[1]);
}

}  // namespace numasim
