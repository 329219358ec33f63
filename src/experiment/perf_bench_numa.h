// `numasim perf-bench-numa`: the built-in perf-bench-numa scenario (scenarios/perf-bench-numa.toml)
// with the workload's parameters filled directly by the command's options.
#pragma once

#include "experiment/overrides.h"
#include "experiment/run.h"
#include "experiment/scenario.h"
#include "workload/perf_bench_numa.h"

namespace numasim {

struct PerfBenchNumaRun {
    Scenario scenario;
    RunResult result;
};

// Checks `p`, then runs it once; simulated time is bounded at nr_secs plus a minute unless `ov`
// sets scenario.duration.
PerfBenchNumaRun run_perf_bench_numa(PerfBenchNumaParams p, const ScenarioOverrides& ov);

}  // namespace numasim
