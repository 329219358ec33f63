// `numasim report RUN_DIR`: one self-contained HTML page (inline SVG, no script, no network)
// from the run directory's result.json (`run`/`compare` with --sample and --out-dir):
//   run:     local hinting-fault share over time; PTE updates, hinting faults and migrations
//            over time; a task x time heatmap coloured by node; each process's memory per node;
//   compare: the variants' locality and migrations overlaid, and the mmtests tables;
// and the provenance of the result.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace numasim {

// Throws InputError naming `origin` when `result` has no samples to draw.
std::string html_report(const nlohmann::json& result, const std::string& origin);

}  // namespace numasim
