// validate --uncertainty's columns in the validation report (report/validation_report.h).
#include <gtest/gtest.h>

#include <string>

#include "report/validation_report.h"

namespace numasim {
namespace {

EffectResult change_row(const std::string& expect = "sign") {
    EffectResult r;
    r.experiment = std::string("experiment");
    r.name = std::string("elapsed falls");
    r.expect = expect;
    r.has_published = true;
    r.published_from = 100;
    r.published_to = 80;
    r.sim_from = 100;
    r.sim_to = 90;
    r.pass = true;
    return r;
}

TEST(ValidationSpread, WithoutDrawsTheReportHasNoRangeColumns) {
    const std::string s = validation_text({change_row()});
    EXPECT_EQ(s.find("predicted range"), std::string::npos) << s;
    EXPECT_NE(s.find("(-10.0%)           pass\n"), std::string::npos) << s;
}

TEST(ValidationSpread, EachRowGetsItsRangeAndWhetherThePublishedLiesInside) {
    EffectResult in = change_row(), out = change_row(), absolute = change_row("in_range"),
                 plain = change_row();
    in.has_spread = out.has_spread = absolute.has_spread = true;
    in.spread_lo = -25;
    in.spread_hi = -5.5;
    in.published_inside = true;  // -20 % is inside
    out.spread_lo = -12;
    out.spread_hi = -8;
    absolute.spread_lo = 12;
    absolute.spread_hi = 16.5;
    absolute.published_inside = true;
    plain.pass = false;  // a row without draws (a group summary, a sweep)
    const std::string s = validation_text({in, out, absolute, plain});
    EXPECT_NE(s.find("result            predicted range            published inside\n"),
              std::string::npos)
        << s;
    EXPECT_NE(s.find("pass              -25.0% .. -5.5%            yes\n"), std::string::npos) << s;
    EXPECT_NE(s.find("pass              -12.0% .. -8.0%            no\n"), std::string::npos) << s;
    EXPECT_NE(s.find("pass              12 .. 16.50                yes\n"), std::string::npos) << s;
    EXPECT_NE(s.find("MISS              -                          -\n"), std::string::npos) << s;
}

}  // namespace
}  // namespace numasim
