#include "cost/constant_ranges.h"

#include <cmath>
#include <string>

#include "machine/topology.h"
#include "sim/rng.h"

namespace numasim::cost {

std::vector<NamedFigure> named_figures(FigureSet& s) {
    Constants& k = s.kernel;
    MachineScales& m = s.machine;
    return {
        {"HINT_FAULT_CYCLES", &k.HINT_FAULT_CYCLES},
        {"PTE_UPDATE_CYCLES", &k.PTE_UPDATE_CYCLES},
        {"PTE_WALK_CYCLES", &k.PTE_WALK_CYCLES},
        {"ANON_FAULT_CYCLES", &k.ANON_FAULT_CYCLES},
        {"PTL_HOLD_CYCLES", &k.PTL_HOLD_CYCLES},
        {"LINE_TRANSFER_LLC_FACTOR", &k.LINE_TRANSFER_LLC_FACTOR},
        {"TLB_SHOOTDOWN_NS", &k.TLB_SHOOTDOWN_NS},
        {"TLB_FLUSH_IPI_NS", &k.TLB_FLUSH_IPI_NS},
        {"MIGRATE_FOLIO_OVERHEAD_NS", &k.MIGRATE_FOLIO_OVERHEAD_NS},
        {"MIGRATE_PER_MAPPING_NS", &k.MIGRATE_PER_MAPPING_NS},
        {"RECLAIM_SCAN_FOLIO_NS", &k.RECLAIM_SCAN_FOLIO_NS},
        {"COPY_BANDWIDTH_FRACTION", &k.COPY_BANDWIDTH_FRACTION},
        {"CONTEXT_SWITCH_NS", &k.CONTEXT_SWITCH_NS},
        {"PRIVATE_CACHE_BYTES", &k.PRIVATE_CACHE_BYTES},
        {"LOADED_LATENCY_KNEE", &k.LOADED_LATENCY_KNEE},
        {"LOCAL_LATENCY_SCALE", &m.LOCAL_LATENCY_SCALE},
        {"REMOTE_LATENCY_SCALE", &m.REMOTE_LATENCY_SCALE},
        {"DRAM_BANDWIDTH_SCALE", &m.DRAM_BANDWIDTH_SCALE},
        {"LINK_BANDWIDTH_SCALE", &m.LINK_BANDWIDTH_SCALE},
        {"LLC_LATENCY_SCALE", &m.LLC_LATENCY_SCALE},
    };
}

double figure_at(const Figure& f, double u) {
    if (f.hi <= f.lo) return f.lo;
    if (f.hi > 2 * f.lo) return std::exp(std::log(f.lo) + u * (std::log(f.hi) - std::log(f.lo)));
    return f.lo + u * (f.hi - f.lo);
}

FigureSet draw_figures(const FigureSet& ranges, uint64_t seed, int index) {
    FigureSet s = ranges;
    if (index == 0) return s;
    const uint64_t draw_seed = derive_seed(seed, static_cast<uint64_t>(index));
    for (const NamedFigure& f : named_figures(s)) {
        Rng rng(draw_seed, "uncertainty." + std::string(f.name));
        f.figure->value = figure_at(*f.figure, rng.uniform());
    }
    return s;
}

void scale_machine_figures(Topology& t, const MachineScales& s) {
    constexpr int kSlitLocalDistance = 10;  // ACPI SLIT's distance of a node to itself
    for (auto& [distance, ns] : t.hw.latency_ns)
        ns *= distance == kSlitLocalDistance ? s.LOCAL_LATENCY_SCALE : s.REMOTE_LATENCY_SCALE;
    t.hw.dram_bandwidth_gbs *= s.DRAM_BANDWIDTH_SCALE;
    t.hw.link_bandwidth_gbs *= s.LINK_BANDWIDTH_SCALE;
    t.hw.llc_latency_ns *= s.LLC_LATENCY_SCALE;
}

}  // namespace numasim::cost
