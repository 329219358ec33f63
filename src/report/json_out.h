// nlohmann::json views of every report table, for `--json`: the structured data (columns,
// rows, values, % change, significance) plus the rendered text where one exists.
#pragma once

#include <nlohmann/json.hpp>

#include "report/mmtests_table.h"
#include "report/monitor_tables.h"
#include "report/perf_bench_numa_print.h"
#include "report/seed_tables.h"
#include "report/stats.h"

namespace numasim {

// NaN and infinities become null (JSON has no representation for them).
nlohmann::json json_number(double value);

nlohmann::json to_json(const Summary& summary);
// {"columns": [...], "rows": [{"stat", "operation", "values", "pct", "significant"}], "text"}
nlohmann::json to_json(const CompareTable& table);
// {"columns": [...], "rows": [{"stat", "operation", "values"}], "text"}
nlohmann::json to_json(const MonitorTable& table);
// {"title", "settings", "rows": [{"jvms", "values", "pct"}], "text"}
nlohmann::json to_json(const SpecjbbBlock& block);
// {"heading", "columns", "rows": [{"event", "values"}]}
nlohmann::json event_table_json(std::string_view heading, const std::vector<std::string>& columns,
                                const std::vector<EventRow>& rows);
// Raw inputs plus the derived figures under the names perf prints.
nlohmann::json to_json(const PerfBenchNumaRaw& raw);

}  // namespace numasim
