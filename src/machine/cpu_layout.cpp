#include "machine/cpu_layout.h"

#include <algorithm>

namespace numasim {

std::optional<CpuNumbering> parse_cpu_numbering(std::string_view text) {
    if (text == "siblings-last") return CpuNumbering::kSiblingsLast;
    if (text == "siblings-adjacent") return CpuNumbering::kSiblingsAdjacent;
    return std::nullopt;
}

void build_regular_layout(const RegularLayout& l, Topology& topo) {
    const int nr_nodes = l.sockets * l.nodes_per_socket;
    const int nr_cores = nr_nodes * l.cores_per_node;
    const int cores_per_llc = l.cores_per_node / l.llcs_per_node;
    topo.nodes.assign(nr_nodes, NodeInfo{});
    topo.cpus.assign(static_cast<size_t>(nr_cores) * l.threads_per_core, CpuInfo{});
    for (int node = 0; node < nr_nodes; ++node) {
        topo.nodes[node].id = node;
        topo.nodes[node].mem_bytes = l.mem_per_node;
        for (int c = 0; c < l.cores_per_node; ++c) {
            const int core = node * l.cores_per_node + c;
            for (int t = 0; t < l.threads_per_core; ++t) {
                const int id = l.numbering == CpuNumbering::kSiblingsLast
                                   ? t * nr_cores + core
                                   : core * l.threads_per_core + t;
                CpuInfo& cpu = topo.cpus[id];
                cpu.id = id;
                cpu.node = node;
                cpu.package = node / l.nodes_per_socket;
                cpu.core = core;
                cpu.llc = node * l.llcs_per_node + c / cores_per_llc;
                topo.nodes[node].cpus.push_back(id);
            }
        }
        std::sort(topo.nodes[node].cpus.begin(), topo.nodes[node].cpus.end());
    }
}

void build_explicit_layout(const std::vector<ExplicitNode>& nodes, Topology& topo) {
    size_t nr_cpus = 0;
    for (const auto& n : nodes)
        for (const auto& core : n.cores)
            nr_cpus += core.size();
    topo.nodes.assign(nodes.size(), NodeInfo{});
    topo.cpus.assign(nr_cpus, CpuInfo{});
    int core_index = 0, llc_base = 0;
    for (size_t i = 0; i < nodes.size(); ++i) {
        const ExplicitNode& n = nodes[i];
        NodeInfo& out = topo.nodes[i];
        out.id = static_cast<int>(i);
        out.mem_bytes = n.mem_bytes;
        const int cores_per_llc =
            n.cores.empty() ? 1 : static_cast<int>(n.cores.size()) / std::max(1, n.llcs);
        for (size_t c = 0; c < n.cores.size(); ++c, ++core_index) {
            for (int id : n.cores[c]) {
                CpuInfo& cpu = topo.cpus[id];
                cpu.id = id;
                cpu.node = out.id;
                cpu.package = n.package;
                cpu.core = core_index;
                cpu.llc = llc_base + static_cast<int>(c) / cores_per_llc;
                out.cpus.push_back(id);
            }
        }
        if (!n.cores.empty()) llc_base += std::max(1, n.llcs);
        std::sort(out.cpus.begin(), out.cpus.end());
    }
}

}  // namespace numasim
