// What a machine's ACPI HMAT (Heterogeneous Memory Attribute Table) says of each node, when its
// firmware publishes one (Topology::hmat): the v6.12 memory tiers read it (mm/memory_tiers.h),
// and the oracle's qemu guest publishes it (`-numa hmat-lb`, oracle/qemu_command.h).
#pragma once

#include <cstdint>

#include "machine/topology.h"

namespace numasim {

// Node n as seen from its best initiator: the node itself when it has CPUs, else its host socket
// (Topology::nearest_cpu_node). A memory-only node's device figures, else the machine's DRAM at
// the node's distance from that initiator; access latency in ns and bandwidth in MB/s, as
// struct access_coordinate holds them.
struct HmatFigures {
    int64_t latency_ns = 0;
    int64_t bandwidth_mbs = 0;
};
HmatFigures hmat_figures(const Topology& t, int n);

}  // namespace numasim
