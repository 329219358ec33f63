// `numasim import perf-mem`: the memory samples of a `perf mem record` or `perf c2c record`
// session, as `perf script` prints them (replay/perf_mem_sample.h), turned into an ordinary
// `streams` scenario (docs/replay.md). The text is read twice, each time as a stream holding one
// line: the first pass checks every sample and learns the processes, their threads, the address
// ranges and the time span; the second adds each sample's accesses into a grid of phases x
// (thread, block) whose size the options bound, never the file.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace numasim {

struct PerfMemImportOptions {
    uint64_t period = 0;            // events per sample for lines without the period field; 0: none
    int64_t phase_ns = 1000000000;  // length of one scenario phase
    int64_t blocks = 16;            // memory regions per process, split over its address ranges
    std::string maps_file;          // a /proc/PID/maps or numa_maps snapshot: the layout
    std::string machine = "cascadelake-2s";
    // `--cpus-from-samples`: the node of each CPU of `machine` (empty: off). A thread whose
    // samples all came from CPUs of one node is pinned to that node, for a recording made on the
    // machine the scenario names.
    std::vector<int> cpu_nodes;
};

// What an import held, for tests of its bounded memory: `retained` counts the records kept
// between lines (processes, threads, ranges, blocks and grid cells), which the options and the
// profile's processes, threads and address ranges bound, not its number of samples.
struct PerfMemImportStats {
    int64_t samples = 0;
    int64_t retained = 0;
};

// Processes (pids) and threads (tids) in one profile: each thread is a table of the scenario.
inline constexpr size_t kMaxPerfMemProcesses = 64;
inline constexpr size_t kMaxPerfMemThreads = 1024;

// The scenario's text; throws InputError naming the file, the line and the problem.
std::string import_perf_mem(const std::string& path, const PerfMemImportOptions& o,
                            PerfMemImportStats* stats = nullptr);

}  // namespace numasim
