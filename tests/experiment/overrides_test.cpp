// The one override syntax: short keys, bare words, variants, and errors that name the override.
#include "experiment/overrides.h"

#include <gtest/gtest.h>

#include "config/input_error.h"

namespace numasim {
namespace {

std::string error_of(const std::string& text) {
    try {
        parse_override(text, "--param " + text);
    } catch (const InputError& e) {
        return e.what();
    }
    return "";
}

TEST(Overrides, ShortKeysResolveToTheirTables) {
    EXPECT_EQ(parse_override("smallimp=0", "o").key, "numa_balancing.smallimp");
    EXPECT_EQ(parse_override("profile=v4.18", "o").key, "scenario.profile");
    EXPECT_EQ(parse_override("seed=3", "o").key, "scenario.seed");
    EXPECT_EQ(parse_override("workload.jvms=4", "o").key, "workload.jvms");
    EXPECT_EQ(parse_override(" idle_early_stop = false ", "o").key,
              "numa_balancing.idle_early_stop");
}

TEST(Overrides, ValuesAreTomlOrBareWords) {
    EXPECT_EQ(parse_override("smallimp=0", "o").value, "0");
    EXPECT_EQ(parse_override("idle_early_stop=false", "o").value, "false");
    // Bare words become TOML strings.
    EXPECT_EQ(parse_override("vma_scan=all", "o").value, toml_quote("all"));
    EXPECT_EQ(parse_override("profile=v4.18", "o").value, toml_quote("v4.18"));
    EXPECT_EQ(parse_override("workload.duration=20s", "o").value, toml_quote("20s"));
    EXPECT_EQ(parse_override("workload.duration=\"20s\"", "o").value, "\"20s\"");
    EXPECT_EQ(parse_override("workload.warehouse_sweep=[1, 2]", "o").value, "[1, 2]");
    EXPECT_EQ(string_override("machine", "my \"box\".toml", "o").value,
              toml_quote("my \"box\".toml"));
    // toml_quote round-trips through the TOML reader.
    const TomlTable t = TomlTable::parse_text("v = " + toml_quote("a 'b' \"c\""), "t");
    EXPECT_EQ(t.get_string("v"), "a 'b' \"c\"");
}

TEST(Overrides, ErrorsNameTheOverrideAndTheProblem) {
    EXPECT_NE(error_of("smalimp=0").find("--param smalimp=0"), std::string::npos);
    EXPECT_NE(error_of("smalimp=0").find("unknown key"), std::string::npos);
    EXPECT_NE(error_of("smallimp").find("expected KEY=VALUE"), std::string::npos);
    EXPECT_NE(error_of("smallimp=").find("missing value"), std::string::npos);
    EXPECT_NE(error_of("workload.x=two words").find("neither TOML nor a bare word"),
              std::string::npos);
}

TEST(Overrides, VariantsSplitOnTopLevelCommasOnly) {
    const Variant v =
        parse_variant("old:profile=v4.18,smallimp=0,workload.sweep=[1,2],name=\"a,b\"");
    EXPECT_EQ(v.name, "old");
    ASSERT_EQ(v.overrides.size(), 4u);
    EXPECT_EQ(v.overrides[0].key, "scenario.profile");
    EXPECT_EQ(v.overrides[1].key, "numa_balancing.smallimp");
    EXPECT_EQ(v.overrides[2].value, "[1,2]");
    EXPECT_EQ(v.overrides[3].value, "\"a,b\"");
    EXPECT_EQ(v.overrides[0].origin,
              "--variant old:profile=v4.18,smallimp=0,workload.sweep=[1,2],"
              "name=\"a,b\"");
    EXPECT_THROW(parse_variant("noname"), InputError);
    EXPECT_THROW(parse_variant(":smallimp=0"), InputError);
}

}  // namespace
}  // namespace numasim
