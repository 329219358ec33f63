// The ranges of the model's figures and draws from them (cost/constant_ranges.h).
#include "cost/constant_ranges.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "cost/cost_model.h"
#include "machine/presets.h"
#include "machine/topology.h"

namespace numasim::cost {
namespace {

// named_figures lists every figure of both structs: a figure added to constants.h without a
// name here would never be drawn.
TEST(ConstantRanges, EveryFigureHasAName) {
    FigureSet s;
    const auto named = named_figures(s);
    EXPECT_EQ(named.size() * sizeof(Figure), sizeof(Constants) + sizeof(MachineScales));
    std::set<std::string_view> names;
    std::set<const Figure*> seen;
    for (const auto& f : named) {
        EXPECT_TRUE(names.insert(f.name).second) << f.name;
        EXPECT_TRUE(seen.insert(f.figure).second) << f.name;
    }
}

TEST(ConstantRanges, PublishedValuesLieInTheirRanges) {
    FigureSet s;
    for (const auto& f : named_figures(s)) {
        EXPECT_GT(f.figure->lo, 0) << f.name;
        EXPECT_LE(f.figure->lo, f.figure->value) << f.name;
        EXPECT_LE(f.figure->value, f.figure->hi) << f.name;
    }
}

TEST(ConstantRanges, FigureAtIsUniformOrLogUniform) {
    // Within a factor of two: uniform. 1.5 + 0.25 * (2.5 - 1.5).
    EXPECT_DOUBLE_EQ(figure_at({2, 1.5, 2.5}, 0.25), 1.75);
    EXPECT_DOUBLE_EQ(figure_at({2, 1.5, 2.5}, 0.0), 1.5);
    // Wider: uniform in log. Halfway between 0.5 and 2 in log is 1; a quarter is 2^-0.5.
    EXPECT_NEAR(figure_at({1, 0.5, 2}, 0.5), 1.0, 1e-12);
    EXPECT_NEAR(figure_at({1, 0.5, 2}, 0.25), 0.7071067811865476, 1e-12);
    // Exactly twice: still uniform. 1 + 0.5 * 1.
    EXPECT_DOUBLE_EQ(figure_at({1, 1, 2}, 0.5), 1.5);
}

TEST(ConstantRanges, AZeroRangeDrawsItsValueExactly) {
    FigureSet ranges;
    ranges.kernel.HINT_FAULT_CYCLES = {5000, 5000, 5000};
    for (int d = 1; d < 20; ++d)
        EXPECT_EQ(draw_figures(ranges, 7, d).kernel.HINT_FAULT_CYCLES.value, 5000.0) << d;
    EXPECT_EQ(figure_at({3, 3, 3}, 0.999), 3.0);
}

TEST(ConstantRanges, DrawZeroIsThePublishedFigures) {
    FigureSet nominal;
    FigureSet d0 = draw_figures(kNominalFigures, 99, 0);
    const auto a = named_figures(nominal), b = named_figures(d0);
    for (size_t i = 0; i < a.size(); ++i)
        EXPECT_EQ(a[i].figure->value, b[i].figure->value) << a[i].name;
}

TEST(ConstantRanges, ADrawIsReproducibleFromItsSeedAndIndex) {
    FigureSet x = draw_figures(kNominalFigures, 42, 3), y = draw_figures(kNominalFigures, 42, 3);
    FigureSet other_index = draw_figures(kNominalFigures, 42, 4);
    FigureSet other_seed = draw_figures(kNominalFigures, 43, 3);
    const auto a = named_figures(x), b = named_figures(y), c = named_figures(other_index),
               d = named_figures(other_seed);
    for (size_t i = 0; i < a.size(); ++i) {
        EXPECT_EQ(a[i].figure->value, b[i].figure->value) << a[i].name;
        // Every figure here has a range, so another draw gives another value.
        EXPECT_NE(a[i].figure->value, c[i].figure->value) << a[i].name;
        EXPECT_NE(a[i].figure->value, d[i].figure->value) << a[i].name;
    }
}

TEST(ConstantRanges, DrawnValuesLieInTheirRanges) {
    for (int d = 1; d <= 200; ++d) {
        FigureSet s = draw_figures(kNominalFigures, 5, d);
        for (const auto& f : named_figures(s)) {
            EXPECT_GE(f.figure->value, f.figure->lo) << f.name << " draw " << d;
            EXPECT_LE(f.figure->value, f.figure->hi) << f.name << " draw " << d;
        }
    }
}

TEST(ConstantRanges, MachineScalesMultiplyTheirKindOfFigure) {
    Topology t = load_preset("tiny-2n");
    const MemoryHardware before = t.hw;
    MachineScales s;
    s.LOCAL_LATENCY_SCALE.value = 1.1;
    s.REMOTE_LATENCY_SCALE.value = 0.9;
    s.DRAM_BANDWIDTH_SCALE.value = 0.95;
    s.LINK_BANDWIDTH_SCALE.value = 0.8;
    s.LLC_LATENCY_SCALE.value = 1.05;
    scale_machine_figures(t, s);
    for (const auto& [distance, ns] : before.latency_ns)
        EXPECT_DOUBLE_EQ(t.hw.latency_ns.at(distance), ns * (distance == 10 ? 1.1 : 0.9))
            << distance;
    EXPECT_GT(before.latency_ns.size(), 1u);
    EXPECT_DOUBLE_EQ(t.hw.dram_bandwidth_gbs, before.dram_bandwidth_gbs * 0.95);
    EXPECT_DOUBLE_EQ(t.hw.link_bandwidth_gbs, before.link_bandwidth_gbs * 0.8);
    EXPECT_DOUBLE_EQ(t.hw.llc_latency_ns, before.llc_latency_ns * 1.05);
}

// The model charges the figures it was given, not the published ones.
TEST(ConstantRanges, TheCostModelChargesItsRunsFigures) {
    const Topology t = load_preset("tiny-2n");
    Constants k;
    k.LINE_TRANSFER_LLC_FACTOR.value = 3;
    CostModel drawn, nominal;
    drawn.init(t, k);
    nominal.init(t);
    EXPECT_DOUBLE_EQ(drawn.line_transfer_ns(0, 0), 3 * t.hw.llc_latency_ns);
    EXPECT_DOUBLE_EQ(nominal.line_transfer_ns(0, 0), 2 * t.hw.llc_latency_ns);
    EXPECT_EQ(drawn.k().LINE_TRANSFER_LLC_FACTOR.value, 3.0);
}

}  // namespace
}  // namespace numasim::cost
