// `numasim compare`: one scenario under two or more variants (kernel profiles, switch settings,
// scenario keys), N iterations each, with the same derived seed for iteration i of every
// variant, on the worker pool. report/compare_report.h prints the mmtests-style tables.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "experiment/overrides.h"
#include "experiment/run.h"
#include "experiment/scenario.h"

namespace numasim {

struct VariantRuns {
    std::string name;
    Scenario scenario;
    std::vector<RunResult> runs;
};

// Loads the scenario under every variant (`common` first, then the variant's overrides), so
// that a bad variant fails before anything runs.
std::vector<VariantRuns> load_variants(const std::string& scenario_path,
                                       const ScenarioOverrides& common,
                                       const std::vector<Variant>& variants);
// Runs every (variant, iteration) pair; `progress` is called after each run. Output order
// never depends on `workers`.
// With `obs`, every run records what it asks for under its variant's name.
void run_variants(std::vector<VariantRuns>& v, int workers,
                  const std::function<void()>& progress = {}, const ObserveOptions* obs = nullptr);
// Both.
std::vector<VariantRuns> run_variants(const std::string& scenario_path,
                                      const ScenarioOverrides& common,
                                      const std::vector<Variant>& variants, int workers);

}  // namespace numasim
