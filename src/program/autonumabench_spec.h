// autonuma-benchmark (Andrea Arcangeli, 2012; pholasek/autonuma-benchmark fdf7a42) as mmtests
// runs it: NUMA01, NUMA01_THREADLOCAL, NUMA02, NUMA02_SMT. The test's sizing and the scenario's
// parameters, read once: the model (workload/autonumabench.cpp) and the oracle's guest runner
// (guest/autonumabench.cpp) both run this description. See docs/workloads/autonumabench.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

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

// numa01.c's build variants (the Makefile's numa01_HARD_BIND and numa01_INVERSE_BIND, which
// the benchmark's own runs and LKP report beside the unbound test).
enum class AutonumaBind {
    None,     // NO_BIND_FORCE_SAME_NODE: the threads' forced first touch, then MPOL_DEFAULT
    Hard,     // -DHARD_BIND: each process on its half of the nodes, CPUs and memory
    Inverse,  // -DHARD_BIND -DINVERSE_BIND: the first half's process gets the second half's memory
};

struct AutonumabenchSpec {
    std::string test;  // "NUMA01", ...
    AutonumaSizing size;
    int first_touch_node = 0;  // the node of numa01.c's MPOL_BIND first touch
    bool thp = false;          // madvise(MADV_HUGEPAGE) on the buffer
    AutonumaBind bind = AutonumaBind::None;
};

// What numa01.c's main() binds process `proc` to under HARD_BIND (after the fork: the parent,
// proc 0, is numa01.c's SECOND_HALF, the child, proc 1, its FIRST_HALF): sched_setaffinity()
// to the CPUs of its half of the nodes and set_mempolicy(MPOL_BIND) to the node mask
// (preproc.awk: NODEMASK1 = nodes [0, n/2), NODEMASK2 = [n/2, n)). Under INVERSE_BIND the
// process given NODEMASK1 gets NODEMASK2; numa01.c's second test repeats the first, so the
// other process keeps NODEMASK2 and both processes' memory is on the second half.
struct AutonumaBinding {
    std::vector<int> cpus;  // ascending
    uint64_t nodes = 0;     // MPOL_BIND mask
};
AutonumaBinding autonuma_binding(AutonumaBind bind, const Topology& topo, int proc);

// Reads a [[workload]] table of type "autonumabench" (test, first_touch_node, loops, size, thp,
// bind).
AutonumabenchSpec read_autonumabench_spec(const TomlTable& t, const Topology& topo);

}  // namespace numasim
