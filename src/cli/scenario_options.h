// The options every simulating subcommand shares: scenario overrides, workers.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "experiment/overrides.h"
#include "experiment/sweep.h"

namespace numasim {

// Worker threads a command may be given: far more than any host's cores (the runs of one
// command are at most iterations x variants), and few enough that a typo cannot ask the system
// for a million threads.
inline constexpr int kMaxWorkers = 1024;

// `-j,--jobs N` with its range.
void add_jobs_option(CLI::App& app, int& jobs);

struct ScenarioOptions {
    std::string machine, profile, duration, seed, iterations;
    std::vector<std::string> set, params;
    int jobs = 0;  // 0: default_workers(), the CPUs this process may use
    bool check_invariants = false;
    // The scenario options given on the command line (an empty --machine is an error, not
    // "no --machine").
    std::vector<std::pair<CLI::Option*, std::string*>> given;

    void add_to(CLI::App& app);
    // In the order they apply: the [scenario] options, then --param, then --set.
    ScenarioOverrides overrides() const;
    // The same options, each of which may list values (`sweep`, `compare`): one value joins
    // d.common, more make an axis of the sweep. In the order overrides() applies them.
    void add_to_sweep(SweepDefinition& d) const;
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
