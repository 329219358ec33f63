// `numasim sweep`: the cartesian product of axes (scenario files, [[variant]] tables, value
// lists of any override, seeds), each point a case: one scenario under its overrides, run for
// its `iterations` like `numasim run`. docs/sweeps.md documents the spec file and the options.
//
// A case's overrides apply in this order: the single-valued ones (in the order given), the
// variant's, then one value of each axis. The order of the cases is the product's, the first
// axis outermost, so case numbers, shards and output never depend on how the cases ran.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "experiment/overrides.h"

namespace numasim {

struct SweepAxis {
    enum class Kind { Scenario, Variant, Override };
    Kind kind = Kind::Override;
    std::string name;                        // the column's name: "scenario", "variant", "smallimp"
    std::string key;                         // Override: the full key ("numa_balancing.smallimp")
    std::vector<std::string> labels;         // each value as a table or a CSV shows it
    std::vector<KeyAssignment> assignments;  // Override: one per value
    std::vector<Variant> variants;  // Variant: one per value; no overrides: the scenario's table
    bool named_variants = false;    // Variant: look each up among the scenario's [[variant]]s
};

struct SweepDefinition {
    std::string name;
    std::vector<std::string> scenarios;  // the files; more than one is the "scenario" axis
    ScenarioOverrides common;            // single-valued overrides, in order
    std::vector<SweepAxis> axes;         // variant (if any), then override axes, in order
    std::string along;                   // the axis the compare tables run along ("": none)
    std::vector<std::string> metrics;    // the CSV's metric columns; empty: every metric
};

struct SweepCase {
    size_t index = 0;
    std::string scenario;             // its file
    std::vector<std::string> labels;  // one per axis with more than one value (sweep_axes())
    ScenarioOverrides overrides;      // common, the variant's, then the axes' values
};

// Adds an override given with value lists (docs/scenario.md): one value joins `common`, more
// make an axis. Two axes on one key are an error.
void add_override_axis(SweepDefinition& d, OverrideAxis axis, const std::string& origin);
// Adds a variant axis: -V specs, or names of the scenarios' [[variant]] tables.
void add_variant_axis(SweepDefinition& d, std::vector<Variant> variants, bool named);

// Reads a spec file's [sweep] table into `d` (docs/sweeps.md). True if the file has one; a
// file without it is a scenario (added as the one scenario).
bool read_sweep_file(const std::string& path, SweepDefinition& d);

// The axes with more than one value, the scenario axis first: the parameter columns.
std::vector<SweepAxis> sweep_axes(const SweepDefinition& d);
// The axis the tables run along: `d.along` if set (an error if no axis has that name), else the
// first of sweep_axes() that is not the seed axis; "" if there is none.
std::string sweep_along(const SweepDefinition& d);
// True for the axis of scenario.seed: the tables pool its cases as samples.
bool is_seed_axis(const SweepAxis& a);

// Every case, in product order, [[variant]] names resolved in each scenario file. At most
// kMaxSweepCases.
inline constexpr size_t kMaxSweepCases = 1000000;
std::vector<SweepCase> expand_sweep(const SweepDefinition& d);

// `numasim sweep --shard I/N`: case k belongs to shard (k mod N) + 1, so that every shard gets
// cases from all over the product.
struct Shard {
    size_t index = 1, count = 1;
    bool contains(size_t case_index) const { return case_index % count == index - 1; }
};
Shard parse_shard(const std::string& text);

// Checks metric names before anything runs: "vmstat.X" and "sched.X" must name a counter; any
// other name is a run figure or an operation (experiment/run.h's run_metric()).
void check_sweep_metrics(const std::vector<std::string>& metrics);

// "KEY=VALUE" of each override, the text `numasim run --param` takes.
std::vector<std::string> override_texts(const ScenarioOverrides& ov);

}  // namespace numasim
