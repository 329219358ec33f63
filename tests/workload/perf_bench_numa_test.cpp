#include <gtest/gtest.h>

#include "helpers.h"
#include "workload/perf_bench_numa.h"

namespace numasim {
namespace {

TEST(PerfBenchNuma, ConvergedWhenEveryProcessSitsOnOneNode) {
    // 2 processes x 3 threads on 2 nodes.
    EXPECT_TRUE(perf_numa_converged({{0, 0, 0}, {1, 1, 1}}, 2));
    EXPECT_FALSE(perf_numa_converged({{0, 0, 1}, {1, 1, 1}}, 2));   // process 0 spans 2 nodes
    EXPECT_FALSE(perf_numa_converged({{0, 0, 0}, {1, -1, 1}}, 2));  // a thread not running yet
    // numa.c does not require distinct nodes: 4 processes on 2 nodes converge two by two.
    EXPECT_TRUE(perf_numa_converged({{0, 0}, {0, 0}, {1, 1}, {1, 1}}, 2));
    EXPECT_TRUE(perf_numa_converged({{2}, {3}, {0}}, 4));
}

TEST(PerfBenchNuma, RunsAndReportsRawFigures) {
    auto r = test::run_workload("tiny-2n",
                                "[[workload]]\ntype='perf-bench-numa'\nnr_proc=2\nnr_threads=2\n"
                                "mb_global=0\nmb_proc=16\nmb_thread=4\nnr_secs=2\n"
                                "show_convergence=true\nzero_memset=true\n",
                                5);
    const WorkloadResult m = r.w->result(*r.sys);
    const auto& raw = std::get<PerfBenchNumaRaw>(m.extra);
    EXPECT_EQ(raw.nr_tasks, 4);
    EXPECT_EQ(raw.name, "main,");
    EXPECT_NEAR(raw.runtime_sec_max, 2.0, 0.1);
    EXPECT_GT(raw.runtime_sec_min, 1.9);
    EXPECT_GT(raw.bytes, 1e8);
    EXPECT_FALSE(test::figure<std::vector<Record>>(m, "convergence_checks").empty());
    EXPECT_EQ(m.tasks.size(), 4u);
}

TEST(PerfBenchNuma, LoopLimitCountsExactBytes) {
    auto r = test::run_workload("tiny-2n",
                                "[[workload]]\ntype='perf-bench-numa'\nnr_proc=1\nnr_threads=2\n"
                                "mb_global=1\nmb_proc=0\nmb_thread=2\nnr_loops=10\nnr_secs=0\n"
                                "data_rand_walk=false\n",
                                5);
    const WorkloadResult m = r.w->result(*r.sys);
    const auto& raw = std::get<PerfBenchNumaRaw>(m.extra);
    EXPECT_NEAR(raw.bytes, 2.0 * 10 * 3 * 1024 * 1024, 1e3);
}

TEST(PerfBenchNuma, MeasureConvergenceStopsTheRun) {
    // One process per node: threads start on the fork node and the balancer spreads/compacts.
    // Whether it converges in 3 s is the kernel model's business; with -m the run must stop at
    // the first converged check, so runtime-max equals the latency when it converged.
    auto r = test::run_workload("tiny-2n",
                                "[[workload]]\ntype='perf-bench-numa'\nnr_proc=2\nnr_threads=1\n"
                                "mb_global=0\nmb_proc=8\nnr_secs=3\nmeasure_convergence=true\n",
                                5);
    const WorkloadResult m = r.w->result(*r.sys);
    const auto& raw = std::get<PerfBenchNumaRaw>(m.extra);
    if (test::figure<bool>(m, "converged")) {
        EXPECT_NEAR(raw.runtime_sec_max, test::figure<double>(m, "convergence_latency_s"), 0.2);
    } else {
        EXPECT_NEAR(raw.runtime_sec_max, 3.0, 0.2);
    }
}

}  // namespace
}  // namespace numasim
