// The reports of `--latency` (docs/latency.md): per task or per process, one bcc-style log2
// histogram per kind of stretch that NUMA balancing took (kernel/latency.h), with funclatency's
// "avg = ..., total: ..., count: ..." line and the chosen percentiles; the same as JSON (bcc's
// bucket objects and the percentiles); and for `compare`, percentile rows named as mmtests names
// a latency benchmark's ("Lat 99.0th-qrtle-GROUP"), one group per kind, against the baseline.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "experiment/compare.h"
#include "experiment/run.h"
#include "report/mmtests_table.h"

namespace numasim {

struct LatencyReportOptions {
    bool per_process = false;  // merge a process's threads (bcc's "pid =" sections, else "tid =")
    bool msecs = false;        // bucket in milliseconds (bcc's -m) instead of microseconds
    std::vector<double> percentiles = {50, 90, 99, 99.9};
};

// One run's histograms; empty for a run that recorded none.
std::string latency_text(const RunResult& r, const LatencyReportOptions& o);
// As JSON text, laid out as json_text(..., indent) lays out a member (nlohmann's dump(2), each line
// after the first indented by `indent` spaces, members in the order of their keys): "per",
// "unit", "all" (every task merged, with bcc's bucket objects) and "entries" (per task or process:
// "tid" or "pid", "comm", "histograms" with the bucket counts). Written straight to text, not
// built as a JSON object: a run of hundreds of processes has thousands of histograms, whose
// objects cost more to build, write and free than the simulation spends recording them.
std::string latency_json_text(const RunResult& r, const LatencyReportOptions& o, int indent);

// A variant's histograms, every run's tasks merged: as latency_json_text's "all".
nlohmann::json latency_variant_json(const VariantRuns& v, const LatencyReportOptions& o);

// "50.0th-qrtle-task_numa_work": mmtests' name for the percentile of a group.
std::string latency_row_name(double percentile, std::string_view group);

// Per variant, the histograms of all its runs merged: rows "Lat P th-qrtle-KIND" for each kind
// any variant recorded and each percentile, with the % change against the first variant (lower
// is better).
CompareTable latency_compare_table(const std::vector<VariantRuns>& v,
                                   const LatencyReportOptions& o);

}  // namespace numasim
