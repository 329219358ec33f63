// The ranges the model's figures may take, and draws from them: what `numasim compare
// --uncertainty` and `numasim validate --uncertainty` run the model under
// (experiment/uncertainty.h, docs/validation.md "Uncertainty").
//
// The kernel-work figures carry their ranges in cost/constants.h. The machine presets' memory
// figures are published per machine, so their ranges here are relative, one per kind of figure,
// applied to whichever preset runs (scale_machine_figures).
//
// A draw sets every figure independently: uniform in [lo, hi], or log-uniform (uniform in log)
// when hi > 2 lo, so that a range of "a factor of two either way" puts as much weight below the
// published figure as above it. Each figure has its own named random stream derived from the
// scenario's seed and the draw's index only, so a draw is the same for every variant and
// iteration it runs, at any thread count, and adding a figure shifts no other figure's draws.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "cost/constants.h"

namespace numasim {
struct Topology;
}

namespace numasim::cost {

// Relative ranges of the presets' memory figures: a draw multiplies each figure of that kind by
// its factor. The presets' figures are vendor numbers or one published measurement (docs/
// machines.md); these ranges are the spread between those and what Intel MLC and STREAM report
// on shipping systems across steppings, memory population and BIOS settings (snoop mode,
// sub-NUMA clustering, uncore frequency), as far as the presets' own sources state it.
// Memory-only nodes' device figures (CXL, PMEM) are not drawn: each comes from its own paper.
struct MachineScales {
    // Local DRAM idle latency (distance 10): MLC idle latency differs by up to ~10 % from the
    // figure a preset cites with the snoop mode and uncore frequency the BIOS sets.
    Figure LOCAL_LATENCY_SCALE{1.0, 0.9, 1.1};
    // Remote idle latency (every distance above 10, one factor, so that farther stays slower):
    // cross-socket latency moves more with the snoop mode (home vs early snoop on Haswell-EP,
    // Molka et al. ICPP 2015), ~15 %.
    Figure REMOTE_LATENCY_SCALE{1.0, 0.85, 1.15};
    // Sustained DRAM bandwidth: the presets take STREAM triad at 70-80 % of the channels' peak;
    // published STREAM results on one platform spread by about 10 % either way.
    Figure DRAM_BANDWIDTH_SCALE{1.0, 0.9, 1.1};
    // Link bandwidth: the presets give the links' signalling rate, an upper bound; measured
    // cross-socket streaming reaches 70-100 % of it (approximate).
    Figure LINK_BANDWIDTH_SCALE{1.0, 0.7, 1.0};
    // LLC hit latency: varies with the uncore clock and the slice the line lives in, ~10 %.
    Figure LLC_LATENCY_SCALE{1.0, 0.9, 1.1};
};

// Every figure one run's model uses that a draw may change.
struct FigureSet {
    Constants kernel;
    MachineScales machine;
};

inline constexpr FigureSet kNominalFigures{};

// A figure of a set by its name in the source (HINT_FAULT_CYCLES, LINK_BANDWIDTH_SCALE).
struct NamedFigure {
    std::string_view name;
    Figure* figure;
};
// Every figure of `s`, kernel figures first, in the order of their declarations.
std::vector<NamedFigure> named_figures(FigureSet& s);

// A value in [f.lo, f.hi] from `u` in [0, 1): uniform, or log-uniform when f.hi > 2 f.lo;
// exactly f.lo when the range is empty.
double figure_at(const Figure& f, double u);

// Draw `index` of the figures for `seed`: draw 0 is `ranges` itself (the published values);
// every other draw sets each figure's value from its own stream of (seed, index).
FigureSet draw_figures(const FigureSet& ranges, uint64_t seed, int index);

// Multiplies `t`'s memory figures by the draw's factors (the local latency, every remote
// latency, the DRAM and link bandwidths, the LLC latency).
void scale_machine_figures(Topology& t, const MachineScales& s);

}  // namespace numasim::cost
