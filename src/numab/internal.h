// Helpers shared by the NUMA-balancing files (not part of the public API in numab.h): time in
// jiffies, node helpers, the group fault sums, memory-policy flags, and the tracepoints with the
// kernel's field layouts (include/trace/events/sched.h).
#pragma once

#include <cstdint>

#include "kernel/counters.h"
#include "kernel/system.h"
#include "numab/numab.h"

namespace numasim::numab {

// --- time: the kernel keeps mm->numa_next_scan, numab_state->next_scan and pids_active_reset in
// jiffies; the simulator stores them in ns, always as whole ticks, so comparisons behave like the
// kernel's jiffies comparisons. ---
inline Nanos jiffies_ns(const System& sys) {
    return sys.jiffies() * TICK_NSEC;
}
// msecs_to_jiffies() rounds up to whole ticks.
inline Nanos msecs_to_jiffies_ns(int64_t ms) {
    return ((ms * HZ + 999) / 1000) * TICK_NSEC;
}
inline int64_t msecs_to_jiffies(int64_t ms) {
    return (ms * HZ + 999) / 1000;
}

inline int node_distance(const System& sys, int a, int b) {
    return sys.topo.node_distance(a, b);
}
inline bool node_has_cpus(const System& sys, int nid) {
    return !sys.topo.nodes[nid].cpus.empty();
}
inline bool node_has_memory(const System& sys, int nid) {
    return sys.topo.nodes[nid].mem_bytes > 0;
}
// numa_nearest_node(nid, N_CPU): nid itself if it has CPUs, else the closest node that has.
int numa_nearest_node_cpu(const System& sys, int nid);

// NUMA_MEM sums of a group over online nodes (priv index 1 is private, 0 is shared).
unsigned long group_faults_priv(const System& sys, const NumaGroup& ng);
unsigned long group_faults_shared(const System& sys, const NumaGroup& ng);
bool numa_is_active_node(const System& sys, int nid, const NumaGroup& ng);
inline int task_numa_group_id(const Task& p);

// get_mm_rss(): resident pages of the address space (present PTEs, PROT_NONE ones included).
uint64_t get_mm_rss(const Mm& mm);

// reset_ptenuma_scan(): one full pass over the address space is complete.
void reset_ptenuma_scan(Task& p);

// A policy carries MPOL_F_MOF when NUMA balancing may move its pages: the per-node default
// always, user policies only when given MPOL_F_NUMA_BALANCING (BIND; sanitize_mpol_flags()).
uint16_t effective_mpol_flags(const MemPolicy& pol);
// vma_policy_mof(): the VMA's policy, else the task's, else the default; shmem (shared
// anonymous) only through a shared policy with MPOL_F_MOF.
bool vma_policy_mof(const Task& p, const Vma& vma);
// vma_migratable() && vma_policy_mof() && !hugetlb && !VM_MIXEDMAP.
bool vma_suitable(const Task& p, const Vma& vma);
// vma_is_accessible(): not a PROT_NONE mapping (which hinting PTEs would be confused with).
bool vma_is_accessible(const Vma& vma);

// --- tracepoints; each also counts itself in sys.counters as `perf stat -e sched:...` would ---
void trace_sched_move_numa(System& sys, Task& p, int src_cpu, int dst_cpu);
void trace_sched_swap_numa(System& sys, Task& src, int src_cpu, Task& dst, int dst_cpu);
void trace_sched_stick_numa(System& sys, Task& src, int src_cpu, Task* dst, int dst_cpu);
void trace_sched_skip_vma_numa(System& sys, Task& current, const Mm& mm, const Vma& vma,
                               SkipVmaReason reason);

}  // namespace numasim::numab

#include "numab/numa_group.h"
#include "sched/task.h"

namespace numasim::numab {
inline int task_numa_group_id(const Task& p) {
    return p.numa_group ? p.numa_group->gid : 0;
}
}  // namespace numasim::numab
