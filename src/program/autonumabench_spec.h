// autonuma-benchmark (Andrea Arcangeli, 2012; pholasek/autonuma-benchmark fdf7a42) as mmtests
// runs it: NUMA01, NUMA01_THREADLOCAL, NUMA02, NUMA02_SMT. The test's sizing and the scenario's
// parameters, read once: the model (workload/autonumabench.cpp) and the oracle's guest runner
// (guest/autonumabench.cpp) both run this description. See docs/workloads/autonumabench.md.
#pragma once

#include <cstdint>
#include <string>

namespace numasim {

class TomlTable;
struct Topology;

// How one test is sized on a machine (README and preproc.awk of autonuma-benchmark).
struct AutonumaSizing {
    int processes = 1;
    int threads = 1;                   // per process
    uint64_t bytes = 0;                // buffer per process
    int loops = 0;                     // passes per thread after the first touch
    bool thread_local_slices = false;  // each thread works on bytes/threads at i*slice
    bool bind_first_touch = false;     // NUMA01*: every thread bzeroes all under MPOL_BIND
};

// Throws std::invalid_argument for an unknown test name.
AutonumaSizing autonuma_sizing(const std::string& test, const Topology& topo);

struct AutonumabenchSpec {
    std::string test;  // "NUMA01", ...
    AutonumaSizing size;
    int first_touch_node = 0;  // the node of numa01.c's MPOL_BIND first touch
    bool thp = false;          // madvise(MADV_HUGEPAGE) on the buffer
};

// Reads a [[workload]] table of type "autonumabench" (test, first_touch_node, loops, size, thp).
AutonumabenchSpec read_autonumabench_spec(const TomlTable& t, const Topology& topo);

}  // namespace numasim
