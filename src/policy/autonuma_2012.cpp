// "autonuma-2012": automatic NUMA balancing as first merged, for v3.8 (Mel Gorman's "Foundation
// for automatic NUMA balancing" / balancenuma, merged December 2012; cbee9f88ec1b "mm: numa: Add
// fault driven placement and migration"): the PTE scanner and migrate-on-fault, with no
// scheduler placement. This is the "account-only" state the 2012-2013 autonumabench postings
// compared against: hinting faults move pages toward the faulting CPU, nothing moves tasks.
//
// What v3.8 decided, through two hooks:
// * kNumaFault: mpol_misplaced() with MPOL_F_MORON targets the faulting CPU's node, after the
//   two-stage filter of e42c8ff2999d "mm: numa: Use a two-stage filter to restrict pages being
//   migrated for unlikely task<->node relationships" (v3.8): page_xchg_last_nid() records the
//   faulting node in the page and the page moves only if the previous fault came from that
//   node too. A page never faulted before has no node recorded and stays.
// * kNumaPlacement: v3.8's task_numa_placement() only noted the scan sequence ("Scheduling
//   placement policy hints go here"): no pass runs, so no fault statistics are gathered, no
//   preferred node is chosen and no task is moved or swapped; numa groups may form in
//   task_numa_fault but nothing reads their (empty) statistics.
// Left out: v3.8's scan-period rule (each fault that migrated nothing lengthened the period by
// 10 ms, reset every scan_period_reset), its migration rate limit (ratelimit_pages per 100 ms
// per node), and its huge-page handling; the scanner is today's, with the profile's knobs
// (docs/placement-policies.md, "autonuma-2012").
#include "config/toml_reader.h"
#include "kernel/system.h"
#include "machine/topology.h"
#include "mm/cpupid.h"
#include "policy/registry.h"
#include "sched/task.h"

namespace numasim {

namespace {

class Autonuma2012 : public PlacementPolicy {
  public:
    explicit Autonuma2012(const TomlTable* params) : PlacementPolicy(kNumaFault | kNumaPlacement) {
        if (params) params->finish();  // no parameters: any key is an error naming it
    }

    int numa_fault(System& sys, Task&, const NumaFaultInfo& f) const override {
        const int thisnid = sys.topo.node_of(f.cpu);
        if (!((f.allowed_nodes >> thisnid) & 1)) return NUMA_NO_NODE;
        // page_xchg_last_nid(): the node of the fault before this one, if any.
        if (!cpupid_valid(f.last_cpupid, sys.nr_cpus())) return NUMA_NO_NODE;
        const int last_nid = sys.topo.node_of(cpupid_to_cpu(f.last_cpupid));
        return last_nid == thisnid ? thisnid : NUMA_NO_NODE;
    }

    bool numa_placement_due(System&, Task&) const override { return false; }
};

const PolicyRegistrar reg("autonuma-2012",
                          "NUMA balancing as merged for v3.8 (2012): PTE scanning and "
                          "migrate-on-fault with the two-stage filter, no task placement",
                          [](const TomlTable* t, const Topology&) {
                              return std::make_unique<Autonuma2012>(t);
                          });

}  // namespace

}  // namespace numasim
