// The uncertainty section of `numasim compare --uncertainty N`: per row of the comparison, the
// change across the draws of the model's figures (min, median, max) and whether its sign holds
// in every draw; as text and as JSON.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "experiment/uncertainty.h"

namespace numasim {

std::string uncertainty_text(const std::vector<UncertainEffect>& rows, int draws);
nlohmann::json uncertainty_json(const std::vector<UncertainEffect>& rows, int draws);

}  // namespace numasim
