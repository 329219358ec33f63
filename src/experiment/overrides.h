// The one override syntax: KEY=VALUE sets a key of a scenario file before the file is read.
//
//   KEY    a dotted key of the file ("workload.jvms", "numa_balancing.smallimp"), or short for
//          one: a [scenario] key ("machine", "profile", "seed", ...) or a knob ("smallimp").
//   VALUE  a TOML value ("4", "true", "\"20s\"", "[1, 2]"); a bare word (letters, digits and
//          _ . : / + -) is taken as a string, so "vma_scan=all" and "profile=v4.18" need no
//          quotes.
//
// `--param` and `--set` (the same thing: --set is the customary spelling for knobs), each item
// of `-V NAME:KEY=VALUE,...`, and the `set` and `params` lists of a scenario's [[variant]]
// tables all go through parse_override; `--machine`, `--profile`, `--seed`, `--iterations` and
// `--duration` are overrides of the `scenario.*` keys. Overrides apply in order, so a later
// one wins. Errors about an overridden key name the override (docs/scenario.md).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "config/toml_reader.h"

namespace numasim {

using ScenarioOverrides = std::vector<KeyAssignment>;

// Parses "KEY=VALUE"; `origin` names it in errors (e.g. "--param workload.jvms=0").
KeyAssignment parse_override(std::string_view text, const std::string& origin);
// `key` (full or short) set to the string `value` (--machine, --profile, a variant's profile).
KeyAssignment string_override(std::string_view key, std::string_view value,
                              const std::string& origin);

// A named set of overrides: a column of `numasim compare`.
struct Variant {
    std::string name;
    ScenarioOverrides overrides;
};

// Parses "NAME:KEY=VALUE[,KEY=VALUE...]" (commas inside brackets or quotes do not split).
Variant parse_variant(std::string_view spec);

// A key with a list of values: an axis of `numasim sweep` and `numasim compare`. The same
// KEY=VALUE, where VALUE may list values:
//   V1,V2,...        commas outside brackets and quotes separate values
//   [V1, V2, ...]    a TOML array lists values; an array-valued key takes a nested one
//                    (workload.nodes=[[0, 1]] is one value, [[0], [0, 1]] two)
//   A..B, A..B:STEP  integers from A to B inclusive
// Each value is what parse_override accepts. One value is an ordinary override.
struct OverrideAxis {
    std::string name;                   // the key as given: "smallimp", "workload.jvms"
    std::vector<std::string> labels;    // each value as written (a string without its quotes)
    std::vector<KeyAssignment> values;  // one assignment per value, all of the same key
};

// The most values one axis may list.
inline constexpr size_t kMaxAxisValues = 100000;

OverrideAxis parse_override_axis(std::string_view text, const std::string& origin);
// `key` set to each of the comma-separated strings `values` (--machine a,b; --profile a,b).
OverrideAxis string_override_axis(std::string_view key, std::string_view values,
                                  const std::string& origin);
// Splits at `sep` outside brackets, braces and quotes; items are trimmed, empty ones dropped.
std::vector<std::string> split_top_level(std::string_view text, char sep);

}  // namespace numasim
