#include "sched/numa_imbalance.h"

#include <algorithm>
#include <cstdlib>

#include "sched/fair.h"
#include "sched/lb_env.h"
#include "sched/sched_domain.h"

namespace numasim {

long numa_move_imbalance(const NumaBalancingKnobs& k, long imbalance, int src_running,
                         int dst_running, int imb_numa_nr) {
    switch (k.numa_imbalance) {
        case NumaImbalance::None:
        case NumaImbalance::ImbalancePct:  // the posting and v5.6 changed the balancer only
        case NumaImbalance::BusiestMin:
            return imbalance;
        case NumaImbalance::SrcMin:
            return adjust_numa_imbalance(imbalance, src_running);
        case NumaImbalance::Fixed:
            return adjust_numa_imbalance(imbalance, dst_running);
        case NumaImbalance::ImbNumaNr:
            return adjust_numa_imbalance(imbalance, dst_running, imb_numa_nr);
    }
    return imbalance;
}

long numa_balance_imbalance(const NumaBalancingKnobs& k, const SchedDomain& sd, long imbalance,
                            const SgStats& busiest, const SgStats& local) {
    switch (k.numa_imbalance) {
        case NumaImbalance::None:
            return imbalance >> 1;
        case NumaImbalance::ImbalancePct: {
            // imbalance_adj = half of (imbalance_pct - 100) % of the busiest group's CPUs, at
            // least 2. Unsigned as posted: in a group of fewer than 2 x imbalance_adj CPUs the
            // bound wraps and any imbalance up to imbalance_adj goes.
            imbalance >>= 1;
            const unsigned adj = std::max(
                2U, (busiest.weight * static_cast<unsigned>(sd.imbalance_pct - 100) / 100) >> 1);
            const unsigned imbalance_max = (busiest.weight >> 1) - adj;
            if (imbalance <= static_cast<long>(adj) && busiest.sum_nr_running < imbalance_max)
                return 0;
            return imbalance;
        }
        case NumaImbalance::BusiestMin:
        case NumaImbalance::SrcMin:
        case NumaImbalance::Fixed:
            // v5.6 to v5.10: ignore the imbalance while the busiest group runs a pair at most.
            return adjust_numa_imbalance(imbalance >> 1, static_cast<int>(busiest.sum_nr_running));
        case NumaImbalance::ImbNumaNr:
            return adjust_numa_imbalance(imbalance, static_cast<int>(local.sum_nr_running) + 1,
                                         sd.imb_numa_nr) >>
                   1;
    }
    return imbalance >> 1;
}

bool numa_fork_rules(const NumaBalancingKnobs& k) {
    return k.numa_imbalance == NumaImbalance::Fixed || k.numa_imbalance == NumaImbalance::ImbNumaNr;
}

bool numa_fork_spreads(const NumaBalancingKnobs& k, unsigned local_running, unsigned local_idle,
                       unsigned idlest_idle, int imb_numa_nr, int nr_cpus_allowed) {
    if (k.numa_imbalance == NumaImbalance::Fixed && local_idle > 0) return false;
    if (k.numa_imbalance == NumaImbalance::ImbNumaNr) {
        const long diff = std::labs(static_cast<long>(idlest_idle) - static_cast<long>(local_idle));
        if (!adjust_numa_imbalance(diff, static_cast<int>(local_running) + 1,
                                   std::min(imb_numa_nr, nr_cpus_allowed)))
            return false;
    }
    // Otherwise the group with more idle CPUs wins.
    return idlest_idle > local_idle;
}

}  // namespace numasim
