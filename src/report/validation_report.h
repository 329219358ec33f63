// The report of `numasim validate`: per effect, the experiment, the published and the simulated
// figures side by side, and pass or MISS.
#pragma once

#include <string>
#include <vector>

#include "experiment/validate.h"

namespace numasim {

std::string validation_text(const std::vector<EffectResult>& rows);

}  // namespace numasim
