// NUMA hooks of the regular load balancer (kernel/sched/fair.c): the rq counters that
// enqueue/dequeue keep, the fbq_type classification, and migrate_degrades_locality().
#include "numab/internal.h"
#include "sched/rq.h"
#include "sched/sched_domain.h"

namespace numasim {

using namespace numab;

void account_numa_enqueue(System& sys, Rq& rq, Task& p) {
    rq.nr_numa_running += p.numa_preferred_nid != NUMA_NO_NODE;
    rq.nr_preferred_running += p.numa_preferred_nid == sys.cpu_to_node(rq.cpu);
    sys.sg_cache.cpu_changed(rq.cpu);
}

void account_numa_dequeue(System& sys, Rq& rq, Task& p) {
    rq.nr_numa_running -= p.numa_preferred_nid != NUMA_NO_NODE;
    rq.nr_preferred_running -= p.numa_preferred_nid == sys.cpu_to_node(rq.cpu);
    sys.sg_cache.cpu_changed(rq.cpu);
}

FbqType fbq_classify_group(unsigned sum_nr_running, unsigned nr_numa_running,
                           unsigned nr_preferred_running) {
    // Pull tasks without NUMA preference first, then misplaced ones, well placed ones last.
    if (sum_nr_running > nr_numa_running) return FbqType::Regular;
    if (sum_nr_running > nr_preferred_running) return FbqType::Remote;
    return FbqType::All;
}

FbqType fbq_classify_rq(const Rq& rq) {
    return fbq_classify_group(rq.nr_running, rq.nr_numa_running, rq.nr_preferred_running);
}

int migrate_degrades_locality(System& sys, Task& p, int src_cpu, int dst_cpu, const SchedDomain& sd,
                              bool dst_idle) {
    if (!sys.numa_balancing_enabled()) return -1;
    if (p.numa_faults.empty() || !sd.numa) return -1;
    const int src_nid = sys.cpu_to_node(src_cpu), dst_nid = sys.cpu_to_node(dst_cpu);
    if (src_nid == dst_nid) return -1;
    // Leaving the preferred node degrades locality, unless other tasks there need it less.
    if (src_nid == p.numa_preferred_nid) {
        const Rq& src_rq = sys.rqs[src_cpu];
        return src_rq.nr_running > src_rq.nr_preferred_running ? 1 : -1;
    }
    if (dst_nid == p.numa_preferred_nid) return 0;  // moving home: encourage
    if (dst_idle) return -1;                        // an idle CPU pulling: leave it to task_hot()
    const int dist = node_distance(sys, src_nid, dst_nid);
    unsigned long src_weight, dst_weight;
    if (p.numa_group) {
        src_weight = group_weight(sys, p, src_nid, dist);
        dst_weight = group_weight(sys, p, dst_nid, dist);
    } else {
        src_weight = task_weight(sys, p, src_nid, dist);
        dst_weight = task_weight(sys, p, dst_nid, dist);
    }
    return dst_weight < src_weight ? 1 : 0;
}

}  // namespace numasim
