#include "machine/topology.h"

#include <algorithm>
#include <set>

namespace numasim {

// ACPI SLIT normalises the local distance to 10, so a distance d costs d/10 times the local
// latency when no measured figure is given for it.
constexpr int kSlitLocalDistance = 10;

double MemoryHardware::latency(int distance) const {
    if (auto it = latency_ns.find(distance); it != latency_ns.end()) return it->second;
    if (latency_ns.empty()) return 0.0;
    // Scale from the local figure if present, otherwise from the smallest distance we know.
    auto base = latency_ns.find(kSlitLocalDistance);
    if (base == latency_ns.end()) base = latency_ns.begin();
    return base->second * static_cast<double>(distance) / static_cast<double>(base->first);
}

int Topology::nr_cores() const {
    std::set<int> cores;
    for (const auto& c : cpus)
        cores.insert(c.core);
    return static_cast<int>(cores.size());
}

int Topology::nr_llcs() const {
    std::set<int> llcs;
    for (const auto& c : cpus)
        llcs.insert(c.llc);
    return static_cast<int>(llcs.size());
}

uint64_t Topology::total_mem_bytes() const {
    uint64_t total = 0;
    for (const auto& n : nodes)
        total += n.mem_bytes;
    return total;
}

std::vector<int> Topology::smt_siblings(int cpu) const {
    std::vector<int> out;
    const int core = cpus[cpu].core;
    for (const auto& c : cpus)
        if (c.core == core) out.push_back(c.id);
    return out;  // cpus is indexed by id, so this is ascending
}

std::vector<int> Topology::llc_cpus(int cpu) const {
    std::vector<int> out;
    const int llc = cpus[cpu].llc;
    for (const auto& c : cpus)
        if (c.llc == llc) out.push_back(c.id);
    return out;
}

int Topology::max_distance() const {
    int m = 0;
    for (const auto& row : distance)
        for (int d : row)
            m = std::max(m, d);
    return m;
}

int Topology::nearest_cpu_node(int nid) const {
    if (!nodes[nid].cpus.empty()) return nid;
    int best = -1;
    for (const NodeInfo& n : nodes)
        if (!n.cpus.empty() && (best < 0 || distance[nid][n.id] < distance[nid][best])) best = n.id;
    return best;
}

bool Topology::has_memory_only_nodes() const {
    return std::any_of(nodes.begin(), nodes.end(),
                       [](const NodeInfo& n) { return n.cpus.empty(); });
}

int highest_cpu_plus_one(const Topology& topo) {
    int hi = -1;
    for (const CpuInfo& c : topo.cpus)
        hi = std::max(hi, c.id);
    return hi + 1;
}

}  // namespace numasim
