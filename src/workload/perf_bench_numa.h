// `perf bench numa mem` (tools/perf/bench/numa.c) as a workload. docs/workloads/perf-bench-numa.md.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace numasim {

class ParamReader;
class Workload;

// numa.c's parameters, named like its long options, with its defaults (init_params): mb_global
// "1", one process, one thread, 5 seconds, reads, writes, backwards and random walk on, tasks
// started behind a barrier.
struct PerfBenchNumaParams {
    int nr_proc = 1, nr_threads = 1;
    double mb_global = 1, mb_proc = 0, mb_proc_locked = 0, mb_thread = 0;
    int64_t nr_loops = -1;
    double nr_secs = 5;
    bool zero_memset = false, bzero = false, init_cpu0 = false;
    bool measure_convergence = false, show_convergence = false;
    bool data_rand_walk = true, data_reads = true, data_writes = true, data_backwards = true;
    int thp = 0;
    int perturb_secs = 0;
    bool serialize_startup = true;
};

// Reads the parameters from a [[workload]] table, or checks parameters a command filled.
void read_perf_bench_numa_params(ParamReader& r, PerfBenchNumaParams& p);
std::unique_ptr<Workload> make_perf_bench_numa(const PerfBenchNumaParams& p);

// The raw figures perf collects at the end of a run; report/perf_bench_numa_print.h derives the
// printed values from them exactly as numa.c does.
struct PerfBenchNumaRaw {
    std::string name;                  // perf prints "main," when run without -a
    bool measure_convergence = false;  // -m: also print NUMA-convergence-latency
    double runtime_sec_max = 0;        // wall time of the whole run (gettimeofday diff)
    double runtime_sec_min = 0;        // fastest thread's runtime
    double runtime_sec_avg = 0;        // mean thread runtime
    double bytes = 0;                  // bytes processed by all threads
    std::int64_t nr_tasks = 1;         // processes * threads
};

// numa.c calc_convergence(): converged iff every process has all of its threads on exactly one
// node ("strong", nodes_min == nodes_max == 1, from calc_convergence_compression) and the
// distinct processes counted on each node add up to nr_proc. A thread without a CPU yet (node
// < 0) makes the check fail, as curr_cpu == -1 does in numa.c. `thread_nodes[p]` lists the
// node of each thread of process p. Note that, given "strong", the second condition always
// holds: two processes may converge onto the same node.
bool perf_numa_converged(const std::vector<std::vector<int>>& thread_nodes, int nr_nodes);

}  // namespace numasim
