// The helpers of numab/internal.h: node lookups, group fault sums, RSS, policy flags and the
// four NUMA tracepoints.
#include <cstdio>
#include <string>

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

std::string pair_fields(const System& sys, const Task& src, int src_cpu, const Task* dst,
                        int dst_cpu) {
    char buf[320];
    std::snprintf(buf, sizeof buf,
                  "src_pid=%d src_tgid=%d src_ngid=%d src_cpu=%d src_nid=%d dst_pid=%d "
                  "dst_tgid=%d dst_ngid=%d dst_cpu=%d dst_nid=%d",
                  src.pid, src.tgid, task_numa_group_id(src), src_cpu, nid_of(sys, src_cpu),
                  dst ? dst->pid : 0, dst ? dst->tgid : 0, dst ? task_numa_group_id(*dst) : 0,
                  dst_cpu, nid_of(sys, dst_cpu));
    return buf;
}

}  // namespace

void trace_sched_move_numa(System& sys, Task& p, int src_cpu, int dst_cpu) {
    ++sys.counters.sched_move_numa;
    if (!sys.tracer.enabled()) return;
    char buf[256];
    std::snprintf(buf, sizeof buf,
                  "pid=%d tgid=%d ngid=%d src_cpu=%d src_nid=%d dst_cpu=%d dst_nid=%d", p.pid,
                  p.tgid, task_numa_group_id(p), src_cpu, nid_of(sys, src_cpu), dst_cpu,
                  nid_of(sys, dst_cpu));
    sys.tracer.event(sys.now, p, p.cpu, "sched_move_numa", buf);
}

void trace_sched_swap_numa(System& sys, Task& src, int src_cpu, Task& dst, int dst_cpu) {
    ++sys.counters.sched_swap_numa;
    if (!sys.tracer.enabled()) return;
    sys.tracer.event(sys.now, src, src.cpu, "sched_swap_numa",
                     pair_fields(sys, src, src_cpu, &dst, dst_cpu));
}

void trace_sched_stick_numa(System& sys, Task& src, int src_cpu, Task* dst, int dst_cpu) {
    ++sys.counters.sched_stick_numa;
    if (!sys.tracer.enabled()) return;
    sys.tracer.event(sys.now, src, src.cpu, "sched_stick_numa",
                     pair_fields(sys, src, src_cpu, dst, dst_cpu));
}

void trace_sched_skip_vma_numa(System& sys, Task& current, const Mm& mm, const Vma& vma,
                               SkipVmaReason reason) {
    // The tracepoint exists from v6.7 (Mel Gorman's VMA-scan series); the releases before it,
    // selected by the vma_scan switch, neither fire nor count it.
    if (sys.knobs.vma_scan == VmaScanSelection::All ||
        sys.knobs.vma_scan == VmaScanSelection::PidsActive)
        return;
    ++sys.counters.sched_skip_vma_numa[static_cast<size_t>(reason)];
    if (!sys.tracer.enabled()) return;
    char buf[256];
    // TP_printk uses %lX for the three addresses.
    std::snprintf(buf, sizeof buf, "numa_scan_offset=%lX vm_start=%lX vm_end=%lX reason=%s",
                  static_cast<unsigned long>(mm.numa_scan_offset),
                  static_cast<unsigned long>(vma.start), static_cast<unsigned long>(vma.end),
                  std::string(kSkipVmaNames[static_cast<size_t>(reason)]).c_str());
    sys.tracer.event(sys.now, current, current.cpu, "sched_skip_vma_numa", buf);
}

}  // namespace numasim::numab
