// numad's choice of nodes for a process (pick_numa_nodes() and
// combined_value_of_weighted_resources() in numad.c, version 20150602): the fewest nodes, nearest
// one another, that have room for the process's memory and CPU at the target utilisation. A pure
// function of what numad read, so that hand-worked cases can check it (tests/policy).
// Units are numad's: memory in MB, CPU in hundredths of a CPU.
#pragma once

#include <cstdint>
#include <vector>

namespace numasim {

// One node as numad's update_nodes() reads it (node_data_t).
struct NumadNode {
    int64_t mbs_total = 0, mbs_free = 0;    // nodeN/meminfo MemTotal, MemFree
    int64_t cpus_total = 0, cpus_free = 0;  // its CPUs, and their idle share since the last read
    std::vector<int> distance;              // nodeN/distance (the SLIT row)
};

// What pick_numa_nodes() reads of a process numad already manages (process_data_t).
struct NumadPickProcess {
    int64_t cpus_used = 0;             // hundredths of a CPU, the largest of its recent samples
    int64_t mbs_used = 0;              // its RSS
    std::vector<int64_t> process_mbs;  // per node, from /proc/PID/numa_maps
    uint64_t node_list = 0;            // the nodes numad has it on (all nodes until bound)
};

// numad's memory margin a node keeps when it takes part of a request (MBS_MARGIN in
// pick_numa_nodes(), 100 MB) and the CPU margin (CPUS_MARGIN, 0).
inline constexpr int64_t NUMAD_MBS_MARGIN = 100;
inline constexpr int64_t NUMAD_CPUS_MARGIN = 0;

// combined_value_of_weighted_resources(): a node's magnitude for a request of `mbs` and `cpus`:
// what it can give of the request weighs 10 (memory) and 6 (CPU), what it has beyond 4 and 1,
// and the magnitude is the product of the memory and CPU figures.
uint64_t numad_magnitude(int64_t mbs, int64_t cpus, int64_t mbs_free, int64_t cpus_free);

// pick_numa_nodes() for process `p` (null: a request with no process, numad -w) asking for
// `cpus` and `mbs`: the node mask to bind it to. `all_nodes` is the nodes with memory
// (all_nodes_list_p); `target_utilization` numad's -u.
uint64_t numad_pick_nodes(const std::vector<NumadNode>& nodes, uint64_t all_nodes,
                          const NumadPickProcess* p, int64_t cpus, int64_t mbs,
                          bool assume_enough_cpus, int target_utilization);

}  // namespace numasim
