// The options every simulating subcommand shares: scenario overrides, seeds, workers, output.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "cli/scenario.h"

namespace numasim {

struct ScenarioOptions {
    std::string machine, profile, duration;
    std::vector<std::string> set, params;
    int64_t seed = -1;
    int iterations = 0;
    int jobs = 0;  // 0: one per hardware thread

    void add_to(CLI::App& app);
    ScenarioOverrides overrides() const;
    int workers() const;
};

// Loads a scenario file, or the built-in default scenario `name` when `path` is empty.
Scenario load_scenario_or_default(const std::string& path, const ScenarioOverrides& ov);

}  // namespace numasim
