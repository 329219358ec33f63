// A scenario file: the machine, the kernel profile and knob overrides, the workloads, and how
// long, how often and with which seed to run them. docs/scenario.md documents the format.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "config/toml_reader.h"
#include "machine/topology.h"
#include "numab/knobs.h"
#include "sim/clock.h"

namespace numasim {

class Workload;

// A named setting to compare against the others (`[[variant]]`, used by `numasim compare`).
struct ScenarioVariant {
    std::string name;
    std::optional<std::string> profile, machine;
    std::vector<std::string> set;     // knob assignments, "smallimp=0"
    std::vector<std::string> params;  // scenario-file assignments, "workload.jvms=4"
};

struct Scenario {
    std::string file;
    std::string name;
    std::string description;
    std::string machine_spec;
    Topology machine;
    std::string profile;
    NumaBalancingKnobs knobs;
    Nanos duration = 0;  // upper bound on simulated time; finite workloads may end sooner
    int iterations = 1;
    uint64_t seed = 1;
    std::vector<TomlTable> workload_tables;  // kept to build fresh workloads for every run
    std::vector<std::string> workload_types;
    std::vector<ScenarioVariant> variants;

    // Builds this scenario's workloads (fresh state) for one run.
    std::vector<std::unique_ptr<Workload>> make_workloads() const;
};

// Command-line adjustments applied after the file is read.
struct ScenarioOverrides {
    std::optional<std::string> machine;
    std::optional<std::string> profile;
    std::vector<std::string> knob_assignments;  // "smallimp=0"
    std::optional<uint64_t> seed;
    std::optional<int> iterations;
    std::optional<Nanos> duration;
    std::vector<std::string> params;  // "workload.duration=\"20s\"": any key of the file
};

// Parses and validates everything (including building each workload once) so that any error
// surfaces as an InputError before a run starts or any output is written.
Scenario load_scenario_file(const std::string& path, const ScenarioOverrides& ov = {});
Scenario load_scenario_text(std::string_view text, const std::string& name,
                            const ScenarioOverrides& ov = {});

}  // namespace numasim
