#include "guest/damon.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>

namespace numasim::guest {
namespace {

// The runner (100) forked a streams workload (101), which forked its instances 102 and 103 and
// waits, and an autonumabench workload (104) with no children; 1 and 50 are init and a shell.
// DAMON monitors 102, 103 and 104, the processes that own the memory.
TEST(LeafDescendants, TheWorkloadsProcesses) {
    const std::vector<std::pair<int, int>> ps = {{1, 0},     {50, 1},    {100, 50}, {101, 100},
                                                 {103, 101}, {102, 101}, {104, 100}};
    EXPECT_EQ(leaf_descendants(100, ps), (std::vector<int>{102, 103, 104}));
    EXPECT_EQ(leaf_descendants(101, ps), (std::vector<int>{102, 103}));
    EXPECT_TRUE(leaf_descendants(104, ps).empty());  // a root without children has none
}

// /proc as this test process sees it: itself, with its parent.
TEST(ProcessParents, FindsThisProcess) {
    const auto ps = process_parents();
    EXPECT_NE(std::find(ps.begin(), ps.end(), std::make_pair(int(getpid()), int(getppid()))),
              ps.end());
}

}  // namespace
}  // namespace numasim::guest
