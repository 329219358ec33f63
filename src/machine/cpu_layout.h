// Builds the node/CPU tables of a Topology from a layout description: either a regular machine
// (sockets x nodes x cores x threads, numbered the Intel or the POWER way) or an explicit list
// of nodes with their cores, as an hwloc export or an irregular machine needs.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "machine/topology.h"

namespace numasim {

enum class CpuNumbering {
    // Linux on Intel: CPUs 0..C-1 are the first thread of every core (node-major), the second
    // threads follow as C..2C-1, and so on. "cpu 0 and cpu C are siblings".
    kSiblingsLast,
    // Linux on POWER: the SMT threads of a core are consecutive (core k has CPUs kT..kT+T-1).
    kSiblingsAdjacent,
};

std::optional<CpuNumbering> parse_cpu_numbering(std::string_view text);

struct RegularLayout {
    int sockets = 1;
    int nodes_per_socket = 1;
    int cores_per_node = 1;
    int threads_per_core = 1;
    int llcs_per_node = 1;  // must divide cores_per_node; consecutive cores share an LLC
    uint64_t mem_per_node = 0;
    CpuNumbering numbering = CpuNumbering::kSiblingsLast;
};

// Fills topo.nodes and topo.cpus. Preconditions (checked by the caller, who knows the keys):
// all counts >= 1 and llcs_per_node divides cores_per_node.
void build_regular_layout(const RegularLayout& l, Topology& topo);

struct ExplicitNode {
    int package = 0;
    uint64_t mem_bytes = 0;
    std::vector<std::vector<int>> cores;  // each entry: the CPU ids of one core's SMT threads
    int llcs = 1;                         // consecutive cores split evenly into this many LLCs
};

// Fills topo.nodes and topo.cpus; node i of the result is nodes[i]. Preconditions (checked by
// the caller): CPU ids are unique and form 0..n-1, every core has >= 1 CPU, llcs divides the
// node's core count.
void build_explicit_layout(const std::vector<ExplicitNode>& nodes, Topology& topo);

}  // namespace numasim
