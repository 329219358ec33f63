// The report of one run, as text (`numasim run`) and as JSON (`--json`): the scenario, times,
// every workload's typed result, /proc/vmstat and scheduler counters, and the tasks.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "experiment/run.h"
#include "experiment/scenario.h"

namespace numasim {

std::string result_text(const Scenario& sc, const RunResult& r);
nlohmann::json result_json(const Scenario& sc, const RunResult& r);
// Every iteration: one after the other as text; as JSON the first run's object, with all of
// them under "runs" when there is more than one.
std::string results_text(const Scenario& sc, const std::vector<RunResult>& runs);
nlohmann::json results_json(const Scenario& sc, const std::vector<RunResult>& runs);
nlohmann::json to_json(const WorkloadResult& w);

}  // namespace numasim
