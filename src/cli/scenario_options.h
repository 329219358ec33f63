// The options every simulating subcommand shares: scenario overrides, workers.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "experiment/overrides.h"

namespace numasim {

struct ScenarioOptions {
    std::string machine, profile, duration, seed, iterations;
    std::vector<std::string> set, params;
    int jobs = 0;  // 0: one per hardware thread
    bool check_invariants = false;

    void add_to(CLI::App& app);
    // In the order they apply: the [scenario] options, then --param, then --set.
    ScenarioOverrides overrides() const;
    int workers() const;
};

// `--set` and `--param` only, for commands without a scenario of their own.
void add_knob_options(CLI::App& app, std::vector<std::string>& set,
                      std::vector<std::string>& params);
ScenarioOverrides knob_overrides(const std::vector<std::string>& set,
                                 const std::vector<std::string>& params);

// `--check-invariants`, for every command that simulates: the short form of `--param
// check_invariants=true`, which check_invariants_override() makes.
void add_check_invariants_flag(CLI::App& app, bool& on);
KeyAssignment check_invariants_override();

}  // namespace numasim
