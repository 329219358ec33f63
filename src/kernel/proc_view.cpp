#include "kernel/proc_view.h"

#include <algorithm>
#include <map>

#include "kernel/system.h"

namespace numasim {

std::vector<ProcPidStat> proc_pid_stats(const System& sys) {
    std::map<int, ProcPidStat> by_pid;
    for (const auto& t : sys.tasks) {
        if (t->exiting() || !t->mm) continue;
        ProcPidStat& s = by_pid[t->tgid];
        s.pid = t->tgid;
        ++s.num_threads;
        if (!s.mm || t->pid == t->tgid) {
            s.mm = t->mm;
            s.comm = t->comm;
        }
    }
    // The CPU times of the whole group, the exited threads' kept in its signal_struct.
    for (const auto& t : sys.tasks) {
        auto it = by_pid.find(t->tgid);
        if (it == by_pid.end()) continue;
        it->second.utime += static_cast<uint64_t>(t->utime / USER_HZ_TICK_NS);
        it->second.stime += static_cast<uint64_t>(t->stime / USER_HZ_TICK_NS);
    }
    std::vector<ProcPidStat> out;
    out.reserve(by_pid.size());
    for (auto& [pid, s] : by_pid) {
        for (const auto& v : s.mm->vmas)
            s.vsize += v->end - v->start;
        s.rss = s.mm->rss_pages;
        out.push_back(std::move(s));
    }
    return out;
}

NumaMapsTotals numa_maps_totals(const System& sys, const Mm& mm) {
    NumaMapsTotals t;
    t.node_bytes.assign(static_cast<size_t>(sys.nr_nodes()), 0);
    const uint64_t page = mm.pages.size();
    // A VMA without a policy of its own shows the task's (that of the thread the pid names).
    for (const Task* task : mm.tasks)
        if (task->pid == task->tgid && task->mempolicy.mode == MpolMode::Interleave)
            t.interleaved = true;
    for (const auto& vp : mm.vmas) {
        const Vma& v = *vp;
        if (v.policy && v.policy->mode == MpolMode::Interleave) t.interleaved = true;
        // The VMA's per-node totals, kept as pages move (what numa_maps counts page by page).
        for (int nid = 0; nid < sys.nr_nodes(); ++nid)
            t.node_bytes[static_cast<size_t>(nid)] += v.pages_on(nid) * page;
    }
    return t;
}

double numa_maps_read_ns(const System& sys, const Mm& mm) {
    const uint64_t per_pmd = mm.pages.pmd_nr();
    double entries = 0;
    for (const auto& vp : mm.vmas) {
        const Vma& v = *vp;
        uint64_t present = 0;
        for (int nid = 0; nid < sys.nr_nodes(); ++nid)
            present += v.pages_on(nid);
        const uint64_t pmds = v.pmd_mapped.size() ? v.pmd_mapped.count(0, v.pmd_mapped.size()) : 0;
        const uint64_t under_pmds = std::min(present, pmds * per_pmd);
        entries += static_cast<double>(present - under_pmds + pmds);
    }
    return static_cast<double>(mm.vmas.size()) * NUMA_MAPS_LINE_NS + entries * NUMA_MAPS_ENTRY_NS;
}

uint64_t proc_stat_idle(const System& sys, int cpu) {
    const Nanos busy = sys.rqs[static_cast<size_t>(cpu)].busy_time;
    return static_cast<uint64_t>(std::max<Nanos>(0, sys.now - busy) / USER_HZ_TICK_NS);
}

NodeMeminfo node_meminfo(const System& sys, int nid) {
    const NodeMemory& m = sys.mem.nodes[static_cast<size_t>(nid)];
    const uint64_t kb = sys.pages().size() / 1024;
    return {m.present_pages * kb, m.free_pages * kb};
}

}  // namespace numasim
