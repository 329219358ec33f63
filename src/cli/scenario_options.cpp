#include "cli/scenario_options.h"

#include <fmt/format.h>

#include "experiment/pool.h"
#include "machine/presets.h"
#include "numab/profile.h"

namespace numasim {

void add_knob_options(CLI::App& app, std::vector<std::string>& set,
                      std::vector<std::string>& params) {
    app.add_option("--set", set,
                   "KEY=VALUE override, the short form for knobs, e.g. --set smallimp=0 "
                   "(repeatable; see --param)");
    app.add_option("--param", params,
                   "KEY=VALUE override of any key of the scenario file, e.g. --param "
                   "workload.duration=20s; KEY may be short for a [scenario] key or a knob, "
                   "VALUE is TOML or a bare word (repeatable)");
}

ScenarioOverrides knob_overrides(const std::vector<std::string>& set,
                                 const std::vector<std::string>& params) {
    ScenarioOverrides ov;
    for (const auto& p : params)
        ov.push_back(parse_override(p, "--param " + p));
    for (const auto& s : set)
        ov.push_back(parse_override(s, "--set " + s));
    return ov;
}

void add_check_invariants_flag(CLI::App& app, bool& on) {
    app.add_flag("--check-invariants", on,
                 "recompute every cached total of the model from the page and task state during "
                 "the runs; a mismatch is an internal error (docs/model.md)");
}

KeyAssignment check_invariants_override() {
    return parse_override("check_invariants=true", "--check-invariants");
}

void ScenarioOptions::add_to(CLI::App& app) {
    app.add_option("--machine", machine,
                   fmt::format("machine: a preset ({}), a machine file, hwloc:FILE.xml or "
                               "hwloc:host",
                               fmt::join(preset_names(), ", ")));
    app.add_option("--profile", profile,
                   fmt::format("kernel profile ({})", fmt::join(profile_names(), ", ")));
    add_knob_options(app, set, params);
    app.add_option("--seed", seed, "seed (default: the scenario's)");
    app.add_option("--iterations", iterations, "iterations (default: the scenario's)");
    app.add_option("--duration", duration, "upper bound of simulated time, e.g. 30s");
    app.add_option("-j,--jobs", jobs, "worker threads for runs (default: all cores)");
    add_check_invariants_flag(app, check_invariants);
}

ScenarioOverrides ScenarioOptions::overrides() const {
    ScenarioOverrides ov;
    if (!machine.empty()) ov.push_back(string_override("machine", machine, "--machine " + machine));
    if (!profile.empty()) ov.push_back(string_override("profile", profile, "--profile " + profile));
    if (!seed.empty()) ov.push_back(parse_override("seed=" + seed, "--seed " + seed));
    if (!iterations.empty())
        ov.push_back(parse_override("iterations=" + iterations, "--iterations " + iterations));
    if (!duration.empty())
        ov.push_back(string_override("duration", duration, "--duration " + duration));
    if (check_invariants) ov.push_back(check_invariants_override());
    for (auto& a : knob_overrides(set, params))
        ov.push_back(std::move(a));
    return ov;
}

int ScenarioOptions::workers() const {
    return jobs > 0 ? jobs : default_workers();
}

}  // namespace numasim
