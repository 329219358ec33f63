// `numasim machines show NAME|FILE|hwloc:...`: a machine as numactl -H prints one (nodes, their
// CPUs and memory, the SLIT), then its caches and SMT siblings in the manner of lstopo, then the
// hardware figures the cost model uses.
#pragma once

#include <string>

#include "machine/topology.h"

namespace numasim {

std::string machine_text(const Topology& m);

}  // namespace numasim
