// compare --uncertainty N and validate --uncertainty [N] from the command line.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <regex>
#include <string>

#include "numasim_process.h"

namespace {

using numasim::test::Output;
using numasim::test::run_numasim;

constexpr const char* kCompare =
    "compare examples/variants.toml --iterations 1 --duration 3s -V base:profile=v6.12 "
    "-V old:profile=v6.1 -j 2";

// The tables are the ordinary comparison's, byte for byte, and the uncertainty section after
// them gives each row a range that holds the nominal effect (draw 0 is the published figures).
TEST(UncertaintyCli, CompareAddsRangesThatHoldTheNominalEffect) {
    const Output plain = run_numasim(kCompare);
    const Output o = run_numasim(std::string(kCompare) + " --uncertainty 3");
    ASSERT_EQ(plain.status, 0) << plain.out;
    ASSERT_EQ(o.status, 0) << o.out;
    ASSERT_EQ(o.out.substr(0, plain.out.size()), plain.out);
    const std::string tail = o.out.substr(plain.out.size());
    EXPECT_NE(tail.find("Uncertainty: change of the mean across 3 draw(s)"), std::string::npos)
        << tail;
    const std::regex row(
        R"re(\n(\S+) \(old\) +([-+0-9.]+)% +([-+0-9.]+)% +([-+0-9.]+)% +([-+0-9.]+)% +(yes|no))re");
    int rows = 0;
    for (std::sregex_iterator it(tail.begin(), tail.end(), row), end; it != end; ++it) {
        const double nominal = std::stod((*it)[2]), lo = std::stod((*it)[3]),
                     median = std::stod((*it)[4]), hi = std::stod((*it)[5]);
        EXPECT_LE(lo, nominal) << (*it)[0];
        EXPECT_LE(nominal, hi) << (*it)[0];
        EXPECT_LE(lo, median) << (*it)[0];
        EXPECT_LE(median, hi) << (*it)[0];
        ++rows;
    }
    EXPECT_GT(rows, 0) << tail;
}

TEST(UncertaintyCli, CompareJsonHasTheSpreads) {
    const Output o = run_numasim(std::string(kCompare) + " --uncertainty 2 --json");
    ASSERT_EQ(o.status, 0) << o.out;
    const auto j = nlohmann::json::parse(o.out);
    EXPECT_EQ(j["uncertainty"]["draws"], 2);
    ASSERT_FALSE(j["uncertainty"]["effects"].empty());
    const auto& e = j["uncertainty"]["effects"][0];
    EXPECT_EQ(e["from"], "base");
    EXPECT_EQ(e["to"], "old");
    EXPECT_LE(e["change_pct"]["min"].get<double>(), e["change_pct"]["nominal"].get<double>());
    EXPECT_TRUE(e["sign_holds"].is_boolean());
}

// Each effect gets its predicted range; the columns before it are validate's own, and the
// draws come out the same whatever the number of workers.
TEST(UncertaintyCli, ValidateAddsThePredictedRange) {
    const std::string v = "validate --quick --only cow-skip-cowsum";
    const Output plain = run_numasim(v + " -j 2");
    const Output one = run_numasim(v + " --uncertainty 3 -j 1");
    const Output two = run_numasim(v + " --uncertainty 3 -j 2");
    ASSERT_EQ(plain.status, 0) << plain.out;
    ASSERT_EQ(one.status, 0) << one.out;
    EXPECT_EQ(one.out, two.out);
    EXPECT_EQ(plain.out.find("predicted range"), std::string::npos);
    EXPECT_NE(one.out.find("predicted range            published inside\n"), std::string::npos)
        << one.out;
    // Every row of the plain report starts a row of this one.
    size_t rows = 0;
    for (size_t at = plain.out.find('\n') + 1; at < plain.out.size(); ++rows) {
        const size_t end = plain.out.find('\n', at);
        const std::string row = plain.out.substr(at, end - at);
        EXPECT_NE(one.out.find(row), std::string::npos) << row;
        at = end + 1;
    }
    EXPECT_GT(rows, 0u);
    const std::regex range(R"re(([-+0-9.]+)% \.\. ([-+0-9.]+)% +(yes|no|-)\n)re");
    std::smatch m;
    ASSERT_TRUE(std::regex_search(one.out, m, range)) << one.out;
    EXPECT_LE(std::stod(m[1]), std::stod(m[2]));
}

TEST(UncertaintyCli, ADrawCountOutOfBoundsIsABadInput) {
    for (const char* bad : {"0", "1001", "-3"}) {
        const Output o = run_numasim(std::string(kCompare) + " --uncertainty " + bad);
        EXPECT_EQ(o.status, 2) << bad;
        EXPECT_NE(o.out.find("--uncertainty"), std::string::npos) << o.out;
    }
    for (const char* bad : {"0", "1001", "x"}) {
        const Output o = run_numasim(std::string("validate --quick --uncertainty=") + bad);
        EXPECT_EQ(o.status, 2) << bad;
        EXPECT_EQ(o.out.rfind("numasim: error: --uncertainty", 0), 0u) << o.out;
    }
}

}  // namespace
