// Predictions with their uncertainty: a comparison run again under draws of the model's cost
// figures from their published ranges (cost/constant_ranges.h), so that each effect comes with
// the range it takes across the draws and whether its sign holds in all of them.
//
// Draw 0 is the published figures, so its runs are the ordinary comparison; draw d > 0 sets
// every figure from streams of (the first variant's seed, d) only. Every variant and iteration
// of a draw runs under the same figures, and iteration i under the same seed in every draw, so
// an effect's spread across draws is the figures' doing alone. The draws run on the one worker
// pool next to the variants and iterations: N draws cost N times the comparison.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "cost/constant_ranges.h"
#include "experiment/compare.h"

namespace numasim {

// One comparison's variants, loaded, for each draw: [draw][variant]. Draw 0 is `nominal` as it
// is; draw d is a copy with the figures of draw_figures(ranges, seed, d).
std::vector<std::vector<VariantRuns>> make_draws(
    const std::vector<VariantRuns>& nominal, int draws,
    const cost::FigureSet& ranges = cost::kNominalFigures);

// Runs every (draw, variant, iteration) on `workers` threads; `progress` is called after each
// run. `obs` records draw 0's runs only (what the ordinary comparison records).
void run_draws(std::vector<std::vector<VariantRuns>>& draws, int workers,
               const std::function<void()>& progress = {}, const ObserveOptions* obs = nullptr);

// An effect across the draws: its value with the published figures (draw 0), the least,
// median and greatest, and whether every draw gives it the nominal's sign (all zero for a zero
// nominal).
struct EffectSpread {
    double nominal = 0, min = 0, median = 0, max = 0;
    bool sign_holds = false;
};
// `values[d]` is draw d's value; at least one.
EffectSpread effect_spread(const std::vector<double>& values);

// One row of a comparison: the change in % of the mean of `metric` from the first variant to
// `variant`, across the draws.
struct UncertainEffect {
    std::string metric, baseline, variant;
    EffectSpread change_pct;
};
// Every operation of the comparison (in the order the compare table lists them) for every
// variant after the first.
std::vector<UncertainEffect> compare_effect_spreads(
    const std::vector<std::vector<VariantRuns>>& draws);

}  // namespace numasim
