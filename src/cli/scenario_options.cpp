#include "cli/scenario_options.h"

#include <thread>

#include "config/embedded.h"
#include "config/input_error.h"
#include "config/toml_reader.h"

namespace numasim {

void ScenarioOptions::add_to(CLI::App& app) {
    app.add_option("--machine", machine,
                   "machine preset, machine file, hwloc:FILE.xml or hwloc:host");
    app.add_option("--profile", profile, "kernel profile (v4.18, v4.19, v6.1, v6.6, v6.12)");
    app.add_option("--set", set, "knob or switch override, e.g. --set smallimp=0 (repeatable)");
    app.add_option("--param", params,
                   "set any key of the scenario file, e.g. --param 'workload.duration=\"20s\"' "
                   "(TOML value; repeatable)");
    app.add_option("--seed", seed, "seed (default: the scenario's)");
    app.add_option("--iterations", iterations, "iterations (default: the scenario's)");
    app.add_option("--duration", duration, "upper bound of simulated time, e.g. 30s");
    app.add_option("-j,--jobs", jobs, "worker threads for iterations (default: all cores)");
}

ScenarioOverrides ScenarioOptions::overrides() const {
    ScenarioOverrides ov;
    if (!machine.empty()) ov.machine = machine;
    if (!profile.empty()) ov.profile = profile;
    ov.knob_assignments = set;
    ov.params = params;
    if (seed >= 0) ov.seed = static_cast<uint64_t>(seed);
    if (iterations > 0) ov.iterations = iterations;
    if (!duration.empty()) {
        auto ns = parse_duration_ns(duration);
        if (!ns || *ns <= 0)
            throw InputError("command line", "--duration", "not a duration: " + duration);
        ov.duration = *ns;
    }
    return ov;
}

int ScenarioOptions::workers() const {
    if (jobs > 0) return jobs;
    const unsigned hw = std::thread::hardware_concurrency();
    return hw ? static_cast<int>(hw) : 1;
}

Scenario load_scenario_or_default(const std::string& path, const ScenarioOverrides& ov) {
    if (!path.empty()) return load_scenario_file(path, ov);
    const EmbeddedFile* f = find_embedded("default_scenarios", "default");
    return load_scenario_text(f->text, "<built-in default scenario>", ov);
}

}  // namespace numasim
