// Kernel profiles: a NumaBalancingKnobs preset per kernel release (profiles/<name>.toml, compiled
// in), the `[numa_balancing]` table reader shared with scenarios, and `--set key=value`.
#pragma once

#include <string>
#include <vector>

#include "numab/knobs.h"

namespace numasim {

class TomlTable;

// The knobs of profile `name` over the defaults. Throws InputError listing the valid names if
// there is no such profile.
NumaBalancingKnobs load_profile(const std::string& name);
std::vector<std::string> profile_names();  // sorted

// Applies the keys of a `[numa_balancing]`-style table (keys named exactly as the knobs) to
// `k`. Unknown keys, wrong types and out-of-range values throw InputError naming the file, the
// key and its line.
void apply_knobs(NumaBalancingKnobs& k, const TomlTable& t);

// One command-line override, "key=value" (e.g. "smallimp=0", "vma_scan=all"). Errors name the
// key.
void apply_knob_override(NumaBalancingKnobs& k, const std::string& assignment);

// The knob keys apply_knobs accepts, in documentation order.
const std::vector<std::string>& knob_keys();

}  // namespace numasim
