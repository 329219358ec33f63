// Loading scenarios with overrides: what wins, what set each knob, and who is blamed.
#include "experiment/scenario.h"

#include <gtest/gtest.h>

#include "config/input_error.h"

namespace numasim {
namespace {

constexpr const char* kScenario =
    "[scenario]\nmachine = \"tiny-2n\"\nprofile = \"v6.6\"\n"
    "[numa_balancing]\nsmallimp = 12\n"
    "[[workload]]\ntype = \"cowsum\"\nprocesses = 2\n"
    "[[variant]]\nname = \"base\"\n"
    "[[variant]]\nname = \"old\"\nprofile = \"v4.18\"\nset = [\"vma_scan=all\"]\n"
    "params = ['workload.processes=3']\n";

std::string origin_of(const Scenario& sc, std::string_view knob) {
    return sc.knob_origins.at(static_cast<size_t>(find_knob(knob) - knob_table().data()));
}

TEST(Scenario, KnobsComeFromProfileThenFileThenOverrides) {
    const Scenario plain = load_scenario_text(kScenario, "s.toml");
    EXPECT_EQ(plain.knobs.smallimp, 12);
    EXPECT_EQ(origin_of(plain, "smallimp"), "s.toml: numa_balancing.smallimp (line 5)");
    EXPECT_EQ(origin_of(plain, "vma_scan"), "profile v6.6");

    const Scenario over =
        load_scenario_text(kScenario, "s.toml",
                           {parse_override("smallimp=0", "--set smallimp=0"),
                            parse_override("profile=v4.18", "--param profile=v4.18")});
    EXPECT_EQ(over.knobs.smallimp, 0);
    EXPECT_EQ(origin_of(over, "smallimp"), "--set smallimp=0");
    EXPECT_EQ(over.profile, "v4.18");
    EXPECT_EQ(over.knobs.vma_scan, VmaScanSelection::All);
    EXPECT_EQ(origin_of(over, "vma_scan"), "profile v4.18");
}

TEST(Scenario, VariantsAreOverridesOfTheSameSyntax) {
    const Scenario sc = load_scenario_text(kScenario, "s.toml");
    ASSERT_EQ(sc.variants.size(), 2u);
    EXPECT_TRUE(sc.variants[0].overrides.empty());
    const auto& old = sc.variants[1].overrides;
    ASSERT_EQ(old.size(), 3u);
    EXPECT_EQ(old[0].key, "scenario.profile");
    EXPECT_EQ(old[1].key, "numa_balancing.vma_scan");
    EXPECT_EQ(old[2].key, "workload.processes");
    EXPECT_NE(old[1].origin.find("variant[1].set"), std::string::npos) << old[1].origin;
    // Applied in order, the variant's overrides give the variant's scenario.
    const Scenario v = load_scenario_text(kScenario, "s.toml", old);
    EXPECT_EQ(v.profile, "v4.18");
    EXPECT_EQ(v.knobs.vma_scan, VmaScanSelection::All);
    EXPECT_EQ(v.knobs.smallimp, 12);  // the file's table still applies over the profile
}

TEST(Scenario, ErrorsAboutAnOverrideNameTheOverride) {
    try {
        load_scenario_text(kScenario, "s.toml",
                           {parse_override("workload.processes=0", "--param processes=0")});
        FAIL();
    } catch (const InputError& e) {
        EXPECT_EQ(e.file(), "--param processes=0");
        EXPECT_EQ(e.where(), "workload[0].processes");
    }
    try {
        load_scenario_text(kScenario, "s.toml", {parse_override("worklaod.x=1", "--param w")});
        FAIL();
    } catch (const InputError& e) {
        EXPECT_EQ(e.file(), "--param w");
        EXPECT_NE(e.problem().find("unknown key"), std::string::npos);
    }
    // A bad knob value in a variant fails at load, before anything runs.
    const std::string bad = std::string(kScenario) +
                            "[[variant]]\nname = \"x\"\nset = "
                            "[\"smallimp=-1\"]\n";
    EXPECT_THROW(load_scenario_text(bad, "s.toml"), InputError);
}

// `--param 'smallimp=0\nworkload.processes=3'` ran with smallimp=0 and 2 processes: the text
// after the newline was parsed as another key and dropped without a word.
TEST(Scenario, AnOverrideThatGoesOnPastANewlineIsRefused) {
    const std::string text = "smallimp=0\nworkload.processes=3";
    try {
        load_scenario_text(kScenario, "s.toml", {parse_override(text, "--param x")});
        FAIL();
    } catch (const InputError& e) {
        EXPECT_EQ(e.file(), "--param x");
        EXPECT_EQ(e.where(), "numa_balancing.smallimp");
        EXPECT_NE(e.problem().find("goes on past its end"), std::string::npos) << e.problem();
    }
    // A newline inside a multi-line string, or a comment after the value, is still one value.
    const Scenario sc = load_scenario_text(kScenario, "s.toml",
                                           {parse_override("smallimp=7 # fewer moves", "--set s")});
    EXPECT_EQ(sc.knobs.smallimp, 7);
    EXPECT_NO_THROW(load_scenario_text(
        kScenario, "s.toml", {parse_override("seed=3 \n# trailing comment", "--param p")}));
}

TEST(Scenario, BuiltinScenariosLoad) {
    const Scenario sc = load_builtin_scenario("default");
    EXPECT_EQ(sc.machine.name, "tiny-2n");
    EXPECT_EQ(sc.workloads.size(), 1u);
    EXPECT_THROW(load_builtin_scenario("no-such"), InputError);
}

}  // namespace
}  // namespace numasim
