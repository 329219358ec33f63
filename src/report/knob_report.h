// `numasim profiles show`: every knob of the table (numab/knobs.h) with its value, what set it
// (the default, the profile, the scenario file, or an override) and its valid values.
#pragma once

#include <string>

#include "numab/profile.h"

namespace numasim {

std::string knobs_text(const NumaBalancingKnobs& k, const KnobOrigins& origins);

}  // namespace numasim
