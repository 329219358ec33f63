// `numasim validate`: runs every experiment file that declares published effects ([[effect]]
// tables), compares the simulated change between two variants with the posting's, and prints
// published and simulated figures side by side with a pass or miss per effect.
//
// An effect names a metric (a workload operation such as "tput-8", "elsp-NUMA01_THREADLOCAL"
// or "passes"; "vmstat.<counter>", "sched.<counter>", "elapsed_s", "system_s", or
// "hint_local_pct"), the two variants, the published figures, and what must hold:
//   sign        the simulated change has the published change's sign
//   factor2     ... and is within a factor of 2 of it
//   rise, fall  the simulated metric goes up / down
//   rise_10x, fall_10x   ... by more than 10x
//   change_pct  the simulated change in % lies in `range` = [lo, hi]
//   near        the simulated change is within `range` = [-tol, +tol] % ... same as change_pct
//   majority_rise   (with a metric pattern "tput-*") more than half of the points rise
//   argmax_in   (pattern) the largest relative gain is at a point whose number is in `range`
//   in_range    the simulated `to` value itself lies in `range` (absolute figures, e.g. the
//               counts the qemu oracle measured on a real kernel)
// `headline = false` marks per-case figures shown for information; `ci = false` marks a
// headline effect the model is known to miss at full scale (docs/validation.md says why), which
// the reduced-scale CI run therefore does not enforce.
// Effects with the same `group` are also summarised: the mean of their simulated changes must
// be positive (`group_expect = "mean_positive"`).
//
// With uncertainty draws (`--uncertainty`, experiment/uncertainty.h) every experiment also runs
// under draws of the model's cost figures from their published ranges, and each effect with a
// single metric gets its predicted range over the draws and whether the published figure lies
// inside it. Pass and miss stay judged on draw 0, the published figures.
//
// With --oracle, `[[oracle]]` tables are checked against a real kernel booted under qemu
// (experiment/oracle.h), one boot set per named variant:
//   [[oracle]]
//   name = "..."; variant = "v6.1"; figure = "numa_pages_migrated"
//   expect = "nonzero" | "zero" (the real kernel's median) | "within_2x" (numasim's median
//            within a factor of two of the real one)
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "experiment/overrides.h"

namespace numasim {

struct ValidateOptions {
    bool quick = false;    // the experiments' [validate] quick overrides; check directions only
    bool oracle = false;   // also boot the real kernel for the [[oracle]] checks
    int oracle_boots = 1;  // boots per variant
    std::function<void(const std::string&)> oracle_status;                         // boot progress
    std::function<void(const std::string&, const std::string&)> oracle_write_log;  // failed boots'
    int workers = 1;
    std::vector<std::string> only;  // experiment file stems to run (empty: all)
    ScenarioOverrides overrides;    // applied to every experiment after its quick overrides
    // Draws of the model's figures (experiment/uncertainty.h); 0: the published figures only.
    int uncertainty_draws = 0;
};

struct EffectResult {
    std::string experiment, name, metric, expect;
    double published_from = 0, published_to = 0;
    bool has_published = false;
    double sim_from = 0, sim_to = 0;
    bool pass = false;
    bool headline = true;
    bool ci = true;        // checked by `--quick --strict`: false for effects the model misses
    bool skipped = false;  // an oracle check that could not run (no qemu)
    std::string group;
    std::string note;
    // With uncertainty draws: the least and greatest simulated change in % across them (of the
    // `to` value for in_range), and whether the published change (range) lies inside (meets).
    bool has_spread = false;
    double spread_lo = 0, spread_hi = 0;
    bool published_inside = false;
};

// Runs the experiments in `dir`; returns one row per effect (and per group summary).
// report/validation_report.h prints them.
std::vector<EffectResult> run_validation(const std::string& dir, const ValidateOptions& o);

// (to - from) / |from| in percent; infinite when `from` is 0 and `to` is not.
double pct_change(double from, double to);

}  // namespace numasim
