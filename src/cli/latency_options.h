// The options of `run` and `compare` that ask for latency accounting (docs/latency.md):
// --latency, and how its histograms are reported: --latency-per task|process,
// --latency-unit usecs|msecs, --latency-percentiles LIST.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "report/latency_report.h"

namespace numasim {

struct LatencyCliOptions {
    bool on = false;
    std::string per = "task", unit = "usecs", percentiles = "50,90,99,99.9";

    void add_to(CLI::App& app);
    // Checks the values (InputError naming the option): percentiles from 0 to 100, and no
    // report option without --latency.
    LatencyReportOptions report_options() const;

  private:
    CLI::Option *per_opt_ = nullptr, *unit_opt_ = nullptr, *percentiles_opt_ = nullptr;
};

}  // namespace numasim
