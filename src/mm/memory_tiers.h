// Memory tiers as the kernel forms them (mm/memory-tiers.c, v6.1+): each node with memory gets an
// abstract distance (adistance), nodes whose adistance falls in one MEMTIER_CHUNK_SIZE chunk form
// a tier, the tiers are ordered by adistance, and each node's demotion targets are the nearest
// nodes of the next tier down (establish_demotion_targets). The top tier is every tier down to
// the slowest one that holds a node with CPUs (node_is_toptier). docs/tiering.md describes what is
// modelled and from which kernel sources; promotion and demotion themselves are later steps.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "machine/topology.h"

namespace numasim {

// include/linux/memory-tiers.h (v6.1 to v6.12): a tier spans an adistance chunk of 128.
constexpr int MEMTIER_CHUNK_BITS = 7;
constexpr int MEMTIER_CHUNK_SIZE = 1 << MEMTIER_CHUNK_BITS;
// The default DRAM type's adistance, half a chunk above 4 chunks so that a device a little faster
// than DRAM still lands in the DRAM tier (memory-tiers.h, v6.1 to v6.12): 576, memory_tier4.
constexpr int MEMTIER_ADISTANCE_DRAM = 4 * MEMTIER_CHUNK_SIZE + (MEMTIER_CHUNK_SIZE >> 1);
// drivers/dax/kmem.c (v6.1 to v6.12): the adistance of a dax/kmem node when nothing better is
// known, five times DRAM's: 2880, memory_tier22.
constexpr int MEMTIER_DEFAULT_DAX_ADISTANCE = MEMTIER_ADISTANCE_DRAM * 5;

// How the profile's kernel gives a node its adistance.
enum class MemtierKernel {
    // Before v6.1 (the v4.18 and v4.19 profiles): no mm/memory-tiers.c, no tiers; every node is
    // top tier (node_is_toptier came in v5.18, and before it there was no tiering at all).
    kNone,
    // v6.1 to v6.6: a dax/kmem node gets MEMTIER_DEFAULT_DAX_ADISTANCE; every other node with
    // memory the default DRAM type, MEMTIER_ADISTANCE_DRAM.
    kFixed,
    // v6.12: mt_calc_adistance asks the HMAT (drivers/acpi/numa/hmat.c) for a dax/kmem node
    // (v6.7) and for a CPU-less boot node (v6.10), and mt_perf_to_adistance scales DRAM's
    // adistance by the node's latency over DRAM's and DRAM's bandwidth over the node's; without
    // an HMAT the v6.1 values stand.
    kHmat,
};

// The behaviour of a profile's `release` ("v4.18", "v6.1", "v6.6", "v6.12").
MemtierKernel memtier_kernel_of_release(std::string_view release);

// What NUMA balancing's promotion does that changed between the profiles' kernels with tiers
// (the tiering mode itself and the hot-page selection are the same from v6.1 to v6.12).
struct PromotionKernel {
    // v6.12 ("memory tiering: count PGPROMOTE_SUCCESS when mem tiering is enabled"):
    // migrate_misplaced_folio counts pgpromote_success only in tiering mode; v6.1 and v6.6 count
    // every slow-to-top-tier NUMA migration, in mode 1 as well.
    bool pgpromote_success_tiering_only = true;
    // v6.12 ("memory tiering: read last_cpupid correctly in do_huge_pmd_numa_page()"): the huge
    // PMD path passes "unset" as the last cpupid of a slow-tier THP in tiering mode, as the PTE
    // path always did; before, it passed the stored access time as if it were a cpupid.
    bool huge_pmd_unsets_access_time = true;
};
PromotionKernel promotion_kernel_of_release(std::string_view release);

// One memory tier: /sys/devices/virtual/memory_tiering/memory_tier<id>/.
struct MemoryTier {
    int adistance_start = 0;  // a multiple of MEMTIER_CHUNK_SIZE
    std::vector<int> nodes;   // nodelist, ascending
    // Every node of the tiers below this one (node_get_allowed_targets: the demotion fallback).
    std::vector<int> lower_tier_mask;

    int id() const { return adistance_start >> MEMTIER_CHUNK_BITS; }
};

// node_demotion[nid]: the nodes of the next tier down at the smallest distance from nid.
struct DemotionNodes {
    std::vector<int> preferred;  // ascending
};

struct MemoryTiers {
    MemtierKernel kernel = MemtierKernel::kNone;
    std::vector<int> adistance;                // by node; 0 for a node without memory (no tier)
    std::vector<MemoryTier> tiers;             // ascending adistance_start: the fastest first
    std::vector<int> tier_of_node;             // index into tiers, -1 for a node without memory
    std::vector<DemotionNodes> node_demotion;  // by node
    int top_tier_adistance = 0;

    // Inline: each hinting fault and migration asks it more than once.
    bool node_is_toptier(int nid) const {
        const int tier = tier_of_node.empty() ? -1 : tier_of_node[static_cast<size_t>(nid)];
        if (tier < 0) return true;  // no memory tier: pgdat->memtier is NULL
        return tiers[static_cast<size_t>(tier)].adistance_start <= top_tier_adistance;
    }
    // The next node down from nid, one of node_demotion[nid].preferred chosen by `random` (any
    // 32-bit random value, as node_random() draws one); NUMA_NO_NODE (sched/task.h) if nid is
    // the last.
    int next_demotion_node(int nid, uint32_t random) const;
};

// The tiers and demotion targets the kernel forms at boot, once every node's memory is online.
MemoryTiers establish_memory_tiers(const Topology& topo, MemtierKernel kernel);

// The sysfs files and boot lines that show them: each memory_tier<N>/nodelist, demotion_enabled,
// and establish_demotion_targets' "Demotion targets for Node X: ..." lines.
std::string memory_tiers_text(const MemoryTiers& mt);

}  // namespace numasim
