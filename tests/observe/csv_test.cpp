// CsvWriter output read back through CsvReader.
#include "observe/csv.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <sstream>
#include <string>

#include "config/input_error.h"
#include "support/stdio_text.h"

namespace numasim {
namespace {

std::string written(const std::function<void(CsvWriter&)>& body) {
    return test::stdio_text([&](std::FILE* f) {
        CsvWriter w(f, {"numasim: test", "seed: 7"}, {"time_s", "name", "value"});
        body(w);
    });
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

// The rows the reader has not yet returned.
std::vector<std::vector<std::string>> rows_of(CsvReader& r) {
    std::vector<std::vector<std::string>> rows;
    for (std::vector<std::string> cells; r.next(cells);)
        rows.push_back(cells);
    return rows;
}

TEST(Csv, QuotedCellsRoundTrip) {
    const std::string s = written([](CsvWriter& w) {
        w.fixed(0.004, 3).text("say \"hi\", twice").num(int64_t{-3});
        w.end_row();
        w.fixed(0.5, 3).text("two\nlines").empty();
        w.end_row();
    });
    std::istringstream in(s);
    CsvReader r(in, "t.csv");
    ASSERT_EQ(r.columns(), (std::vector<std::string>{"time_s", "name", "value"}));
    const auto rows = rows_of(r);
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_EQ(rows[0][1], "say \"hi\", twice");
    EXPECT_EQ(rows[0][2], "-3");
    EXPECT_EQ(rows[1], (std::vector<std::string>{"0.500", "two\nlines", ""}));
}

TEST(Csv, CommentLinesAnywhereAreSkipped) {
    std::istringstream in("# a\n# b\nx,y\n1,2\n# c\n3,4");
    CsvReader r(in, "t.csv");
    EXPECT_EQ(r.columns(), (std::vector<std::string>{"x", "y"}));
    EXPECT_EQ(rows_of(r), (std::vector<std::vector<std::string>>{{"1", "2"}, {"3", "4"}}));
}

TEST(Csv, RowOfTheWrongWidthNamesFileAndLine) {
    // The line counts comments and the line breaks inside quoted cells.
    std::istringstream in("# c\na,b\n\"1\n\",2\n# d\n3\n");
    CsvReader r(in, "x.csv");
    std::vector<std::string> cells;
    ASSERT_TRUE(r.next(cells));
    try {
        r.next(cells);
        FAIL() << "no error";
    } catch (const InputError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("x.csv"), std::string::npos) << what;
        EXPECT_NE(what.find("line 6"), std::string::npos) << what;
    }
}

}  // namespace
}  // namespace numasim
