// Runs a scenario: one simulation per iteration, each with its own seed derived from the
// scenario's, on a pool of worker threads. Results come back in iteration order, so the output
// is byte-identical whatever the number of workers.
#pragma once

#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/counters.h"
#include "sim/clock.h"

namespace numasim {

struct Scenario;

struct RunResult {
    uint64_t seed = 0;
    Nanos elapsed = 0;
    double user_s = 0, system_s = 0;
    Counters counters;
    nlohmann::json workloads = nlohmann::json::array();
    nlohmann::json tasks = nlohmann::json::array();
    std::string text;     // the workloads' summaries
    uint64_t ticks = 0;   // global scheduler ticks simulated
    uint64_t events = 0;  // CPU ticks + faults + page and task migrations (docs/performance.md)
};

// One run with `seed`; if `trace` is non-null, ftrace-format events are written to it.
RunResult run_once(const Scenario& sc, uint64_t seed, std::FILE* trace = nullptr);

// All iterations; iteration i uses derive_seed(sc.seed, i) (iteration 0 uses sc.seed itself so
// that a single run is reproducible from the seed in the file). `progress` is called after each.
std::vector<RunResult> run_iterations(const Scenario& sc, int jobs, std::FILE* trace,
                                      const std::function<void()>& progress = {});

nlohmann::json result_json(const Scenario& sc, const RunResult& r);
nlohmann::json vmstat_json(const Counters& c);
nlohmann::json sched_json(const Counters& c);
std::string result_text(const Scenario& sc, const RunResult& r);

}  // namespace numasim
