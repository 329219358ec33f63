// `perf bench numa mem` (tools/perf/bench/numa.c) as a workload. docs/workloads/perf-bench-numa.md.
#pragma once

#include <vector>

namespace numasim {

// numa.c calc_convergence(): converged iff every process has all of its threads on exactly one
// node ("strong", nodes_min == nodes_max == 1, from calc_convergence_compression) and the
// distinct processes counted on each node add up to nr_proc. A thread without a CPU yet (node
// < 0) makes the check fail, as curr_cpu == -1 does in numa.c. `thread_nodes[p]` lists the
// node of each thread of process p. Note that, given "strong", the second condition always
// holds: two processes may converge onto the same node.
bool perf_numa_converged(const std::vector<std::vector<int>>& thread_nodes, int nr_nodes);

}  // namespace numasim
