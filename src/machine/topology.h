// A NUMA machine: nodes with memory, CPUs with SMT siblings and LLC groups, the SLIT distance
// matrix, and the published hardware figures the cost model needs (latency, bandwidth, caches).
// Presets live in presets/*.toml (one file each, compiled in); a user's own machine file uses the
// same format, and hwloc_import.h builds one from lstopo XML or from the running host.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "machine/cpu_model.h"
#include "machine/memory_device.h"
#include "machine/page_geometry.h"

namespace numasim {

struct CpuInfo {
    int id = 0;       // logical CPU number as Linux numbers it
    int node = 0;     // NUMA node
    int package = 0;  // socket
    int core = 0;     // global physical core index; SMT siblings share it
    int llc = 0;      // global last-level-cache index; CPUs sharing it form an LLC domain
};

struct NodeInfo {
    int id = 0;
    std::vector<int> cpus;   // ascending
    uint64_t mem_bytes = 0;  // memory on this node
    // What the memory is, on a node without CPUs ([[memory_node]]); a node with CPUs has the
    // machine's DRAM and the default (kDram, figures from [hardware]).
    MemoryDevice device;
};

// Published memory-system figures of one machine. Sources are given in the preset file and
// collected in docs/model.md. Units are in the names.
struct MemoryHardware {
    // Idle load-to-use latency for each SLIT distance value present in the matrix, e.g.
    // {10: 85, 21: 135}. Distances missing here scale the local latency by distance/10.
    std::map<int, double> latency_ns;
    double dram_bandwidth_gbs = 0;  // sustainable (STREAM-like) bandwidth of one node's memory
    double link_bandwidth_gbs = 0;  // one direction of the interconnect between two nodes
    uint64_t llc_bytes = 0;         // size of one LLC
    double llc_latency_ns = 0;      // LLC hit latency
    int line_fill_buffers = 10;     // outstanding L1D misses per core: the MLP of a stream
    double smt_core_speedup = 1.0;  // throughput of a core with all SMT threads busy vs one
    double cpu_ghz = 0;             // nominal clock, converts published cycle costs to ns
    // Whether the coherence directory lives in DRAM beside each line ([hardware]
    // memory_directory): a remote store then costs its home node a directory write
    // (cost::DIRECTORY_WRITES_PER_REMOTE_STORE).
    bool memory_directory = false;
    // The kernel's base page and PMD THP ([hardware] page_size and mmu): what the machine's
    // distribution kernels are built with, like the other figures a property of the platform.
    PageGeometry pages = kPages4K;

    double latency(int distance) const;  // ns at this SLIT distance
};

struct Topology {
    std::string name;          // preset or file name
    std::string description;   // one line, for `numasim machines`
    std::string source;        // where the figures come from: the file's [source] text
    std::string input_sha256;  // of the preset's text, machine file or XML (resolve_machine)
    std::vector<NodeInfo> nodes;
    std::vector<CpuInfo> cpus;               // indexed by CPU id: cpus[i].id == i
    std::vector<std::vector<int>> distance;  // SLIT, nodes x nodes, 10 on the diagonal
    MemoryHardware hw;
    // Whether the firmware publishes an ACPI HMAT, the latency and bandwidth of each memory node
    // as seen from its nearest CPUs ([machine] hmat). Kernels from v6.7 derive the memory tier
    // of a dax/kmem node from it (mm/memory_tiers.h); qemu publishes none unless `hmat=on`.
    bool hmat = false;
    // The CPU the kernel finds at boot ([machine] cpu): its architecture and x86 family decide
    // node_reclaim_distance, hence which NUMA domains balance forks and affine wake-ups
    // (sched/reclaim_distance.h).
    CpuModel cpu;

    int nr_nodes() const { return static_cast<int>(nodes.size()); }
    int nr_cpus() const { return static_cast<int>(cpus.size()); }
    int nr_cores() const;
    int nr_llcs() const;
    int node_of(int cpu) const { return cpus[cpu].node; }
    int node_distance(int a, int b) const { return distance[a][b]; }
    uint64_t total_mem_bytes() const;
    std::vector<int> smt_siblings(int cpu) const;  // including cpu itself, ascending
    std::vector<int> llc_cpus(int cpu) const;      // CPUs sharing cpu's LLC, ascending
    int max_distance() const;
    // numa_nearest_node(nid, N_CPU): nid itself if it has CPUs, else the node with CPUs at the
    // smallest SLIT distance (the lowest id among equals): a memory-only node's host socket.
    int nearest_cpu_node(int nid) const;
    bool has_memory_only_nodes() const;

    // Throws InputError (naming `origin`) if the topology is inconsistent: CPU ids not 0..n-1,
    // a CPU on a node that does not exist, asymmetric or non-positive distances, a diagonal
    // other than 10, a node without memory and without CPUs, missing hardware figures.
    void validate(const std::string& origin) const;
};

// `numactl --hardware` as benchmark scripts read it (autonumabench's preproc.awk): the highest
// CPU id + 1, which is the kernel's nr_cpu_ids.
int highest_cpu_plus_one(const Topology& topo);

}  // namespace numasim
