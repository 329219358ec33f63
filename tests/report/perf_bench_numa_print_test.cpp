#include "report/perf_bench_numa_print.h"

#include <gtest/gtest.h>

namespace numasim {
namespace {

TEST(PerfBenchNuma, LineFormat) {
    // " %-30s %15.3f, %-15s %s\n"
    EXPECT_EQ(perf_bench_numa_line("", 5.0, "secs,", "runtime-max/thread", "x", false),
              " main,                                    5.000, secs,           "
              "runtime-max/thread\n");
    // -q: " %14.3f %s\n" with the long description.
    EXPECT_EQ(perf_bench_numa_line("", 5.0, "secs,", "runtime-max/thread",
                                   "secs slowest (max) thread-runtime", true),
              "          5.000 secs slowest (max) thread-runtime\n");
}

TEST(PerfBenchNuma, DerivedFigures) {
    // 2 processes x 2 threads, 10 s wall, fastest 8 s, average 9 s, 40e9 bytes in total:
    // spread = (10-8)/2/10*100 = 10 %, data/thread = 10 GB, runtime/byte = 10e9/10e9 = 1 ns,
    // thread-speed = 10/10 = 1 GB/s, total-speed = 40/10 = 4 GB/s.
    PerfBenchNumaRaw raw;
    raw.measure_convergence = true;
    raw.runtime_sec_max = 10;
    raw.runtime_sec_min = 8;
    raw.runtime_sec_avg = 9;
    raw.bytes = 40e9;
    raw.nr_tasks = 4;
    EXPECT_EQ(
        render_perf_bench_numa(raw),
        " main,                                   10.000, secs,           "
        "NUMA-convergence-latency\n"
        " main,                                   10.000, secs,           runtime-max/thread\n"
        " main,                                    8.000, secs,           runtime-min/thread\n"
        " main,                                    9.000, secs,           runtime-avg/thread\n"
        " main,                                   10.000, %,              spread-runtime/thread\n"
        " main,                                   10.000, GB,             data/thread\n"
        " main,                                   40.000, GB,             data-total\n"
        " main,                                    1.000, nsecs,          runtime/byte/thread\n"
        " main,                                    1.000, GB/sec,         thread-speed\n"
        " main,                                    4.000, GB/sec,         total-speed\n");
    raw.measure_convergence = false;
    raw.name = " 4x4-convergence,";
    const std::string text = render_perf_bench_numa(raw);
    EXPECT_EQ(text.find("NUMA-convergence-latency"), std::string::npos);
    EXPECT_EQ(text.substr(0, 33), "  4x4-convergence,               ");
}

}  // namespace
}  // namespace numasim
