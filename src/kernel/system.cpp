#include "kernel/system.h"

#include <algorithm>
#include <limits>

#include "kernel/release.h"
#include "sched/reclaim_distance.h"

namespace numasim {

System::System(Topology t, NumaBalancingKnobs k, uint64_t s, const cost::Constants& figures)
    : topo(std::move(t)),
      sched(build_sched_domains(topo)),
      knobs(k),
      seed(s),
      rng_access(s, "engine.access"),
      rng_sched(s, "sched"),
      rng_reclaim(s, "mm.reclaim"),
      rng_policy(s, "policy") {
    std::vector<uint64_t> bytes;
    for (const auto& n : topo.nodes)
        bytes.push_back(n.mem_bytes);
    mem.init(bytes, topo.distance, topo.hw.pages, knobs.watermark_scale_factor);
    counters.pgpromote_success.assign(bytes.size(), 0);
    counters.pgpromote_candidate.assign(bytes.size(), 0);
    counters.kswapd_stime_ns.assign(bytes.size(), 0);
    counters.reclaim_reported = knobs.demotion_enabled;
    rqs.resize(topo.nr_cpus());
    lru_add.resize(topo.nr_cpus());
    for (int c = 0; c < topo.nr_cpus(); ++c) {
        Rq& rq = rqs[c];
        rq.cpu = c;
        const size_t levels = sched.domains[c].size();
        rq.last_balance.assign(levels, 0);
        rq.nr_balance_failed.assign(levels, 0);
        rq.balance_interval_ms.resize(levels);
        rq.next_balance = std::numeric_limits<Nanos>::max();
        for (size_t l = 0; l < levels; ++l) {
            rq.balance_interval_ms[l] = sched.domains[c][l].min_interval_ms;
            // The first balance of each CPU and level falls somewhere in its first interval,
            // as the kernel's jiffies-based timers do relative to when a CPU came up. This
            // is also where runs with different seeds start to differ.
            const Nanos interval = msecs_to_ns(sched.domains[c][l].min_interval_ms);
            rq.last_balance[l] =
                static_cast<Nanos>(rng_sched.below(static_cast<uint64_t>(interval)));
            rq.next_balance = std::min(rq.next_balance, rq.last_balance[l] + interval);
        }
        if (!levels) rq.next_balance = 0;
    }
    nohz_init(*this);
    cost.init(topo, figures);
}

void System::set_kernel_release(std::string_view release) {
    apply_node_reclaim_distance(sched,
                                node_reclaim_distance(topo.cpu, parse_kernel_release(release)));
    tiers = establish_memory_tiers(topo, memtier_kernel_of_release(release));
    promotion = promotion_kernel_of_release(release);
    thp_fault_nodes = thp_fault_nodes_of_release(release);
    has_migrate_pages_start = memtier_kernel_of_release(release) != MemtierKernel::kNone;
    has_slow_tier = false;
    for (int n = 0; n < nr_nodes(); ++n)
        if (topo.nodes[n].mem_bytes && !tiers.node_is_toptier(n)) has_slow_tier = true;
    counters.promotion_possible = has_slow_tier;
    counters.pghot_reported = knobs.pghot && knobs.tiering_mode() && has_slow_tier;
    pghot.nodes.assign(counters.pghot_reported ? static_cast<size_t>(nr_nodes()) : 0, {});
}

}  // namespace numasim
