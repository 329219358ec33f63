#include "cli/scenario_options.h"

#include <fmt/format.h>

#include "cli/value_hints.h"
#include "config/input_error.h"
#include "experiment/pool.h"
#include "machine/presets.h"
#include "numab/knobs.h"
#include "numab/profile.h"
#include "workload/registry.h"

namespace numasim {

namespace {

// What the completions offer for --set and --param: each knob's "NAME=" and, for --param, each
// workload model as "workload.type=NAME".
std::vector<std::string> knob_words() {
    std::vector<std::string> w;
    for (const KnobInfo& k : knob_table())
        w.push_back(std::string(k.name) + "=");
    return w;
}

std::vector<std::string> param_words() {
    std::vector<std::string> w = knob_words();
    for (const WorkloadInfo& info : workload_registry())
        w.push_back("workload.type=" + info.name);
    return w;
}

}  // namespace

void add_knob_options(CLI::App& app, std::vector<std::string>& set,
                      std::vector<std::string>& params) {
    // One value per occurrence, so that `--param k=v FILE` leaves FILE to the positional.
    hint_words(app.add_option("--set", set,
                              "KEY=VALUE override, the short form for knobs, e.g. --set "
                              "smallimp=0 (repeatable; see --param)"),
               knob_words())
        ->allow_extra_args(false);
    hint_words(app.add_option("--param", params,
                              "KEY=VALUE override of any key of the scenario file, e.g. --param "
                              "workload.duration=20s; KEY may be short for a [scenario] key or a "
                              "knob, VALUE is TOML or a bare word (repeatable)"),
               param_words())
        ->allow_extra_args(false);
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

void add_jobs_option(CLI::App& app, int& jobs) {
    app.add_option(
           "-j,--jobs", jobs,
           fmt::format(
               "worker threads for runs, 1..{} (default: the CPUs this process may use, from "
               "its affinity mask and cgroup CPU quota)",
               kMaxWorkers))
        ->check(CLI::Range(1, kMaxWorkers));
}

void ScenarioOptions::add_to(CLI::App& app) {
    given.emplace_back(
        hint_machine(app.add_option(
            "--machine", machine,
            fmt::format("machine: a preset ({}), a machine file, hwloc:FILE.xml or hwloc:host",
                        fmt::join(preset_names(), ", ")))),
        &machine);
    given.emplace_back(hint_words(app.add_option("--profile", profile,
                                                 fmt::format("kernel profile ({})",
                                                             fmt::join(profile_names(), ", "))),
                                  profile_names()),
                       &profile);
    add_knob_options(app, set, params);
    given.emplace_back(app.add_option("--seed,--seeds", seed,
                                      "seed (default: the scenario's); sweep and compare take a "
                                      "list or a range, e.g. 1..20"),
                       &seed);
    given.emplace_back(
        app.add_option("--iterations", iterations, "iterations (default: the scenario's)"),
        &iterations);
    given.emplace_back(
        app.add_option("--duration", duration, "upper bound of simulated time, e.g. 30s"),
        &duration);
    add_jobs_option(app, jobs);
    add_check_invariants_flag(app, check_invariants);
}

ScenarioOverrides ScenarioOptions::overrides() const {
    ScenarioOverrides ov;
    for (const auto& [opt, value] : given) {
        if (opt->count() == 0) continue;
        const std::string key = opt->get_name().substr(2);  // "--machine" -> "machine"
        const std::string origin = opt->get_name() + " " + *value;
        if (value->empty()) throw InputError(opt->get_name(), "", "empty value");
        // Names and durations are strings; seed and iterations are TOML integers.
        if (key == "seed" || key == "iterations")
            ov.push_back(parse_override(key + "=" + *value, origin));
        else
            ov.push_back(string_override(key, *value, origin));
    }
    if (check_invariants) ov.push_back(check_invariants_override());
    for (auto& a : knob_overrides(set, params))
        ov.push_back(std::move(a));
    return ov;
}

void ScenarioOptions::add_to_sweep(SweepDefinition& d) const {
    auto add = [&](OverrideAxis a, const std::string& origin) {
        add_override_axis(d, std::move(a), origin);
    };
    auto add_string = [&](const char* key, const std::string& v) {
        const std::string origin = fmt::format("--{} {}", key, v);
        if (!v.empty()) add(string_override_axis(key, v, origin), origin);
    };
    auto add_value = [&](const char* key, const std::string& v) {
        const std::string origin = fmt::format("--{} {}", key, v);
        if (!v.empty()) add(parse_override_axis(fmt::format("{}={}", key, v), origin), origin);
    };
    add_string("machine", machine);
    add_string("profile", profile);
    add_value("seed", seed);
    add_value("iterations", iterations);
    add_string("duration", duration);
    if (check_invariants) d.common.push_back(check_invariants_override());
    for (const auto& p : params)
        add(parse_override_axis(p, "--param " + p), "--param " + p);
    for (const auto& s : set)
        add(parse_override_axis(s, "--set " + s), "--set " + s);
}

int ScenarioOptions::workers() const {
    return jobs > 0 ? jobs : default_workers();
}

}  // namespace numasim
