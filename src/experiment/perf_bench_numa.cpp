#include "experiment/perf_bench_numa.h"

#include <fmt/format.h>

#include "config/param_reader.h"
#include "workload/workload.h"

namespace numasim {

namespace {
// Simulated time beyond perf's own -s limit: startup (allocation, the barrier) and a margin.
constexpr double kExtraSeconds = 60;
}  // namespace

PerfBenchNumaRun run_perf_bench_numa(PerfBenchNumaParams p, const ScenarioOverrides& ov) {
    ParamReader check("perf-bench-numa options");
    read_perf_bench_numa_params(check, p);
    ScenarioOverrides all = {
        {"perf-bench-numa -s", "scenario.duration", fmt::format("{}", p.nr_secs + kExtraSeconds)}};
    all.insert(all.end(), ov.begin(), ov.end());
    PerfBenchNumaRun run{
        load_builtin_scenario(
            "perf-bench-numa", all,
            {{"perf-bench-numa", [p](const Topology&) { return make_perf_bench_numa(p); }}}),
        {}};
    run.result = run_once(run.scenario, run.scenario.seed);
    return run;
}

}  // namespace numasim
