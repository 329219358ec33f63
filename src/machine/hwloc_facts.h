// What numasim takes from an hwloc topology, in plain data: the NUMA nodes, the PUs with their
// node, core, package and LLC, and the SLIT. Reading a topology through libhwloc happens in a
// child process for XML files (hwloc_child.h), so these facts also have a flat serialised form
// that crosses the pipe; hwloc_import.cpp builds the Topology from them.
#pragma once

#include <hwloc.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace numasim {

struct HwlocPu {
    uint64_t os_index = 0;  // Linux CPU number
    int64_t node = -1;      // index into HwlocFacts::node_mem_bytes; -1: in no node's cpuset
    uint64_t core = 0;      // dense id of the Core ancestor (the PU itself without one)
    uint64_t package = 0;   // logical index of the Package ancestor, 0 without one
    uint64_t llc = 0;       // dense id of the LLC, or of the core when the PU has no shared cache
};

// What hwloc knows of a node's memory beyond its size. Linux gives a node's CPUs only in its
// cpumap, which hwloc does not keep: a memory-only node gets the cpuset of the CPUs it is local
// to (its package's), so the import tells memory-only nodes by their subtype and DAX device.
enum class HwlocMemoryKind : uint64_t { kDram = 0, kCxl = 1, kPmem = 2, kHbm = 3 };

struct HwlocMemory {
    uint64_t latency_ns = 0;      // hwloc memattr Latency from the best initiator; 0: none
    uint64_t bandwidth_mibs = 0;  // hwloc memattr Bandwidth (MiB/s) from the best initiator
    HwlocMemoryKind kind = HwlocMemoryKind::kDram;  // from the node's subtype
    // hwloc's info DAXDevice: memory a DAX device gave to the kernel (dax/kmem); such a node
    // and a node of a device subtype (NVM, CXL-*, HBM, MCDRAM) have no CPUs of their own.
    bool dax_kmem = false;
    bool device = false;
};

// What hwloc reports of the CPU (the root's Architecture info, the first package's CPUVendor,
// CPUFamilyNumber, CPUModelNumber and, on POWER, CPUModel): enough to name the CPU model.
enum class HwlocCpuArch : uint64_t { kOther = 0, kX86 = 1, kPowerPC = 2 };
enum class HwlocCpuVendor : uint64_t { kOther = 0, kIntel = 1, kAmd = 2 };

struct HwlocCpu {
    HwlocCpuArch arch = HwlocCpuArch::kOther;
    HwlocCpuVendor vendor = HwlocCpuVendor::kOther;
    uint64_t family = 0;            // x86 CPUID family
    uint64_t model = 0;             // x86 CPUID model
    uint64_t power_generation = 0;  // the N of "POWERN" in CPUModel; 0 if none
};

struct HwlocFacts {
    // Counts as hwloc reports them. When either exceeds numasim's limits (config/limits.h) the
    // lists below stay empty: the import refuses such a machine without building it.
    uint64_t nr_nodes = 0, nr_pus = 0;
    std::vector<uint64_t> node_mem_bytes;  // NUMA nodes in os_index order
    std::vector<uint64_t> node_os_index;   // the same nodes' Linux node numbers
    std::vector<HwlocMemory> node_memory;  // the same nodes; may be empty (all defaults)
    std::vector<HwlocPu> pus;              // PUs in os_index order
    uint64_t llc_bytes = 0;                // size of the first LLC hwloc reports, 0 if none
    std::vector<uint64_t> distance;        // nodes x nodes SLIT, row-major; empty if hwloc has none
    HwlocCpu cpu;
};

// Reads the facts from a loaded topology.
HwlocFacts extract_hwloc_facts(hwloc_topology_t t);

std::string encode_hwloc_facts(const HwlocFacts& f);
// Throws InputError naming `origin` if `bytes` is not a whole encoding.
HwlocFacts decode_hwloc_facts(std::string_view bytes, const std::string& origin);

}  // namespace numasim
