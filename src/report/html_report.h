// `numasim report RUN_DIR`: one self-contained HTML page (inline SVG, no script, no network)
// from the run directory's result.json (`run`/`compare` with --sample and --out-dir):
//   run:     local hinting-fault share over time; PTE updates, hinting faults and migrations
//            over time; a task x time heatmap coloured by node; each process's memory per node;
//   compare: the variants' locality and migrations overlaid, and the mmtests tables;
// and the provenance of the result.
#pragma once

#include <istream>
#include <nlohmann/json.hpp>
#include <string>

namespace numasim {

// Throws InputError naming `origin` when `result` has no samples to draw.
std::string html_report(const nlohmann::json& result, const std::string& origin);

// Parses result.json keeping only what the page draws: the top-level keys it reads and, of the
// samples, the first run's (compare: each variant's first iteration) vmstat, tasks and numastat
// tables. The report's memory then grows with what it draws, not with the file (numa_maps,
// the bulk of the samples, and the other runs are skipped as they are read). Throws InputError
// naming `origin` if the text is not JSON.
nlohmann::json read_report_input(std::istream& in, const std::string& origin);

}  // namespace numasim
