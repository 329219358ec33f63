// Builds a Topology from hwloc: an lstopo XML export (`lstopo --of xml file.xml`) or the
// machine we are running on. hwloc knows nodes, memory, packages, cores, PUs, caches and the
// SLIT, but no latency/bandwidth figures: those come from generic_hardware() (documented in
// docs/machines.md) and can be replaced with apply_hardware_overrides().
#pragma once

#include <string>

#include "machine/hardware_table.h"
#include "machine/topology.h"

namespace numasim {

// Throws InputError naming `path` if the file cannot be read or has no NUMA nodes.
Topology import_hwloc_xml(const std::string& path);
Topology import_hwloc_host();

// The host as import_hwloc_host() reads it, with the Linux numbers of its CPUs and nodes, which
// the topology renumbers 0..n-1: what code that pins threads and binds memory on the host needs.
struct HostMachine {
    Topology topology;
    std::vector<int> cpu_os_index;   // indexed by the topology's CPU id
    std::vector<int> node_os_index;  // indexed by the topology's node id
};
HostMachine import_hwloc_host_ids();

// The figures an hwloc import starts from: a generic two-socket Xeon-class server. One latency
// entry is made for every distance in `distance` (see hwloc_import.cpp for the rule).
MemoryHardware generic_hardware(const std::vector<std::vector<int>>& distance);

}  // namespace numasim
