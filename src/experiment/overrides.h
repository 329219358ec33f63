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

}  // namespace numasim
