// mmtests' numa-convergence window, worked by hand from MonitorNumaconvergence.pm.
#include "observe/mmtests_views.h"

#include <gtest/gtest.h>

namespace numasim {
namespace {

TEST(MmtestsConvergence, StartsAllLocal) {
    MmtestsConvergence c;
    EXPECT_DOUBLE_EQ(c.current(), 1.0);
}

TEST(MmtestsConvergence, FirstNonZeroReadingOnlySetsTheBaseline) {
    MmtestsConvergence c;
    c.read(0, 0);
    c.read(1000, 0);  // the previous reading was 0: no delta, as in the Perl
    EXPECT_DOUBLE_EQ(c.current(), 1.0);
    // 20000 more faults, 10000 of them local: 100 remote and 100 local slots of 100 faults.
    c.read(21000, 10000);
    EXPECT_DOUBLE_EQ(c.current(), (20000.0 - 100.0) / 20000.0);
}

TEST(MmtestsConvergence, WindowForgetsOldFaults) {
    MmtestsConvergence c;
    c.read(1, 0);
    // Two million remote faults fill the whole window with remote slots ...
    c.read(1 + 2000000, 0);
    EXPECT_DOUBLE_EQ(c.current(), 0.0);
    // ... and a million local ones replace half of them.
    c.read(1 + 3000000, 1000000);
    EXPECT_DOUBLE_EQ(c.current(), 0.5);
}

TEST(MmtestsScheduling, HeaderHasOneColumnPerNode) {
    EXPECT_EQ(numa_scheduling_header(2),
              "  PID   TID NAME              CPU  RN  C0 C1   N0   N1\n");
}

}  // namespace
}  // namespace numasim
