// The helpers of numab/internal.h: node lookups, group fault sums, RSS, policy flags and the
// four NUMA tracepoints.
#include "mm/mm.h"
#include "numab/internal.h"

namespace numasim::numab {

int numa_nearest_node_cpu(const System& sys, int nid) {
    if (nid == NUMA_NO_NODE || node_has_cpus(sys, nid)) return nid;
    int best = nid, best_dist = 1 << 30;
    for (int n = 0; n < sys.nr_nodes(); ++n) {
        if (!node_has_cpus(sys, n)) continue;
        const int d = node_distance(sys, nid, n);
        if (d < best_dist) {
            best_dist = d;
            best = n;
        }
    }
    return best;
}

unsigned long group_faults_priv(const System& sys, const NumaGroup& ng) {
    unsigned long f = 0;
    for (int n = 0; n < sys.nr_nodes(); ++n)
        f += ng.faults[task_faults_idx(sys, NUMA_MEM, n, 1)];
    return f;
}

unsigned long group_faults_shared(const System& sys, const NumaGroup& ng) {
    unsigned long f = 0;
    for (int n = 0; n < sys.nr_nodes(); ++n)
        f += ng.faults[task_faults_idx(sys, NUMA_MEM, n, 0)];
    return f;
}

bool numa_is_active_node(const System& sys, int nid, const NumaGroup& ng) {
    return group_faults_cpu(sys, ng, nid) * ACTIVE_NODE_FRACTION > ng.max_faults_cpu;
}

uint64_t get_mm_rss(const Mm& mm) {
    return mm.rss_pages;
}

void reset_ptenuma_scan(Task& p) {
    ++p.mm->numa_scan_seq;
    p.mm->numa_scan_offset = 0;
}

uint16_t effective_mpol_flags(const MemPolicy& pol) {
    if (pol.mode == MpolMode::Default) return MPOL_F_MOF | MPOL_F_MORON;
    uint16_t f = pol.flags;
    if ((f & MPOL_F_NUMA_BALANCING) && pol.mode == MpolMode::Bind) f |= MPOL_F_MOF | MPOL_F_MORON;
    return f;
}

bool vma_policy_mof(const Task& p, const Vma& vma) {
    // Shared anonymous memory is shmem, whose vm_ops->get_policy answers instead: only a shared
    // policy carrying MPOL_F_MOF would do, and mbind() never sets that flag, so shmem is never
    // suitable (mm/mempolicy.c vma_policy_mof(); task_numa_work counts it "unsuitable").
    if ((vma.vm_flags & VM_SHARED) && !vma.is_file())
        return vma.policy && vma.policy->mode != MpolMode::Default &&
               (vma.policy->flags & MPOL_F_MOF);
    if (vma.policy) return effective_mpol_flags(*vma.policy) & MPOL_F_MOF;
    if (p.has_mempolicy) return effective_mpol_flags(p.mempolicy) & MPOL_F_MOF;
    return true;  // preferred_node_policy[] carries MPOL_F_MOF | MPOL_F_MORON
}

namespace {

int nid_of(const System& sys, int cpu) {
    return cpu >= 0 ? sys.cpu_to_node(cpu) : -1;
}

// The NUMA events fire in the task's own context, on its CPU, at that CPU's time.
TraceEvent numa_event(const System& sys, TraceEventId id, const Task& current, int src_cpu,
                      int dst_cpu) {
    TraceEvent e;
    e.id = id;
    e.cpu = current.cpu;
    e.ts = sys.rqs[static_cast<size_t>(current.cpu)].clock;
    e.current = &current;
    e.a = &current;
    e.a_ngid = task_numa_group_id(current);
    e.cpu1 = src_cpu;
    e.nid1 = nid_of(sys, src_cpu);
    e.cpu2 = dst_cpu;
    e.nid2 = nid_of(sys, dst_cpu);
    return e;
}

}  // namespace

void trace_sched_move_numa(System& sys, Task& p, int src_cpu, int dst_cpu) {
    ++sys.counters.sched_move_numa;
    ++p.numa_task_migrations;
    if (!sys.tracer.on(TraceEventId::sched_move_numa)) return;
    sys.tracer.emit(numa_event(sys, TraceEventId::sched_move_numa, p, src_cpu, dst_cpu));
}

void trace_sched_swap_numa(System& sys, Task& src, int src_cpu, Task& dst, int dst_cpu) {
    ++sys.counters.sched_swap_numa;
    ++src.numa_task_migrations;
    ++dst.numa_task_migrations;
    if (nid_of(sys, src_cpu) == nid_of(sys, dst_cpu)) ++sys.counters.sched_swap_numa_local;
    const int src_ngid = task_numa_group_id(src), dst_ngid = task_numa_group_id(dst);
    if (src_ngid > 0 && src_ngid == dst_ngid) ++sys.counters.sched_swap_numa_group;
    if (!sys.tracer.on(TraceEventId::sched_swap_numa)) return;
    TraceEvent e = numa_event(sys, TraceEventId::sched_swap_numa, src, src_cpu, dst_cpu);
    e.b = &dst;
    e.b_ngid = dst_ngid;
    sys.tracer.emit(e);
}

void trace_sched_stick_numa(System& sys, Task& src, int src_cpu, Task* dst, int dst_cpu) {
    ++sys.counters.sched_stick_numa;
    if (!sys.tracer.on(TraceEventId::sched_stick_numa)) return;
    TraceEvent e = numa_event(sys, TraceEventId::sched_stick_numa, src, src_cpu, dst_cpu);
    e.b = dst;
    e.b_ngid = dst ? task_numa_group_id(*dst) : 0;
    sys.tracer.emit(e);
}

void trace_sched_skip_vma_numa(System& sys, Task& current, const Mm& mm, const Vma& vma,
                               SkipVmaReason reason) {
    // The tracepoint exists from v6.7 (Mel Gorman's VMA-scan series); the releases before it,
    // selected by the vma_scan switch, neither fire nor count it.
    if (sys.knobs.vma_scan == VmaScanSelection::All ||
        sys.knobs.vma_scan == VmaScanSelection::PidsActive)
        return;
    ++sys.counters.sched_skip_vma_numa[static_cast<size_t>(reason)];
    if (!sys.tracer.on(TraceEventId::sched_skip_vma_numa)) return;
    TraceEvent e =
        numa_event(sys, TraceEventId::sched_skip_vma_numa, current, current.cpu, current.cpu);
    e.n = {mm.numa_scan_offset, vma.start, vma.end, static_cast<uint64_t>(reason), 0, 0};
    sys.tracer.emit(e);
}

}  // namespace numasim::numab
