// `numasim machines show NAME|FILE|hwloc:...`: a machine as numactl -H prints one (nodes, their
// CPUs and memory, the SLIT), then its caches and SMT siblings in the manner of lstopo, then the
// hardware figures the cost model uses, each memory-only node's device, and the memory tiers.
#pragma once

#include <string>

#include "machine/topology.h"
#include "mm/memory_tiers.h"

namespace numasim {

// With `tiers`, the memory tiers and demotion targets follow the hardware figures, as sysfs and
// the boot log show them (mm/memory_tiers.h).
std::string machine_text(const Topology& m, const MemoryTiers* tiers = nullptr);

}  // namespace numasim
