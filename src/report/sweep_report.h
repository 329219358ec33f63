// The files of a sweep's output directory (docs/sweeps.md): one JSON document per case, and,
// built from those documents alone, the CSV (one row per case: parameters, then metrics) and
// the mmtests compare tables along one axis. Building the CSV and the tables only from the
// case files is what makes `numasim gather` over the shards of a sweep, and rank 0 of an MPI
// run, write the same bytes as one process that ran every case.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "experiment/sweep.h"

namespace numasim {

// What every case file of a sweep repeats, so that shards can be checked to belong together:
// the name, the parameter axes and their values, the common overrides, the axis of the tables,
// the metrics and the number of cases. Nothing about how or where the sweep ran.
nlohmann::json sweep_header(const SweepDefinition& d, size_t cases);

// A case file: the header, the case's number, scenario, parameters and overrides, the
// `numasim run` command that reproduces an iteration (add --iteration K), and each iteration's
// run as `numasim run --json --iteration K` prints it (`runs`, each a JSON text).
std::string case_file_text(const nlohmann::json& header, const SweepCase& c,
                           const std::vector<std::string>& runs);
// The case file's name in the sweep's cases/ directory: its number, zero-padded.
std::string case_file_name(size_t index, size_t cases);

// A case file read back. Checks that it is one; `origin` names it in errors.
struct SweepCaseFile {
    nlohmann::json header;
    size_t index = 0;
    nlohmann::json doc;
};
SweepCaseFile parse_case_file(const std::string& text, const std::string& origin);

// Cuts a case document down to what sweep_csv and sweep_tables read, to keep a large sweep in
// memory: each run's tasks, the bulk of it, become `numa_task_migrations`, the list of their
// NUMA task migrations (for the task-migration table), and the workloads lose their tasks.
void slim_case_document(nlohmann::json& doc);

// The CSV and the tables of a complete sweep: `cases` holds every case, in order, as
// slim_case_document leaves it.
std::string sweep_csv(const nlohmann::json& header, const std::vector<nlohmann::json>& cases);
std::string sweep_tables(const nlohmann::json& header, const std::vector<nlohmann::json>& cases);

}  // namespace numasim
