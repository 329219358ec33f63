// The idle latency and bandwidth of each node's memory as the cost model charges them. A node
// with CPUs, or a CPU-less node of plain DRAM, has the machine's figures ([hardware]: latency by
// SLIT distance, dram_bandwidth_gbs); a memory-only node with a device (CXL, PMEM, HBM) has the
// device's published figures (docs/machines.md, "Memory-only nodes").
#pragma once

#include "machine/topology.h"

namespace numasim {

// Idle load-to-use latency from node `from`'s CPUs to node `to`'s memory. A device's latency is
// measured from its host socket (the nearest node with CPUs); CPUs elsewhere add their remote
// penalty to that socket, L(d(from, host)) - L(10). For a device node on the `from` side (a
// link's end) the figure is taken the other way round, so that it is symmetric.
double idle_latency_ns(const Topology& t, int from, int to);

// Sustained bandwidth of node n's memory.
double memory_bandwidth_gbs(const Topology& t, int n);

// The idle latency node n's memory adds to an access at its own socket: what its loaded-latency
// curve scales with.
double memory_latency_ns(const Topology& t, int n);

}  // namespace numasim
