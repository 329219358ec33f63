// The sample tables of a run (observe/numa_sampler.h) and the provenance
// (experiment/provenance.h) as JSON: the tables are read back from the run directory, so the
// samples never have to be held in memory while the run goes on.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "experiment/provenance.h"
#include "observe/csv.h"

namespace numasim {

// {"columns": [...], "rows": [[...], ...]}: numeric cells as numbers, empty cells as null.
nlohmann::json csv_table_json(const CsvTable& t);
// Every table of the run directory `dir`, by name without ".csv". Throws InputError naming a
// missing or malformed file.
nlohmann::json samples_json(const std::string& dir);
nlohmann::json provenance_json(const Provenance& p);

}  // namespace numasim
