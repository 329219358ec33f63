// A comparison under draws of the model's figures (experiment/uncertainty.h).
#include "experiment/uncertainty.h"

#include <gtest/gtest.h>

#include "experiment/scenario.h"

namespace numasim {
namespace {

TEST(Uncertainty, EffectSpreadByHand) {
    // Sorted: -1 2 3 5; median (2 + 3) / 2; draw 1's -1 breaks the nominal's sign.
    const EffectSpread a = effect_spread({2, -1, 5, 3});
    EXPECT_EQ(a.nominal, 2);
    EXPECT_EQ(a.min, -1);
    EXPECT_EQ(a.median, 2.5);
    EXPECT_EQ(a.max, 5);
    EXPECT_FALSE(a.sign_holds);
    const EffectSpread b = effect_spread({-2, -3, -1});
    EXPECT_EQ(b.median, -2);
    EXPECT_TRUE(b.sign_holds);
    // A zero nominal holds its sign only if every draw is zero too.
    EXPECT_TRUE(effect_spread({0, 0}).sign_holds);
    EXPECT_FALSE(effect_spread({0, 0.5}).sign_holds);
}

// Two variants on a two-node machine whose memory is interleaved in one and balanced in the
// other: an effect that moves with the latency and migration figures.
constexpr const char* kScenario =
    "[scenario]\nmachine = \"tiny-2n\"\nduration = \"2s\"\niterations = 2\nseed = 3\n"
    "[[workload]]\ntype = \"autonumabench\"\ntest = \"NUMA02\"\nloops = 20\n"
    "[[variant]]\nname = \"on\"\n"
    "[[variant]]\nname = \"off\"\nset = [\"numa_balancing=0\"]\n";

std::vector<VariantRuns> loaded() {
    const Scenario sc = load_scenario_text(kScenario, "u.toml");
    std::vector<VariantRuns> v;
    for (const Variant& x : sc.variants)
        v.push_back({x.name, load_scenario_text(kScenario, "u.toml", x.overrides), {}});
    return v;
}

std::vector<UncertainEffect> spreads(int draws, int workers,
                                     const cost::FigureSet& ranges = cost::kNominalFigures) {
    auto d = make_draws(loaded(), draws, ranges);
    run_draws(d, workers);
    return compare_effect_spreads(d);
}

TEST(Uncertainty, ZeroRangesGiveZeroWidthIntervals) {
    cost::FigureSet ranges;
    for (const auto& f : cost::named_figures(ranges))
        f.figure->lo = f.figure->hi = f.figure->value;
    const auto rows = spreads(3, 2, ranges);
    ASSERT_FALSE(rows.empty());
    for (const auto& r : rows) {
        EXPECT_EQ(r.change_pct.min, r.change_pct.nominal) << r.metric;
        EXPECT_EQ(r.change_pct.max, r.change_pct.nominal) << r.metric;
    }
}

TEST(Uncertainty, DrawsMoveTheEffectAroundTheNominal) {
    const auto rows = spreads(3, 2);
    ASSERT_FALSE(rows.empty());
    bool some_width = false;
    for (const auto& r : rows) {
        EXPECT_EQ(r.baseline, "on");
        EXPECT_EQ(r.variant, "off");
        EXPECT_LE(r.change_pct.min, r.change_pct.nominal) << r.metric;
        EXPECT_GE(r.change_pct.max, r.change_pct.nominal) << r.metric;
        some_width |= r.change_pct.max > r.change_pct.min;
    }
    // The draws change the figures the runs are charged with.
    EXPECT_TRUE(some_width);
}

TEST(Uncertainty, DrawZeroIsTheOrdinaryComparison) {
    auto d = make_draws(loaded(), 2);
    run_draws(d, 2);
    auto plain = loaded();
    run_variants(plain, 1);
    for (size_t v = 0; v < plain.size(); ++v)
        for (size_t i = 0; i < plain[v].runs.size(); ++i)
            EXPECT_EQ(d[0][v].runs[i].elapsed, plain[v].runs[i].elapsed);
}

TEST(Uncertainty, SameSpreadsAtAnyThreadCount) {
    const auto one = spreads(3, 1), two = spreads(3, 2);
    ASSERT_EQ(one.size(), two.size());
    for (size_t i = 0; i < one.size(); ++i) {
        EXPECT_EQ(one[i].metric, two[i].metric);
        EXPECT_EQ(one[i].change_pct.min, two[i].change_pct.min);
        EXPECT_EQ(one[i].change_pct.median, two[i].change_pct.median);
        EXPECT_EQ(one[i].change_pct.max, two[i].change_pct.max);
    }
}

}  // namespace
}  // namespace numasim
