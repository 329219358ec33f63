// ParamReader: defaults from the member, range checks with one wording, direct checking.
#include "config/param_reader.h"

#include <gtest/gtest.h>

#include "config/input_error.h"

namespace numasim {
namespace {

enum class Color { Red, Blue };
constexpr std::array<std::pair<Color, std::string_view>, 2> kColors = {
    {{Color::Red, "red"}, {Color::Blue, "blue"}}};

struct Params {
    int count = 4;
    int64_t loops = -1;
    double share = 0.5;
    bool flag = true;
    uint64_t size = 8192;
    Nanos time = NSEC_PER_SEC;
    Color color = Color::Red;
};

void read(ParamReader& r, Params& p) {
    r.integer("count", p.count, 1);
    r.integer("loops", p.loops, -1, 100);
    r.number("share", p.share, 0, 1);
    r.flag("flag", p.flag);
    r.size("size", p.size, 4096);
    r.duration("time", p.time, 1);
    r.choice("color", p.color, kColors);
}

std::string error_of(const std::string& toml) {
    const TomlTable t = TomlTable::parse_text(toml, "w.toml");
    ParamReader r(t);
    Params p;
    try {
        read(r, p);
    } catch (const InputError& e) {
        return e.what();
    }
    return "";
}

TEST(ParamReader, AbsentKeysKeepTheMemberDefaults) {
    const TomlTable t = TomlTable::parse_text("", "w.toml");
    ParamReader r(t);
    Params p;
    read(r, p);
    EXPECT_EQ(p.count, 4);
    EXPECT_EQ(p.loops, -1);
    EXPECT_EQ(p.color, Color::Red);
}

TEST(ParamReader, ReadsPresentKeys) {
    const TomlTable t = TomlTable::parse_text(
        "count = 9\nloops = 3\nshare = 1\nflag = false\nsize = \"1MiB\"\ntime = \"250ms\"\n"
        "color = \"blue\"\n",
        "w.toml");
    ParamReader r(t);
    Params p;
    read(r, p);
    EXPECT_EQ(p.count, 9);
    EXPECT_EQ(p.loops, 3);
    EXPECT_DOUBLE_EQ(p.share, 1.0);
    EXPECT_FALSE(p.flag);
    EXPECT_EQ(p.size, 1u << 20);
    EXPECT_EQ(p.time, 250 * NSEC_PER_MSEC);
    EXPECT_EQ(p.color, Color::Blue);
    EXPECT_NO_THROW(t.finish());
}

TEST(ParamReader, OneWordingForEveryRange) {
    EXPECT_NE(error_of("count = 0").find("w.toml: count (line 1): must be at least 1, got 0"),
              std::string::npos);
    EXPECT_NE(error_of("loops = 101").find("must be between -1 and 100, got 101"),
              std::string::npos);
    EXPECT_NE(error_of("share = 1.5").find("must be between 0 and 1, got 1.5"), std::string::npos);
    EXPECT_NE(error_of("size = 100").find("must be at least 4096 bytes"), std::string::npos);
    EXPECT_NE(error_of("time = 0").find("must be positive"), std::string::npos);
    EXPECT_NE(error_of("color = \"green\"").find("unknown value 'green' (valid: red, blue)"),
              std::string::npos);
    // An int member cannot silently truncate a 64-bit value.
    EXPECT_NE(error_of("count = 4294967297").find("must be at most 2147483647"), std::string::npos);
}

TEST(ParamReader, ChecksParametersFilledDirectly) {
    Params p;
    p.count = 0;
    ParamReader r("my options");
    try {
        read(r, p);
        FAIL();
    } catch (const InputError& e) {
        EXPECT_EQ(e.file(), "my options");
        EXPECT_EQ(e.where(), "count");
    }
    Params ok;
    ParamReader r2("my options");
    EXPECT_NO_THROW(read(r2, ok));
}

}  // namespace
}  // namespace numasim
