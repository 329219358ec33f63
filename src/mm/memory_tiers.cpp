#include "mm/memory_tiers.h"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <iterator>

#include "kernel/release.h"
#include "machine/hmat.h"
#include "sched/task.h"

namespace numasim {

namespace {

// find_next_best_node() (mm/page_alloc.c) ranks a node by its distance times MAX_NUMNODES plus
// node_load[], so that the load only breaks ties. MAX_NUMNODES is 1 << CONFIG_NODES_SHIFT (10,
// the x86-64 maximum); any value above the node count gives the same order.
constexpr int MAX_NUMNODES = 1 << 10;
// mm/page_alloc.c: a node with CPUs ranks one distance unit behind a CPU-less one at the same
// distance ("give preference to headless and unused nodes").
constexpr int PENALTY_FOR_NODE_WITH_CPUS = 1;
// The first releases of each behaviour (MemtierKernel).
constexpr int kFirstTiersMinor = 1;  // v6.1: mm/memory-tiers.c
constexpr int kFirstHmatMinor = 10;  // v6.10: CPU-less boot nodes take their adistance from HMAT
// v6.12: Zi Yan's "Various memory tiering fixes" (mm-stable for 6.12-rc1), PromotionKernel.
constexpr int kPromotionFixesMinor = 12;

struct Nodes {
    const Topology& t;
    bool has_memory(int n) const { return t.nodes[n].mem_bytes > 0; }
    bool has_cpus(int n) const { return !t.nodes[n].cpus.empty(); }
};

// find_next_best_node(): the unused node with memory nearest to `node`, preferring CPU-less nodes
// and, at equal distance, higher ids, then the less loaded; marks it used. `node` itself first.
int find_next_best_node(const Nodes& ns, int node, std::vector<bool>& used,
                        const std::vector<int>& node_load) {
    if (!used[node]) {
        used[node] = true;
        return node;
    }
    int best = NUMA_NO_NODE, min_val = INT_MAX;
    for (int n = 0; n < ns.t.nr_nodes(); ++n) {
        if (!ns.has_memory(n) || used[n]) continue;
        int val = ns.t.node_distance(node, n) + (n < node ? 1 : 0);
        if (ns.has_cpus(n)) val += PENALTY_FOR_NODE_WITH_CPUS;
        val = val * MAX_NUMNODES + node_load[n];
        if (val < min_val) {
            min_val = val;
            best = n;
        }
    }
    if (best >= 0) used[best] = true;
    return best;
}

// node_load[] as build_all_zonelists() leaves it: each node's zonelist build adds one to the
// first node of every distance group after its own, so that the groups' first nodes rotate.
std::vector<int> zonelist_node_load(const Nodes& ns) {
    const int nr = ns.t.nr_nodes();
    std::vector<int> load(static_cast<size_t>(nr), 0);
    for (int local = 0; local < nr; ++local) {
        std::vector<bool> used(static_cast<size_t>(nr), false);
        int prev = local;
        for (int node; (node = find_next_best_node(ns, local, used, load)) >= 0; prev = node)
            if (ns.t.node_distance(local, node) != ns.t.node_distance(local, prev)) ++load[node];
    }
    return load;
}

// An HMAT access coordinate (struct access_coordinate): latency in ns, bandwidth in MB/s, read
// and write. The model has one figure of each, so read and write are equal.
struct AccessCoordinate {
    int64_t read_latency = 0, write_latency = 0, read_bandwidth = 0, write_bandwidth = 0;
};

AccessCoordinate coordinate(const HmatFigures& f) {
    return {f.latency_ns, f.latency_ns, f.bandwidth_mbs, f.bandwidth_mbs};
}

// mt_perf_to_adistance(): DRAM's adistance times the node's latency over DRAM's, times DRAM's
// bandwidth over the node's, in the kernel's integer order of operations (64-bit, as the
// products overflow 32 bits).
int mt_perf_to_adistance(const AccessCoordinate& perf, const AccessCoordinate& dram) {
    int64_t adist = MEMTIER_ADISTANCE_DRAM * (perf.read_latency + perf.write_latency);
    adist /= dram.read_latency + dram.write_latency;
    adist *= dram.read_bandwidth + dram.write_bandwidth;
    adist /= perf.read_bandwidth + perf.write_bandwidth;
    return static_cast<int>(std::min<int64_t>(adist, INT_MAX));
}

// The adistance a node's memory type has once it is online (set_node_memory_tier, dax/kmem's
// probe). The reference DRAM performance (mt_set_default_dram_perf) is that of the nodes with
// CPUs and memory, which the model makes all alike: the machine's local latency and bandwidth.
int node_adistance(const Topology& t, int n, MemtierKernel kernel) {
    const MemoryDevice& d = t.nodes[n].device;
    const int fixed = d.dax_kmem ? MEMTIER_DEFAULT_DAX_ADISTANCE : MEMTIER_ADISTANCE_DRAM;
    if (!t.nodes[n].cpus.empty() || kernel != MemtierKernel::kHmat || !t.hmat) return fixed;
    const HmatFigures dram = hmat_figures(t, t.nearest_cpu_node(n));
    if (dram.latency_ns == 0 || dram.bandwidth_mbs == 0) return fixed;
    return mt_perf_to_adistance(coordinate(hmat_figures(t, n)), coordinate(dram));
}

std::string nodelist(const std::vector<int>& nodes) {
    std::string s;
    for (size_t i = 0; i < nodes.size();) {
        size_t j = i;
        while (j + 1 < nodes.size() && nodes[j + 1] == nodes[j] + 1)
            ++j;
        if (!s.empty()) s += ',';
        s += j > i ? fmt::format("{}-{}", nodes[i], nodes[j]) : std::to_string(nodes[i]);
        i = j + 1;
    }
    return s;
}

std::string_view kernel_text(MemtierKernel k) {
    switch (k) {
        case MemtierKernel::kNone:
            return "none: the profile's kernel predates mm/memory-tiers.c (v6.1)";
        case MemtierKernel::kFixed:
            return "as v6.1 to v6.6 form them: dax/kmem nodes at MEMTIER_DEFAULT_DAX_ADISTANCE";
        case MemtierKernel::kHmat:
            return "as v6.12 forms them: adistance from the HMAT where the firmware has one";
    }
    return "";
}

}  // namespace

PromotionKernel promotion_kernel_of_release(std::string_view release) {
    // A release that does not read as MAJOR.MINOR counts as a current kernel.
    const std::optional<KernelRelease> r = parse_kernel_release(release);
    const bool v6_12 = !r || *r >= KernelRelease{6, kPromotionFixesMinor};
    return {v6_12, v6_12};
}

MemtierKernel memtier_kernel_of_release(std::string_view release) {
    const std::optional<KernelRelease> r = parse_kernel_release(release);
    if (!r || *r < KernelRelease{6, kFirstTiersMinor}) return MemtierKernel::kNone;
    if (*r < KernelRelease{6, kFirstHmatMinor}) return MemtierKernel::kFixed;
    return MemtierKernel::kHmat;
}

int MemoryTiers::next_demotion_node(int nid, uint32_t random) const {
    if (node_demotion.empty()) return NUMA_NO_NODE;
    const std::vector<int>& p = node_demotion[static_cast<size_t>(nid)].preferred;
    if (p.empty()) return NUMA_NO_NODE;
    return p[random % p.size()];
}

MemoryTiers establish_memory_tiers(const Topology& t, MemtierKernel kernel) {
    MemoryTiers mt;
    mt.kernel = kernel;
    if (kernel == MemtierKernel::kNone) return mt;
    const Nodes ns{t};
    const int nr = t.nr_nodes();
    mt.adistance.assign(static_cast<size_t>(nr), 0);
    mt.tier_of_node.assign(static_cast<size_t>(nr), -1);
    mt.node_demotion.assign(static_cast<size_t>(nr), {});
    // find_create_memory_tier(): one tier per adistance chunk, kept in ascending order.
    for (int n = 0; n < nr; ++n) {
        if (!ns.has_memory(n)) continue;
        mt.adistance[n] = node_adistance(t, n, kernel);
        const int start = mt.adistance[n] / MEMTIER_CHUNK_SIZE * MEMTIER_CHUNK_SIZE;
        auto it = std::find_if(mt.tiers.begin(), mt.tiers.end(),
                               [&](const MemoryTier& m) { return m.adistance_start >= start; });
        if (it == mt.tiers.end() || it->adistance_start != start)
            it = mt.tiers.insert(it, MemoryTier{start, {}, {}});
        it->nodes.push_back(n);
    }
    for (size_t i = 0; i < mt.tiers.size(); ++i)
        for (int n : mt.tiers[i].nodes)
            mt.tier_of_node[static_cast<size_t>(n)] = static_cast<int>(i);

    // establish_demotion_targets(): every node of the next tier down at the distance of the
    // first one find_next_best_node() returns.
    const std::vector<int> node_load = zonelist_node_load(ns);
    for (int n = 0; n < nr; ++n) {
        const int tier = mt.tier_of_node[static_cast<size_t>(n)];
        if (tier < 0 || tier + 1 == static_cast<int>(mt.tiers.size())) continue;
        std::vector<bool> used(static_cast<size_t>(nr), false);
        for (int m = 0; m < nr; ++m)
            used[m] = ns.has_memory(m);
        for (int m : mt.tiers[static_cast<size_t>(tier) + 1].nodes)
            used[m] = false;
        std::vector<int>& preferred = mt.node_demotion[static_cast<size_t>(n)].preferred;
        int best_distance = -1;
        for (int target; (target = find_next_best_node(ns, n, used, node_load)) >= 0;) {
            const int d = t.node_distance(n, target);
            if (best_distance != -1 && d != best_distance) break;
            best_distance = d;
            preferred.push_back(target);
        }
        std::sort(preferred.begin(), preferred.end());
    }
    // The slowest tier that holds a node with CPUs, and every tier above it, is the top tier:
    // promotion never starts from a tier that has CPUs.
    for (auto it = mt.tiers.rbegin(); it != mt.tiers.rend(); ++it)
        if (std::any_of(it->nodes.begin(), it->nodes.end(),
                        [&](int n) { return ns.has_cpus(n); })) {
            mt.top_tier_adistance = it->adistance_start + MEMTIER_CHUNK_SIZE - 1;
            break;
        }
    // Each tier's lower_tier_mask: the nodes with memory of the tiers after it.
    for (size_t i = 0; i < mt.tiers.size(); ++i)
        for (size_t j = i + 1; j < mt.tiers.size(); ++j)
            mt.tiers[i].lower_tier_mask.insert(mt.tiers[i].lower_tier_mask.end(),
                                               mt.tiers[j].nodes.begin(), mt.tiers[j].nodes.end());
    for (MemoryTier& m : mt.tiers)
        std::sort(m.lower_tier_mask.begin(), m.lower_tier_mask.end());
    return mt;
}

std::string memory_tiers_text(const MemoryTiers& mt) {
    std::string s;
    auto out = std::back_inserter(s);
    fmt::format_to(out, "memory tiers: {}\n", kernel_text(mt.kernel));
    if (mt.kernel == MemtierKernel::kNone) return s;
    for (const MemoryTier& m : mt.tiers)
        fmt::format_to(out, "/sys/devices/virtual/memory_tiering/memory_tier{}/nodelist: {}\n",
                       m.id(), nodelist(m.nodes));
    // numa_demotion_enabled is false until someone writes the file.
    s += "/sys/kernel/mm/numa/demotion_enabled: false\n";
    for (size_t n = 0; n < mt.tier_of_node.size(); ++n) {
        const int tier = mt.tier_of_node[n];
        if (tier < 0) continue;
        const std::vector<int>& p = mt.node_demotion[n].preferred;
        if (p.empty())
            fmt::format_to(out, "Demotion targets for Node {}: null\n", n);
        else
            fmt::format_to(out, "Demotion targets for Node {}: preferred: {}, fallback: {}\n", n,
                           nodelist(p),
                           nodelist(mt.tiers[static_cast<size_t>(tier)].lower_tier_mask));
    }
    for (size_t n = 0; n < mt.tier_of_node.size(); ++n) {
        if (mt.tier_of_node[n] < 0) continue;
        fmt::format_to(out, "node {} adistance {}, memory_tier{}, {}\n", n, mt.adistance[n],
                       mt.tiers[static_cast<size_t>(mt.tier_of_node[n])].id(),
                       mt.node_is_toptier(static_cast<int>(n)) ? "top tier" : "slow tier");
    }
    return s;
}

}  // namespace numasim
