#include "experiment/perf_bench_numa.h"

#include <fmt/format.h>

#include "config/input_error.h"
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
    // perf runs once, for its own -s: a scenario's iterations or duration given here would be
    // taken and then not honoured (one result printed; perf's runtime cut short without a word).
    for (const KeyAssignment& a : ov) {
        if (a.key == "scenario.iterations")
            throw InputError(a.origin, a.key,
                             "perf bench numa runs once, as perf does: `numasim compare` or "
                             "`numasim sweep --seeds` repeat a scenario");
        if (a.key == "scenario.duration")
            throw InputError(a.origin, a.key,
                             "perf bench numa runs for its own -s,--nr_secs (default 5): give -s");
    }
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
