// The report of `numasim compare`: the mmtests compare table (with significance markers),
// Duration and mmtests-vmstat `Ops ...` monitors with the AutoNUMA cost, the NUMA task
// migration summary of the sched_*_numa tracepoints, perf-stat and vmstat event tables, and,
// when a variant ran specjbb, the posting's Prev/Current block; as text or JSON.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "experiment/compare.h"
#include "report/latency_report.h"
#include "report/significance.h"

namespace numasim {

struct CompareReportOptions {
    SignificanceRule rule = SignificanceRule::CiInterval;
    bool stats_2019 = false;  // the 2019-2024 mmtests stat rows (BAmean-50/-95/-99)
    bool means_only = false;
    bool print_significance = false;  // compare-mmtests.pl --print-significance rows
    bool dot_naming = false;          // BAmean.95 (mmtests since fa1c230f) instead of BAmean-95
    // `--latency`: the "Lat ...th-qrtle-KIND" rows after Duration, and the histograms in JSON.
    std::optional<LatencyReportOptions> latency;
};

std::string compare_text(const std::vector<VariantRuns>& v, const CompareReportOptions& o);
nlohmann::json compare_json(const std::vector<VariantRuns>& v, const CompareReportOptions& o);

}  // namespace numasim
