// Sweep axes: value lists, ranges and arrays; the product's order; shards.
#include "experiment/sweep.h"

#include <gtest/gtest.h>

#include <set>

#include "config/input_error.h"

namespace numasim {
namespace {

std::vector<std::string> values(const OverrideAxis& a) {
    std::vector<std::string> v;
    for (const auto& x : a.values)
        v.push_back(x.value);
    return v;
}

TEST(SweepAxes, CommasRangesAndArraysListValues) {
    const auto list = parse_override_axis("smallimp=0,30", "o");
    EXPECT_EQ(list.values.front().key, "numa_balancing.smallimp");
    EXPECT_EQ(values(list), (std::vector<std::string>{"0", "30"}));
    EXPECT_EQ(values(parse_override_axis("smallimp=0..60:20", "o")),
              (std::vector<std::string>{"0", "20", "40", "60"}));
    // The last step stops at B, not past it.
    EXPECT_EQ(values(parse_override_axis("seed=1..6:2", "o")),
              (std::vector<std::string>{"1", "3", "5"}));
    EXPECT_EQ(values(parse_override_axis("workload.warehouses=[4, 8,16]", "o")),
              (std::vector<std::string>{"4", "8", "16"}));
    // An array-valued key takes a nested array; one inner array is one value.
    EXPECT_EQ(values(parse_override_axis("workload.warehouse_sweep=[[1, 2], [4]]", "o")),
              (std::vector<std::string>{"[1, 2]", "[4]"}));
    EXPECT_EQ(parse_override_axis("workload.warehouse_sweep=[[1, 2]]", "o").values.size(), 1u);
    // One value is an ordinary override; strings show without their quotes.
    const auto one = parse_override_axis("profile=v4.18", "o");
    EXPECT_EQ(one.values.size(), 1u);
    EXPECT_EQ(one.labels, std::vector<std::string>{"v4.18"});
    const auto quoted = parse_override_axis("workload.duration=\"2s\",\"3s,\"", "o");
    EXPECT_EQ(quoted.labels, (std::vector<std::string>{"2s", "3s,"}));
}

TEST(SweepAxes, BadListsNameTheOption) {
    for (const char* text : {"smallimp=5..1", "smallimp=1..5:0", "smallimp=[]", "smallimp"}) {
        try {
            parse_override_axis(text, std::string("--set ") + text);
            ADD_FAILURE() << text;
        } catch (const InputError& e) {
            EXPECT_NE(std::string(e.what()).find(std::string("--set ") + text), std::string::npos)
                << e.what();
        }
    }
    EXPECT_THROW(parse_override_axis("seed=0..200000", "o"), InputError);
    // A list where one value is expected says where lists go.
    try {
        parse_override("smallimp=0,30", "--set smallimp=0,30");
        ADD_FAILURE();
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("numasim sweep"), std::string::npos) << e.what();
    }
}

SweepDefinition two_by_three() {
    SweepDefinition d;
    d.scenarios = {"examples/knobs.toml"};
    add_override_axis(d, parse_override_axis("duration=3s", "o"), "o");
    add_override_axis(d, parse_override_axis("seed=1,2", "o"), "o");
    add_override_axis(d, parse_override_axis("smallimp=0..20:10", "o"), "o");
    return d;
}

TEST(Sweep, TheProductRunsTheLastAxisFastest) {
    const SweepDefinition d = two_by_three();
    ASSERT_EQ(d.common.size(), 1u) << "one value is no axis";
    const auto cases = expand_sweep(d);
    ASSERT_EQ(cases.size(), 6u);
    const std::vector<std::vector<std::string>> labels = {{"1", "0"}, {"1", "10"}, {"1", "20"},
                                                          {"2", "0"}, {"2", "10"}, {"2", "20"}};
    for (size_t k = 0; k < cases.size(); ++k) {
        EXPECT_EQ(cases[k].index, k);
        EXPECT_EQ(cases[k].labels, labels[k]);
        // Common overrides first, then one value per axis in axis order.
        ASSERT_EQ(cases[k].overrides.size(), 3u);
        EXPECT_EQ(cases[k].overrides[0].key, "scenario.duration");
        EXPECT_EQ(cases[k].overrides[1].key, "scenario.seed");
        EXPECT_EQ(cases[k].overrides[2].key, "numa_balancing.smallimp");
    }
    // The tables run along the first axis that is not the seeds'.
    EXPECT_EQ(sweep_along(d), "smallimp");
    SweepDefinition bad = d;
    bad.along = "profile";
    EXPECT_THROW(sweep_along(bad), InputError);
    EXPECT_THROW(add_override_axis(bad, parse_override_axis("smallimp=1,2", "o"), "o"), InputError);
}

TEST(Sweep, VariantsComeBeforeTheOtherAxes) {
    SweepDefinition d = two_by_three();
    add_variant_axis(d, {parse_variant("a:profile=v6.1"), parse_variant("b:profile=v6.6")}, false);
    const auto cases = expand_sweep(d);
    ASSERT_EQ(cases.size(), 12u);
    EXPECT_EQ(cases[0].labels, (std::vector<std::string>{"a", "1", "0"}));
    EXPECT_EQ(cases[6].labels, (std::vector<std::string>{"b", "1", "0"}));
    EXPECT_EQ(cases[6].overrides[1].value, toml_quote("v6.6"));
}

TEST(Sweep, TheExampleSpecSweepsFourMachinesBySevenThresholds) {
    SweepDefinition d;
    ASSERT_TRUE(read_sweep_file(
        std::string(NUMASIM_SOURCE_DIR) + "/examples/sweeps/smallimp-threshold.toml", d));
    EXPECT_EQ(d.name, "smallimp-threshold");
    const auto axes = sweep_axes(d);
    ASSERT_EQ(axes.size(), 2u);
    EXPECT_EQ(axes[0].name, "scenario");
    EXPECT_EQ(axes[1].labels, (std::vector<std::string>{"0", "10", "20", "30", "40", "50", "60"}));
    EXPECT_EQ(sweep_along(d), "smallimp");
    const auto cases = expand_sweep(d);
    ASSERT_EQ(cases.size(), 28u);
    EXPECT_EQ(cases[7].labels, (std::vector<std::string>{"experiments/smallimp-power7.toml", "0"}));
}

TEST(Sweep, ShardsSplitTheCasesWithoutOverlap) {
    std::multiset<size_t> seen;
    for (size_t i = 1; i <= 4; ++i) {
        const Shard s = parse_shard(std::to_string(i) + "/4");
        for (size_t k = 0; k < 10; ++k)
            if (s.contains(k)) seen.insert(k);
    }
    EXPECT_EQ(seen.size(), 10u);
    for (size_t k = 0; k < 10; ++k)
        EXPECT_EQ(seen.count(k), 1u);
    for (const char* bad : {"0/4", "5/4", "1/0", "1", "a/b", "1/4x"})
        EXPECT_THROW(parse_shard(bad), InputError) << bad;
}

}  // namespace
}  // namespace numasim
