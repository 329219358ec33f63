// The report of `numasim validate`: per effect, the experiment, the published and the simulated
// figures side by side, and pass or MISS; with uncertainty draws, the predicted range of each
// effect and whether the published figure lies inside it.
#pragma once

#include <string>
#include <vector>

#include "experiment/validate.h"

namespace numasim {

std::string validation_text(const std::vector<EffectResult>& rows);

}  // namespace numasim
