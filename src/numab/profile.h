// Kernel profiles: a NumaBalancingKnobs preset per kernel release (profiles/<name>.toml, compiled
// in), and the reader of `[numa_balancing]` tables shared with scenarios and overrides.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "numab/knobs.h"

namespace numasim {

class TomlTable;

// What set each knob, by knob_table() index: "default", "profile v6.12", "FILE:
// numa_balancing.smallimp (line 3)", "--set smallimp=0".
using KnobOrigins = std::vector<std::string>;
KnobOrigins default_knob_origins();

// The knobs of profile `name` over the defaults; `origins`, if given, records the knobs the
// profile sets. Throws InputError listing the valid names if there is no such profile.
NumaBalancingKnobs load_profile(const std::string& name, KnobOrigins* origins = nullptr);
std::vector<std::string> profile_names();  // sorted
// The kernel release profile `name` describes ([profile] release, e.g. "v6.1"). Throws
// InputError as load_profile does.
std::string profile_release(const std::string& name);

// Applies the keys of a `[numa_balancing]`-style table (keys named exactly as the knobs) to `k`
// and records in `origins`, if given, what set each: `label`, or where the table got the key
// (TomlTable::origin). Unknown keys, wrong types and invalid values throw InputError naming the
// file or override, the key and its line, and the valid values.
void apply_knobs(NumaBalancingKnobs& k, const TomlTable& t, KnobOrigins* origins = nullptr,
                 std::string_view label = {});

}  // namespace numasim
