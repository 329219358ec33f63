// SPECjbb2005 as the NUMA-balancing postings run it (seeds 000 and 004): one or more JVMs, each a
// HotSpot process (workload/hotspot_jvm.h) with W warehouse threads over its Java heap.
// docs/workloads/specjbb2005.md.
#pragma once

#include <vector>

namespace numasim {

class TomlTable;
struct Topology;

// The warehouse counts an experiment runs, one scenario per count with `warehouses` set to it:
// `warehouse_sweep = true` gives 1..warehouses (SPECjbb2005 steps the warehouse count by one
// from 1, mmtests' tput-1 .. tput-N rows); a list gives those counts; absent or false gives
// just `warehouses`. `warehouses` defaults to the machine's CPUs divided among the JVMs.
std::vector<int> specjbb_sweep_points(const TomlTable& params, const Topology& machine);

// What the SMALLIMP posting's "JVMS Prev Current %Change" block compares: the total bops of a
// run's last warehouse point, by JVM count.
struct SpecjbbThroughput {
    int jvms = 0;
    double bops = 0;
};

}  // namespace numasim
