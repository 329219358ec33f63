// The host side of `numasim calibrate --oracle`: a boot's calibrate lines become node pairs, and
// a line that lacks a figure or names a node the guest lacks is an error naming the oracle.
#include "experiment/oracle_calibrate.h"

#include <gtest/gtest.h>

#include "config/input_error.h"

namespace numasim {
namespace {

constexpr const char* kLine =
    "NUMASIM calibrate from=1 to=0 placed=0 latency_ns=131.5 latency_ns_runs=5 latency_ns_min=120 "
    "latency_ns_max=150.25 read_gbs=9.5 read_gbs_runs=5 read_gbs_min=9 read_gbs_max=10 "
    "write_gbs=4 write_gbs_runs=3 write_gbs_min=3.5 write_gbs_max=4.5\r\n";

TEST(GuestPairs, FromTheCalibrateLines) {
    const std::vector<PairMeasurement> p = guest_pairs(parse_boot_log(kLine), 2);
    ASSERT_EQ(p.size(), 1u);
    EXPECT_EQ(p[0].from, 1);
    EXPECT_EQ(p[0].to, 0);
    EXPECT_FALSE(p[0].placed);
    EXPECT_DOUBLE_EQ(p[0].latency_ns.median, 131.5);
    EXPECT_EQ(p[0].latency_ns.runs, 5);
    EXPECT_DOUBLE_EQ(p[0].latency_ns.max, 150.25);
    EXPECT_DOUBLE_EQ(p[0].read_gbs.min, 9);
    EXPECT_EQ(p[0].write_gbs.runs, 3);
    EXPECT_DOUBLE_EQ(p[0].write_gbs.median, 4);
}

std::string error_of(const std::string& console, int nodes) {
    try {
        guest_pairs(parse_boot_log(console), nodes);
    } catch (const InputError& e) {
        EXPECT_EQ(e.file(), "oracle");
        return e.problem();
    }
    return "";
}

TEST(GuestPairs, BadLinesAreErrors) {
    EXPECT_EQ(error_of(kLine, 1), "the guest measured node 1 -> node 0, but it has 1 nodes");
    std::string no_write = kLine;
    no_write.replace(no_write.find("write_gbs=4"), 11, "");
    EXPECT_EQ(error_of(no_write, 2), "the guest's calibrate line has no write_gbs");
    std::string bad = kLine;
    bad.replace(bad.find("=131.5"), 6, "=fast");
    EXPECT_EQ(error_of(bad, 2), "the guest's latency_ns is not a number: fast");
}

}  // namespace
}  // namespace numasim
