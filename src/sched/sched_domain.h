// Scheduling domains built from the machine's topology as build_sched_domains() would: SMT,
// MC (the LLC), PKG when a package holds several LLCs, then one NUMA level per distinct SLIT
// distance. Each level knows its groups, imbalance_pct, cache_nice_tries and imb_numa_nr.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "machine/topology.h"
#include "sim/clock.h"

namespace numasim {

// include/linux/topology.h / kernel/sched/topology.c defaults for sd_init().
inline constexpr int SD_IMBALANCE_PCT_NUMA = 117;  // NUMA levels; 110 for SMT, 117 otherwise
inline constexpr int SD_IMBALANCE_PCT_SMT = 110;
inline constexpr int SD_IMBALANCE_PCT_DEFAULT = 117;
inline constexpr int SD_CACHE_NICE_TRIES_NUMA = 2;
inline constexpr int SD_CACHE_NICE_TRIES_DEFAULT = 1;
inline constexpr unsigned SD_BUSY_FACTOR = 16;  // sd->busy_factor
// How far ahead rebalance_domains() and _nohz_idle_balance() start their search for the
// earliest next balance: the kernel's `jiffies + 60*HZ`, one minute.
inline constexpr Nanos NEXT_BALANCE_HORIZON = 60 * NSEC_PER_SEC;

enum class NumaTopologyType { Direct, GluelessMesh, Backplane };

struct SchedDomain {
    std::string name;                      // "SMT", "MC", "PKG", "NUMA"
    int level = 0;                         // 0 is the lowest
    bool numa = false;                     // SD_NUMA
    bool shares_llc = false;               // SD_SHARE_LLC
    std::vector<int> span;                 // CPUs, ascending
    std::vector<std::vector<int>> groups;  // the child domains' spans (or single CPUs at SMT)
    std::vector<int> group_ids;  // per group: its id in SchedTopology (same CPUs, same id)
    // Per group: whether it holds the CPU whose domain this is (domains[cpu] lists it), the
    // kernel's cpumask_test_cpu(cpu, sched_group_span(sg)). The first group always does; at an
    // overlapping NUMA level a later one may too. Kept so that the balancer need not search a
    // group's CPUs (up to 64 at POWER8's top level) at every pass.
    std::vector<uint8_t> holds_cpu;
    int imbalance_pct = SD_IMBALANCE_PCT_DEFAULT;
    int cache_nice_tries = SD_CACHE_NICE_TRIES_DEFAULT;
    int imb_numa_nr = 0;
    unsigned min_interval_ms = 1;  // sd->min_interval = span weight
    bool prefer_sibling = false;   // the child level has SD_PREFER_SIBLING: spread tasks evenly
    int numa_distance = 0;         // a NUMA level's sched_domains_numa_distance[]; 0 below NUMA
    // SD_WAKE_AFFINE: a wake-up may be pulled to the waker's CPU within this span.
    // SD_BALANCE_FORK, SD_BALANCE_EXEC: a new task, or one that execs, may be placed anywhere in
    // this span (find_idlest_cpu()). Every level below NUMA has all three; a NUMA level only up to
    // node_reclaim_distance (sched/reclaim_distance.h).
    bool wake_affine = true;
    bool balance_fork = true;
    bool balance_exec = true;
};

struct SchedTopology {
    // domains[cpu] lists that CPU's domains from the lowest level up.
    std::vector<std::vector<SchedDomain>> domains;
    NumaTopologyType numa_topology_type = NumaTopologyType::Direct;
    int sched_max_numa_distance = 10;
    std::vector<int> numa_distances;  // distinct distances, ascending
    // Every distinct group CPU set of every CPU's domains gets one id (SchedDomain::group_ids);
    // cpu_groups[cpu] lists the ids of the groups that contain the CPU (sched/sg_stats_cache.h).
    int nr_groups = 0;
    std::vector<std::vector<int>> cpu_groups;
    // Per group id: its CPUs, ascending; and the ids of the groups that partition it (the groups
    // of a domain whose span it is, where they do not overlap), so that its sums are its parts'
    // sums. Empty for a single CPU and for the span of an overlapping NUMA level.
    std::vector<std::vector<int>> group_cpus, group_parts;
    // cpu_smt_mask(): each CPU's SMT siblings, itself included, ascending; and whether any CPU
    // has a sibling (the sched_smt_present static key).
    std::vector<std::vector<int>> smt_mask;
    bool smt_present = false;
    const std::vector<int>& cpu_smt_mask(int cpu) const { return smt_mask[cpu]; }

    const SchedDomain* sd_numa(int cpu) const;  // lowest SD_NUMA domain of cpu, or nullptr
    const SchedDomain* sd_llc(int cpu) const;   // highest domain sharing the LLC, or nullptr
};

SchedTopology build_sched_domains(const Topology& topo);

}  // namespace numasim
