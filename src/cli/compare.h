// `numasim compare`: runs one scenario under two or more variants (kernel profiles or switch
// settings), N iterations each with the same derived seeds per iteration across variants, on a
// pool of workers, and reports the results in the layouts kernel developers read: the mmtests
// compare table, Duration and `Ops NUMA` monitors, perf-stat and vmstat event tables, and the
// specjbb Prev/Current block.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/runner.h"
#include "cli/scenario.h"
#include "report/significance.h"

namespace numasim {

struct Variant {
    std::string name;
    ScenarioOverrides overrides;
};

// Parses "name:key=value,key=value" (keys: profile, machine, a dotted scenario key such as
// workload.jvms, or any knob).
Variant parse_variant(const std::string& spec);
// The scenario file's [[variant]] tables as variants.
std::vector<Variant> scenario_variants(const Scenario& sc);

struct VariantRuns {
    std::string name;
    Scenario scenario;
    std::vector<RunResult> runs;
};

struct CompareReportOptions {
    SignificanceRule rule = SignificanceRule::CiInterval;
    bool stats_2019 = false;  // the 2019-2024 mmtests stat rows (BAmean-50/-95/-99)
    bool means_only = false;
};

// Runs every variant; `progress` is called after each run. Output order never depends on `jobs`.
std::vector<VariantRuns> run_variants(const std::string& scenario_path,
                                      const ScenarioOverrides& common,
                                      const std::vector<Variant>& variants, int jobs,
                                      const std::function<void()>& progress = {});

// A benchmark operation of one run: mmtests name, value, and whether lower is better.
struct RunOperation {
    std::string name;
    double value;
    bool lower_is_better;
};
std::vector<RunOperation> run_operations(const RunResult& r);

std::string compare_text(const std::vector<VariantRuns>& v, const CompareReportOptions& o);
nlohmann::json compare_json(const std::vector<VariantRuns>& v, const CompareReportOptions& o);

}  // namespace numasim
