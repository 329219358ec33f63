// A scenario file: the machine, the kernel profile and knob overrides, the workloads, and how
// long, how often and with which seed to run them. docs/scenario.md documents the format.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cost/constants.h"
#include "experiment/overrides.h"
#include "machine/topology.h"
#include "numab/placement_policy.h"
#include "numab/profile.h"
#include "sim/clock.h"

namespace numasim {

// The profile of a scenario that names none: the newest release profiles/ describes.
inline constexpr const char* kDefaultProfile = "v6.12";

class Workload;

// One workload of a scenario: its registry name and how to build a fresh instance for a run.
struct ScenarioWorkload {
    std::string type;
    std::function<std::unique_ptr<Workload>(const Topology&)> make;
};

struct Scenario {
    std::string file;
    std::vector<std::string> input_files;  // the files read: scenario, machine file or XML
    std::string file_sha256;  // of the file's bytes (sha256sum FILE), or of a built-in's text
    std::string name;
    std::string description;
    std::string machine_spec;
    Topology machine;
    std::string profile;
    NumaBalancingKnobs knobs;
    KnobOrigins knob_origins;  // what set each knob
    // The placement policy (docs/placement-policies.md): its registered name, and the policy
    // built from its [policy.NAME] table, shared by every run.
    std::string policy;
    std::shared_ptr<const PlacementPolicy> placement;
    Nanos duration = 0;  // upper bound on simulated time; finite workloads may end sooner
    int iterations = 1;
    uint64_t seed = 1;
    bool check_invariants = false;  // check the model's cached totals during every run
    bool fault_runs = true;         // hinting faults of like pages as one decision (docs/model.md)
    bool deferred_ticks = true;     // settled CPUs' ticks held back and played later (same)
    bool settled_tick_in_place = true;  // scheduler_tick()'s settled shortcut (same outcome)
    std::vector<ScenarioWorkload> workloads;
    std::vector<Variant> variants;  // the [[variant]] tables, for `numasim compare`
    // The kernel-work cost figures: the published ones, or a draw of --uncertainty
    // (experiment/uncertainty.h), which also scales `machine`'s memory figures.
    cost::Constants figures = cost::kNominal;

    // Builds this scenario's workloads (fresh state) for one run.
    std::vector<std::unique_ptr<Workload>> make_workloads() const;
};

// The keys of the [scenario] table (each may be given short in an override).
const std::vector<std::string_view>& scenario_head_keys();

// Parses and validates everything (including building each workload once) so that any error
// surfaces as an InputError before a run starts or any output is written.
Scenario load_scenario_file(const std::string& path, const ScenarioOverrides& ov = {});
Scenario load_scenario_text(std::string_view text, const std::string& name,
                            const ScenarioOverrides& ov = {});
// Bytes of memory the scenario's workloads map on its machine (each shared object once), from a
// setup of the workloads on a scratch machine.
uint64_t workload_memory_bytes(const Scenario& sc);

// A scenario compiled into the binary (src/experiment/scenarios/NAME.toml): "default" is what
// `numasim run` runs without a file. `workloads` are added to the file's [[workload]] tables.
Scenario load_builtin_scenario(std::string_view name, const ScenarioOverrides& ov = {},
                               std::vector<ScenarioWorkload> workloads = {});

}  // namespace numasim
