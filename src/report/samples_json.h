// The sample tables of a run (observe/numa_sampler.h) and the provenance
// (experiment/provenance.h) as JSON. The tables are copied from the run directory's CSV files
// row by row, so that neither the run nor the writing of result.json holds the samples in
// memory: a run's peak memory does not grow with its number of samples.
#pragma once

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "experiment/provenance.h"

namespace numasim {

// Writes every table of the run directory `dir` as a JSON object, as nlohmann's dump(2) would
// write it at `indent` (report/json_splice.h): {"<table>": {"columns": [...], "rows": [[...],
// ...]}, ...}, by file name without ".csv" in name order, numeric cells as numbers, empty cells
// as null. Throws InputError naming a missing or malformed file.
void write_samples_json(std::FILE* out, const std::string& dir, int indent);
nlohmann::json provenance_json(const Provenance& p);

}  // namespace numasim
