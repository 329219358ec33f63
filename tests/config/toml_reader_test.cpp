// The strict TOML reader: units, typed getters, and error messages that name the file, the key
// path and the line.
#include "config/toml_reader.h"

#include <gtest/gtest.h>

#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <string>

#include "config/input_error.h"
#include "config/limits.h"

namespace numasim {
namespace {

// --- parse_size / parse_duration_ns ---

TEST(ParseSize, BinaryAndDecimalUnits) {
    EXPECT_EQ(parse_size("4096"), 4096u);
    EXPECT_EQ(parse_size("10B"), 10u);
    EXPECT_EQ(parse_size("4KiB"), 4096u);
    EXPECT_EQ(parse_size("1k"), 1024u);
    EXPECT_EQ(parse_size("1K"), 1024u);
    EXPECT_EQ(parse_size("1kB"), 1000u);
    EXPECT_EQ(parse_size("1KB"), 1000u);
    EXPECT_EQ(parse_size("512MiB"), 512u << 20);
    EXPECT_EQ(parse_size("3GiB"), 3ull << 30);
    EXPECT_EQ(parse_size("3G"), 3ull << 30);
    EXPECT_EQ(parse_size("2TiB"), 2ull << 40);
    EXPECT_EQ(parse_size("1.5GB"), 1500000000u);  // 1.5 * 1e9
    EXPECT_EQ(parse_size("1.5KiB"), 1536u);       // 1.5 * 1024
    EXPECT_EQ(parse_size("2 MiB"), 2u << 20);     // a space before the unit is allowed
    EXPECT_EQ(parse_size("0"), 0u);
    EXPECT_EQ(parse_size("7MB"), 7000000u);
}

TEST(ParseSize, Malformed) {
    for (const char* s :
         {"", "GiB", "-1GiB", "3XB", "1.2.3MiB", "3 GiB extra", "3gib", "abc", " 3GiB"})
        EXPECT_FALSE(parse_size(s).has_value()) << '"' << s << '"';
}

TEST(ParseDuration, Units) {
    EXPECT_EQ(parse_duration_ns("250ms"), 250'000'000);
    EXPECT_EQ(parse_duration_ns("10s"), 10'000'000'000);
    EXPECT_EQ(parse_duration_ns("2us"), 2'000);
    EXPECT_EQ(parse_duration_ns("5ns"), 5);
    EXPECT_EQ(parse_duration_ns("2min"), 120'000'000'000);
    EXPECT_EQ(parse_duration_ns("1.5"), 1'500'000'000);  // a bare number is seconds
    EXPECT_EQ(parse_duration_ns("0.5ms"), 500'000);
    EXPECT_EQ(parse_duration_ns("3 s"), 3'000'000'000);
}

TEST(ParseDuration, Malformed) {
    for (const char* s : {"", "ms", "-1s", "1h", "10 parsecs", "1.2.3s", "1e3s", "s10"})
        EXPECT_FALSE(parse_duration_ns(s).has_value()) << '"' << s << '"';
}

// --- TomlTable ---

// Line numbers matter below: keep the text exactly as laid out.
const char* const kDoc =
    "name = \"x\"\n"             // line 1
    "count = 3\n"                // line 2
    "ratio = 0.5\n"              // line 3
    "flag = true\n"              // line 4
    "size = \"2MiB\"\n"          // line 5
    "dur = \"250ms\"\n"          // line 6
    "dur_num = 1.5\n"            // line 7
    "ints = [1, 2, 3]\n"         // line 8
    "mat = [[1, 2], [3, 4]]\n"   // line 9
    "names = [\"a\", \"b\"]\n"   // line 10
    "neg = -5\n"                 // line 11
    "badsize = \"3 parsecs\"\n"  // line 12
    "\n"                         // line 13
    "[sub]\n"                    // line 14
    "key = 7\n"                  // line 15
    "extra = 1\n"                // line 16
    "\n"                         // line 17
    "[[workload]]\n"             // line 18
    "kind = \"a\"\n"             // line 19
    "\n"                         // line 20
    "[[workload]]\n"             // line 21
    "kind = \"b\"\n"             // line 22
    "threads = \"many\"\n";      // line 23

// Runs `f`, which must throw InputError, and returns it.
template <typename F>
InputError expect_input_error(F f) {
    try {
        f();
    } catch (const InputError& e) {
        return e;
    }
    ADD_FAILURE() << "no InputError thrown";
    return InputError("", "", "");
}

TEST(TomlTable, TypedGetters) {
    TomlTable t = TomlTable::parse_text(kDoc, "test.toml");
    EXPECT_EQ(t.file(), "test.toml");
    EXPECT_EQ(t.path(), "");
    EXPECT_EQ(t.get_string("name"), "x");
    EXPECT_EQ(t.get_int("count"), 3);
    EXPECT_DOUBLE_EQ(t.get_double("ratio"), 0.5);
    EXPECT_DOUBLE_EQ(t.get_double("count"), 3.0);  // integers are numbers too
    EXPECT_TRUE(t.get_bool("flag", false));
    EXPECT_EQ(t.get_size("size"), 2u << 20);
    EXPECT_EQ(t.get_size("count"), 3u);  // a bare integer is bytes
    EXPECT_EQ(t.get_duration_ns("dur"), 250'000'000);
    EXPECT_EQ(t.get_duration_ns("dur_num"), 1'500'000'000);
    EXPECT_EQ(t.get_duration_ns("count"), 3'000'000'000);  // integer seconds
    EXPECT_EQ(t.get_int_array("ints"), (std::vector<int64_t>{1, 2, 3}));
    EXPECT_EQ(t.get_double_array("ints"), (std::vector<double>{1, 2, 3}));
    EXPECT_EQ(t.get_int_matrix("mat"), (std::vector<std::vector<int64_t>>{{1, 2}, {3, 4}}));
    EXPECT_EQ(t.get_string_array("names"), (std::vector<std::string>{"a", "b"}));
    EXPECT_EQ(t.get_int("neg"), -5);
}

TEST(TomlTable, FallbacksWhenMissing) {
    TomlTable t = TomlTable::parse_text(kDoc, "test.toml");
    EXPECT_EQ(t.get_int("nope", 11), 11);
    EXPECT_DOUBLE_EQ(t.get_double("nope", 2.5), 2.5);
    EXPECT_TRUE(t.get_bool("nope", true));
    EXPECT_EQ(t.get_string("nope", "fb"), "fb");
    EXPECT_EQ(t.get_size("nope", 99), 99u);
    EXPECT_EQ(t.get_duration_ns("nope", 5), 5);
    EXPECT_FALSE(t.has("nope"));
    EXPECT_TRUE(t.has("name"));
    EXPECT_FALSE(t.table("nope").has_value());
    EXPECT_TRUE(t.tables("nope").empty());
    // A present key ignores the fallback.
    EXPECT_EQ(t.get_int("count", 11), 3);
}

TEST(TomlTable, WrongTypeNamesFileKeyAndLine) {
    TomlTable t = TomlTable::parse_text(kDoc, "test.toml");
    InputError e = expect_input_error([&] { t.get_int("name"); });
    EXPECT_EQ(e.file(), "test.toml");
    EXPECT_EQ(e.where(), "name (line 1)");
    const std::string what = e.what();
    EXPECT_NE(what.find("test.toml"), std::string::npos) << what;
    EXPECT_NE(what.find("name"), std::string::npos) << what;
    EXPECT_NE(what.find("line 1"), std::string::npos) << what;
    EXPECT_NE(what.find("expected an integer, found a string"), std::string::npos) << what;
    EXPECT_EQ(what, "test.toml: name (line 1): expected an integer, found a string");

    // A float is not an integer.
    e = expect_input_error([&] { t.get_int("ratio"); });
    EXPECT_EQ(e.where(), "ratio (line 3)");
    EXPECT_NE(std::string(e.what()).find("found a number"), std::string::npos);

    e = expect_input_error([&] { t.get_string("count"); });
    EXPECT_EQ(e.where(), "count (line 2)");
    e = expect_input_error([&] { t.get_bool("count", false); });
    EXPECT_NE(e.problem().find("true or false"), std::string::npos);
    e = expect_input_error([&] { t.get_double("flag"); });
    EXPECT_EQ(e.where(), "flag (line 4)");
    e = expect_input_error([&] { t.get_int_array("count"); });
    EXPECT_NE(e.problem().find("expected an array of integers"), std::string::npos);
    e = expect_input_error([&] { t.get_int_array("names"); });
    EXPECT_EQ(e.problem(), "element 0 is not integers");
    e = expect_input_error([&] { t.table("count"); });
    EXPECT_EQ(e.problem(), "expected a table, found an integer");
}

TEST(TomlTable, SizeAndDurationErrors) {
    TomlTable t = TomlTable::parse_text(kDoc, "test.toml");
    InputError e = expect_input_error([&] { t.get_size("neg"); });
    EXPECT_EQ(e.where(), "neg (line 11)");
    EXPECT_EQ(e.problem(), "a size cannot be negative");
    e = expect_input_error([&] { t.get_size("badsize"); });
    EXPECT_EQ(e.where(), "badsize (line 12)");
    EXPECT_NE(e.problem().find("'3 parsecs' is not a size"), std::string::npos);
    e = expect_input_error([&] { t.get_duration_ns("badsize"); });
    EXPECT_NE(e.problem().find("is not a duration"), std::string::npos);
    e = expect_input_error([&] { t.get_duration_ns("neg"); });
    EXPECT_EQ(e.problem(), "duration out of range");
    e = expect_input_error([&] { t.get_size("flag"); });
    EXPECT_EQ(e.problem(), "expected a size, found a boolean");
}

TEST(TomlTable, MissingRequiredKey) {
    TomlTable t = TomlTable::parse_text(kDoc, "test.toml");
    InputError e = expect_input_error([&] { t.get_int("nope"); });
    EXPECT_EQ(e.file(), "test.toml");
    // The root table starts on line 1.
    EXPECT_EQ(e.where(), "top level (line 1)");
    EXPECT_EQ(e.problem(), "missing required key 'nope'");
    // In a nested table the key is given with its full path and the table's line.
    auto sub = t.table("sub");
    ASSERT_TRUE(sub.has_value());
    e = expect_input_error([&] { sub->get_string("nope"); });
    EXPECT_EQ(e.problem(), "missing required key 'sub.nope'");
    EXPECT_NE(e.where().find("sub"), std::string::npos);
    EXPECT_NE(e.where().find("line 14"), std::string::npos) << e.where();
}

TEST(TomlTable, FinishRejectsUnreadKeys) {
    TomlTable t = TomlTable::parse_text("a = 1\nb = 2\ntypo = 3\nlast = 4\n", "s.toml");
    t.get_int("a");
    t.get_int("b");
    t.get_int("last");
    InputError e = expect_input_error([&] { t.finish(); });
    EXPECT_EQ(e.where(), "typo (line 3)");
    EXPECT_EQ(e.problem(), "unknown key");
    EXPECT_EQ(std::string(e.what()), "s.toml: typo (line 3): unknown key");
    // has() counts as reading: probing an optional key marks it used.
    EXPECT_TRUE(t.has("typo"));
    EXPECT_NO_THROW(t.finish());
}

TEST(TomlTable, FinishInNestedTableNamesThePath) {
    TomlTable t = TomlTable::parse_text(kDoc, "test.toml");
    auto sub = t.table("sub");
    ASSERT_TRUE(sub.has_value());
    EXPECT_EQ(sub->path(), "sub");
    EXPECT_EQ(sub->get_int("key"), 7);
    InputError e = expect_input_error([&] { sub->finish(); });
    EXPECT_EQ(e.where(), "sub.extra (line 16)");
    EXPECT_EQ(e.problem(), "unknown key");
}

TEST(TomlTable, ArraysOfTablesHaveIndexedPaths) {
    TomlTable t = TomlTable::parse_text(kDoc, "test.toml");
    auto ws = t.tables("workload");
    ASSERT_EQ(ws.size(), 2u);
    EXPECT_EQ(ws[0].path(), "workload[0]");
    EXPECT_EQ(ws[1].path(), "workload[1]");
    EXPECT_EQ(ws[1].key_path("threads"), "workload[1].threads");
    EXPECT_EQ(ws[0].get_string("kind"), "a");
    EXPECT_EQ(ws[1].get_string("kind"), "b");
    InputError e = expect_input_error([&] { ws[1].get_int("threads"); });
    EXPECT_EQ(e.where(), "workload[1].threads (line 23)");
    const std::string what = e.what();
    EXPECT_NE(what.find("test.toml"), std::string::npos);
    EXPECT_NE(what.find("workload[1].threads"), std::string::npos);
    EXPECT_NE(what.find("line 23"), std::string::npos);
    // workload[0] read everything it has; workload[1] did not read `threads` successfully but
    // the getter still marked it used, so finish() passes.
    EXPECT_NO_THROW(ws[0].finish());
    EXPECT_NO_THROW(ws[1].finish());
    // tables() of a scalar is an error naming the [[...]] syntax.
    e = expect_input_error([&] { t.tables("count"); });
    EXPECT_NE(e.problem().find("[[count]]"), std::string::npos);
}

TEST(TomlTable, SingleTableCountsAsArrayOfOne) {
    TomlTable t = TomlTable::parse_text("[workload]\nkind = \"x\"\n", "one.toml");
    auto ws = t.tables("workload");
    ASSERT_EQ(ws.size(), 1u);
    EXPECT_EQ(ws[0].path(), "workload");
    EXPECT_EQ(ws[0].get_string("kind"), "x");
}

TEST(TomlTable, KeysInFileOrder) {
    TomlTable t = TomlTable::parse_text("z = 1\na = 2\nm = 3\n", "k.toml");
    EXPECT_EQ(t.keys(), (std::vector<std::string>{"z", "a", "m"}));
}

TEST(TomlTable, ParseErrorGivesLineAndColumn) {
    InputError e = expect_input_error([] { TomlTable::parse_text("a = 1\nb = \n", "bad.toml"); });
    EXPECT_EQ(e.file(), "bad.toml");
    EXPECT_NE(e.where().find("line 2"), std::string::npos) << e.where();
    EXPECT_NE(std::string(e.what()).find("bad.toml: line 2"), std::string::npos) << e.what();
}

TEST(TomlTable, MissingFile) {
    InputError e =
        expect_input_error([] { TomlTable::parse_file("/nonexistent/dir/scenario.toml"); });
    EXPECT_EQ(e.file(), "/nonexistent/dir/scenario.toml");
    EXPECT_EQ(e.problem(), "cannot open file: No such file or directory");
}

// The shape check bounds nesting and dotted keys, and only those: numbers, strings and comments
// full of dots or brackets pass.
TEST(TomlTable, ShapeCheckCountsStructureNotText) {
    std::string floats = "x = [";
    for (int i = 0; i < 200; ++i)
        floats += "1.5, ";
    floats += "2.5]\n";
    EXPECT_NO_THROW(check_toml_shape(floats, "f.toml"));
    const std::string dots(100, '.'), brackets(100, '[');
    EXPECT_NO_THROW(check_toml_shape(
        "s = \"" + dots + brackets + "\"\n# " + dots + brackets + "\nt = '''" + brackets + "'''\n",
        "s.toml"));
    EXPECT_NO_THROW(check_toml_shape("a.\"b.c\".d = 1\n", "k.toml"));
    std::string key = "k";
    for (int i = 0; i < 40; ++i)
        key += ".k";
    InputError e = expect_input_error([&] { check_toml_shape("\n" + key + " = 1\n", "d.toml"); });
    EXPECT_EQ(e.where(), "line 2");
    EXPECT_NE(e.problem().find("more than 32 parts"), std::string::npos);
    e = expect_input_error(
        [&] { check_toml_shape("v = " + std::string(33, '[') + std::string(33, ']'), "n.toml"); });
    EXPECT_NE(e.problem().find("deeper than 32"), std::string::npos);
    EXPECT_NO_THROW(check_toml_shape("v = " + std::string(32, '[') + std::string(32, ']'), "n"));
}

TEST(TomlTable, FailHelpers) {
    TomlTable t = TomlTable::parse_text(kDoc, "test.toml");
    InputError e = expect_input_error([&] { t.fail("count", "must be even"); });
    EXPECT_EQ(std::string(e.what()), "test.toml: count (line 2): must be even");
    e = expect_input_error([&] { t.fail_here("bad table"); });
    EXPECT_EQ(e.where(), "top level (line 1)");
}

TEST(InputError, MessageFormat) {
    EXPECT_EQ(std::string(InputError("f.toml", "k", "bad").what()), "f.toml: k: bad");
    EXPECT_EQ(std::string(InputError("f.toml", "", "bad").what()), "f.toml: bad");
    EXPECT_EQ(std::string(InputError("", "k", "bad").what()), "<input>: k: bad");
}

// --- read_input_file ---

TEST(ReadInputFile, WholeFilesUpToTheLimitAndNotAByteMore) {
    // Sizes around the reader's 64 KiB chunks and the 4 MiB limit.
    std::string name = "numasim-read-input-";
    name += std::to_string(::getpid());
    const auto dir = std::filesystem::temp_directory_path() / name;
    std::filesystem::create_directories(dir);
    const size_t chunk = size_t{64} << 10;
    for (size_t n : {size_t{0}, size_t{1}, chunk - 1, chunk, chunk + 1, 3 * chunk + 7,
                     size_t{kMaxInputFileBytes}, size_t{kMaxInputFileBytes} + 1}) {
        std::string text(n, 'x');
        for (size_t i = 0; i < n; i += 997)
            text[i] = static_cast<char>('a' + i % 26);  // so that a misplaced chunk shows
        const std::string path = (dir / std::to_string(n)).string();
        std::ofstream(path, std::ios::binary) << text;
        if (n <= kMaxInputFileBytes) {
            EXPECT_EQ(read_input_file(path), text) << n << " bytes";
        } else {
            try {
                read_input_file(path);
                ADD_FAILURE() << n << " bytes were read";
            } catch (const InputError& e) {
                EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
                EXPECT_NE(std::string(e.what()).find("larger than 4 MiB"), std::string::npos);
            }
        }
    }
    std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace numasim
