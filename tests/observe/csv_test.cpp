// CsvWriter output read back through parse_csv.
#include "observe/csv.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "config/input_error.h"

namespace numasim {
namespace {

std::string written(const std::function<void(CsvWriter&)>& body) {
    std::FILE* f = std::tmpfile();
    {
        CsvWriter w(f, {"numasim: test", "seed: 7"}, {"time_s", "name", "value"});
        body(w);
    }
    std::rewind(f);
    std::string s;
    for (int c; (c = std::fgetc(f)) != EOF;)
        s += static_cast<char>(c);
    std::fclose(f);
    return s;
}

TEST(Csv, CommentsThenHeaderThenRows) {
    const std::string s = written([](CsvWriter& w) {
        w.fixed(1.0, 3).text("plain").num(uint64_t{42});
        w.end_row();
        w.fixed(2.5, 3).text("a,b").empty();
        w.end_row();
    });
    EXPECT_EQ(s,
              "# numasim: test\n# seed: 7\ntime_s,name,value\n1.000,plain,42\n"
              "2.500,\"a,b\",\n");
}

TEST(Csv, QuotedCellsRoundTrip) {
    const std::string s = written([](CsvWriter& w) {
        w.fixed(0.004, 3).text("say \"hi\", twice").num(int64_t{-3});
        w.end_row();
    });
    const CsvTable t = parse_csv(s, "t.csv");
    ASSERT_EQ(t.columns, (std::vector<std::string>{"time_s", "name", "value"}));
    ASSERT_EQ(t.rows.size(), 1u);
    EXPECT_EQ(t.rows[0][1], "say \"hi\", twice");
    EXPECT_EQ(t.rows[0][2], "-3");
    EXPECT_EQ(t.column("value"), 2);
    EXPECT_EQ(t.column("missing"), -1);
}

TEST(Csv, RowOfTheWrongWidthNamesFileAndLine) {
    try {
        parse_csv("# c\na,b\n1,2\n3\n", "x.csv");
        FAIL() << "no error";
    } catch (const InputError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("x.csv"), std::string::npos) << what;
        EXPECT_NE(what.find("line 4"), std::string::npos) << what;
    }
}

}  // namespace
}  // namespace numasim
