// `numasim oracle`'s tables: each figure of the real kernel's boots beside the model's runs
// (experiment/oracle_figures.h), as an mmtests compare table with Min/Median/Max rows and the
// columns "oracle" and "numasim", then one verdict row per figure: the medians, their ratio
// (numasim / oracle) and whether that ratio lies within a factor of two.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "experiment/oracle_figures.h"
#include "report/mmtests_table.h"

namespace numasim {

// Min/Median/Max rows, columns "oracle" and "numasim", no % column (a ratio follows instead).
CompareTable oracle_compare_table(const std::vector<OracleFigure>& figures);

// "figure  oracle  numasim  ratio  within 2x" rows, aligned.
std::string render_oracle_verdicts(const std::vector<OracleVerdict>& verdicts);
nlohmann::json to_json(const OracleVerdict& v);

}  // namespace numasim
