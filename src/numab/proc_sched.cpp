#include "numab/proc_sched.h"

#include <cstdio>

#include "mm/mm.h"
#include "numab/internal.h"

namespace numasim {

using namespace numab;

namespace {

// debug.c's P(F): SEQ_printf(m, "%-45s:%21Ld\n", #F, (long long)p->F).
void P(std::string& out, const char* name, long long v) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "%-45s:%21lld\n", name, v);
    out += buf;
}

}  // namespace

std::string sched_show_numa(const System& sys, const Task& p) {
    std::string out;
    if (p.mm) P(out, "mm->numa_scan_seq", p.mm->numa_scan_seq);
    P(out, "numa_pages_migrated", static_cast<long long>(p.numa_pages_migrated));
    P(out, "numa_preferred_nid", p.numa_preferred_nid);
    P(out, "total_numa_faults", static_cast<long long>(p.total_numa_faults));
    char buf[192];
    std::snprintf(buf, sizeof buf, "current_node=%d, numa_group_id=%d\n", sys.task_node(p),
                  task_numa_group_id(p));
    out += buf;
    // show_numa_stats(): the decayed NUMA_MEM entries per online node, 0 where the task or its
    // group has no statistics.
    const NumaGroup* ng = p.numa_group;
    for (int node = 0; node < sys.nr_nodes(); ++node) {
        unsigned long tsf = 0, tpf = 0, gsf = 0, gpf = 0;
        if (!p.numa_faults.empty()) {
            tsf = p.numa_faults[task_faults_idx(sys, NUMA_MEM, node, 0)];
            tpf = p.numa_faults[task_faults_idx(sys, NUMA_MEM, node, 1)];
        }
        if (ng) {
            gsf = ng->faults[task_faults_idx(sys, NUMA_MEM, node, 0)];
            gpf = ng->faults[task_faults_idx(sys, NUMA_MEM, node, 1)];
        }
        // print_numa_stats(): "numa_faults node=%d " "task_private=%lu task_shared=%lu "
        // "group_private=%lu group_shared=%lu\n"
        std::snprintf(buf, sizeof buf,
                      "numa_faults node=%d task_private=%lu task_shared=%lu group_private=%lu "
                      "group_shared=%lu\n",
                      node, tpf, tsf, gpf, gsf);
        out += buf;
    }
    return out;
}

}  // namespace numasim
