// Result lines of `perf bench numa mem` (tools/perf/bench/numa.c, __bench_numa / print_res).
#pragma once

#include <string>

#include "workload/perf_bench_numa.h"

namespace numasim {

// The printed figures, derived from the raw ones exactly as numa.c does.
struct PerfBenchNumaFigures {
    double runtime_max = 0;          // secs (also NUMA-convergence-latency with -m)
    double runtime_min = 0;          // secs
    double runtime_avg = 0;          // secs
    double spread_pct = 0;           // (max - min) / 2 / max * 100
    double data_per_thread_gb = 0;   // GB (1e9 bytes)
    double data_total_gb = 0;        // GB
    double runtime_per_byte_ns = 0;  // nsecs/byte/thread
    double thread_speed_gbs = 0;     // GB/sec/thread
    double total_speed_gbs = 0;      // GB/sec
};

PerfBenchNumaFigures perf_bench_numa_figures(const PerfBenchNumaRaw& raw);

// One print_res() line: " %-30s %15.3f, %-15s %s\n" (normal) or " %14.3f %s\n" (-q quiet).
std::string perf_bench_numa_line(const std::string& name, double value, const std::string& unit,
                                 const std::string& short_name, const std::string& long_text,
                                 bool quiet);

// All result lines in perf's order (convergence latency first with -m).
std::string render_perf_bench_numa(const PerfBenchNumaRaw& raw, bool quiet = false);

}  // namespace numasim
