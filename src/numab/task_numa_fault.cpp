// task_numa_fault() (kernel/sched/fair.c): account one hinting fault of `pages` pages to the
// current task, decide private/shared, possibly join a group, and run placement once per pass.
#include <algorithm>

#include "numab/internal.h"

namespace numasim {

using namespace numab;

void task_numa_fault(System& sys, Task& p, cpupid_t last_cpupid, int mem_node, int pages,
                     int flags) {
    if (!sys.numa_balancing_enabled() || !p.mm) return;
    // A fault on slow-tier memory says nothing about where the task should run: ignored in
    // tiering mode, and otherwise when its tag is no real cpupid (never set, or a scan time).
    if (!sys.node_is_toptier(mem_node) &&
        (sys.knobs.tiering_mode() || !cpupid_valid(last_cpupid, sys.nr_cpus())))
        return;

    const int nodes = sys.nr_nodes();
    if (p.numa_faults.empty()) {
        p.numa_faults.assign(static_cast<size_t>(8 * nodes),
                             0);  // 4 stats x nodes x {shared, priv}
        p.total_numa_faults = 0;
        std::fill(std::begin(p.numa_faults_locality), std::end(p.numa_faults_locality), 0);
    }
    const int cpu_node = sys.task_node(p);
    int local = (flags & TNF_FAULT_LOCAL) ? 1 : 0;
    int priv;
    // A first touch counts as private; otherwise private means "same pid as the last fault".
    if (last_cpupid == CPUPID_UNSET) {
        priv = 1;
    } else {
        priv = cpupid_match_pid(p.pid, last_cpupid) ? 1 : 0;
        // Switch numa_groups (v3.13, 8c8a743c5087): off, a shared fault stays shared.
        if (!priv && !(flags & TNF_NO_GROUP) && sys.knobs.numa_groups)
            task_numa_group(sys, p, last_cpupid, flags, &priv);
    }
    // A shared fault inside the set of nodes a spread-out group actively uses counts as local,
    // so the scan rate can settle once the group has settled.
    const NumaGroup* ng = p.numa_group;
    if (!priv && !local && ng && ng->active_nodes > 1 && numa_is_active_node(sys, cpu_node, *ng) &&
        numa_is_active_node(sys, mem_node, *ng))
        local = 1;

    // Retry placement and task migration periodically (time_after: strictly later).
    if (sys.jiffies() > p.numa_migrate_retry) {
        task_numa_placement(sys, p);
        numa_migrate_preferred(sys, p);
    }
    if (flags & TNF_MIGRATED) p.numa_pages_migrated += static_cast<unsigned long>(pages);
    if (flags & TNF_MIGRATE_FAIL) p.numa_faults_locality[2] += static_cast<unsigned long>(pages);
    p.numa_faults[task_faults_idx(sys, NUMA_MEMBUF, mem_node, priv)] +=
        static_cast<unsigned long>(pages);
    p.numa_faults[task_faults_idx(sys, NUMA_CPUBUF, cpu_node, priv)] +=
        static_cast<unsigned long>(pages);
    p.numa_faults_locality[local] += static_cast<unsigned long>(pages);
}

bool task_numa_fault_only_counts(const System& sys, const Task& p, cpupid_t last_cpupid,
                                 bool may_group) {
    if (!sys.numa_balancing_enabled() || !p.mm) return true;
    // Placement and the task-migration retry: not due, or due but with nothing to do
    // (task_numa_placement ran for this scan sequence and numa_migrate_preferred returns at
    // once). A retry that moves the task or resets numa_migrate_retry changes what follows.
    const bool placement_due = sys.jiffies() > p.numa_migrate_retry;
    // A policy that times placement itself may find a pass due at any fault.
    const PlacementPolicy* pol = sys.placement_policy;
    if (placement_due && pol && pol->has(PlacementPolicy::kNumaPlacement)) return false;
    if (placement_due && (p.numa_scan_seq != p.mm->numa_scan_seq ||
                          (sys.knobs.numa_task_migrate && p.numa_preferred_nid != NUMA_NO_NODE)))
        return false;
    // The group step runs for shared faults of writable pages (no TNF_NO_GROUP).
    const bool shared = last_cpupid != CPUPID_UNSET && !cpupid_match_pid(p.pid, last_cpupid);
    return !shared || !may_group || !sys.knobs.numa_groups ||
           task_numa_group_settled(sys, p, last_cpupid);
}

}  // namespace numasim
