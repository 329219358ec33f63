// Writes a Topology as a machine file (docs/machines.md) that load_machine_text() reads back to
// the same machine: the explicit form ([[node]] tables with each core's CPUs), which can say
// any layout hwloc reports, with comments saying where each figure comes from.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "machine/topology.h"

namespace numasim {

struct MachineFileComments {
    std::vector<std::string> header;  // lines at the top of the file, before [machine]
    // Keyed by the [hardware] key ("dram_bandwidth_gbs", "latency_ns.21") or by a memory-only
    // node's key ("memory_node[0].latency_ns"): the comment line written above it.
    std::map<std::string, std::string> keys;
};

std::string machine_file_text(const Topology& topo, const MachineFileComments& comments);

}  // namespace numasim
