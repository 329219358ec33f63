#include "report/perf_bench_numa_print.h"

#include <fmt/format.h>

namespace numasim {

namespace {
// numa.c converts with these (linux/time64.h) and prints data in decimal GB.
constexpr double kNsecPerSec = 1e9;
constexpr double kBytesPerGB = 1e9;
// print_res() substitutes this name when called with NULL (a single, non-suite run).
constexpr const char* kPerfMainName = "main,";
}  // namespace

std::string perf_bench_numa_line(const std::string& name, double value, const std::string& unit,
                                 const std::string& short_name, const std::string& long_text,
                                 bool quiet) {
    if (quiet) return fmt::format(" {:14.3f} {}\n", value, long_text);
    return fmt::format(" {:<30} {:15.3f}, {:<15} {}\n", name.empty() ? kPerfMainName : name, value,
                       unit, short_name);
}

PerfBenchNumaFigures perf_bench_numa_figures(const PerfBenchNumaRaw& raw) {
    const double bytes_per_task = raw.bytes / static_cast<double>(raw.nr_tasks);
    const double max = raw.runtime_sec_max;
    PerfBenchNumaFigures f;
    f.runtime_max = max;
    f.runtime_min = raw.runtime_sec_min;
    f.runtime_avg = raw.runtime_sec_avg;
    // numa.c labels this "% difference between max/avg runtime" but computes it from min.
    f.spread_pct = (max - raw.runtime_sec_min) / 2.0 / max * 100.0;
    f.data_per_thread_gb = bytes_per_task / kBytesPerGB;
    f.data_total_gb = raw.bytes / kBytesPerGB;
    f.runtime_per_byte_ns = max * kNsecPerSec / bytes_per_task;
    f.thread_speed_gbs = bytes_per_task / kBytesPerGB / max;
    f.total_speed_gbs = raw.bytes / max / kBytesPerGB;
    return f;
}

std::string render_perf_bench_numa(const PerfBenchNumaRaw& raw, bool quiet) {
    const PerfBenchNumaFigures f = perf_bench_numa_figures(raw);
    std::string out;
    auto line = [&](double v, const char* unit, const char* short_name, const char* long_text) {
        out += perf_bench_numa_line(raw.name, v, unit, short_name, long_text, quiet);
    };
    if (raw.measure_convergence) {
        // perf reports the whole run's wall time: with -m the run stops once converged.
        line(f.runtime_max, "secs,", "NUMA-convergence-latency", "secs latency to NUMA-converge");
    }
    line(f.runtime_max, "secs,", "runtime-max/thread", "secs slowest (max) thread-runtime");
    line(f.runtime_min, "secs,", "runtime-min/thread", "secs fastest (min) thread-runtime");
    line(f.runtime_avg, "secs,", "runtime-avg/thread", "secs average thread-runtime");
    line(f.spread_pct, "%,", "spread-runtime/thread", "% difference between max/avg runtime");
    line(f.data_per_thread_gb, "GB,", "data/thread", "GB data processed, per thread");
    line(f.data_total_gb, "GB,", "data-total", "GB data processed, total");
    line(f.runtime_per_byte_ns, "nsecs,", "runtime/byte/thread", "nsecs/byte/thread runtime");
    line(f.thread_speed_gbs, "GB/sec,", "thread-speed", "GB/sec/thread speed");
    line(f.total_speed_gbs, "GB/sec,", "total-speed", "GB/sec total speed");
    return out;
}

}  // namespace numasim
