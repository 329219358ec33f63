// numad's node choice (policy/numad_pick.h, numad.c pick_numa_nodes, 20150602), worked by hand:
// the magnitudes, the distance-weighted sums that pick where to start, and the nodes taken.
#include "policy/numad_pick.h"

#include <gtest/gtest.h>

namespace numasim {
namespace {

NumadNode node(int64_t mbs_total, int64_t mbs_free, int64_t cpus_total, int64_t cpus_free,
               std::vector<int> distance) {
    return NumadNode{mbs_total, mbs_free, cpus_total, cpus_free, std::move(distance)};
}

TEST(NumadPick, MagnitudeWeighsWhatANodeCanGiveAboveWhatItHasBeyond) {
    // 2000 MB of 10000 free: (2000 * 10 + 8000 * 4) = 52000; 400 of 800 CPU: (400 * 6 + 400).
    EXPECT_EQ(numad_magnitude(2000, 400, 10000, 800), 52000u * 2800u);
    // Short of the request: all of it counts as needed, nothing as excess.
    EXPECT_EQ(numad_magnitude(15000, 400, 10000, 300), 100000u * 1800u);
}

// Two nodes of 16000 MB and 12 CPUs at SLIT 10/21; node 1 has more free of both.
std::vector<NumadNode> two_nodes() {
    return {node(16000, 10000, 1200, 800, {10, 21}), node(16000, 14000, 1200, 1000, {21, 10})};
}

TEST(NumadPick, ARequestThatFitsOneNodeGoesToTheRoomiest) {
    // Magnitudes 52000 * 2800 = 145,600,000 and (20000 + 12000 * 4) * (2400 + 600) =
    // 204,000,000; one node is needed; node 1's sum (2,040,000) beats node 0's (1,456,000).
    EXPECT_EQ(numad_pick_nodes(two_nodes(), 0b11, nullptr, 400, 2000, false, 85), 0b10u);
}

TEST(NumadPick, ARequestLargerThanTheFreeMemoryTakesTheNextNearestNode) {
    // 15000 MB: node 1 (the better start) gives 14000 - 100 (MBS_MARGIN), 1100 MB are left, so
    // node 0 is taken too: every node with memory.
    EXPECT_EQ(numad_pick_nodes(two_nodes(), 0b11, nullptr, 400, 15000, false, 85), 0b11u);
}

TEST(NumadPick, AnUnboundProcessCountsItsOwnMemoryAndCpuBackWhereTheyAre) {
    // Free 6000 MB on each node, 2 and 6 CPUs idle. The process uses 4 CPUs (400) and 4000 MB,
    // 3000 of them on node 0. Its request at 85 %: 470 CPU, 4705 MB.
    // Node 0: 6000 + 3000 * 17 / 16 = 9187 MB, 200 + 400 * 3000 / 4000 = 500 CPU;
    // node 1: 6000 + 1062 = 7062 MB, 600 + 100 = 700 CPU.
    // Magnitudes (47050 + 4482 * 4) * (2820 + 30) = 185,187,300 and
    // (47050 + 2357 * 4) * (2820 + 230) = 172,257,900: node 0, where most of its memory is,
    // although node 1 has more idle CPU.
    std::vector<NumadNode> nodes = {node(16000, 6000, 1200, 200, {10, 21}),
                                    node(16000, 6000, 1200, 600, {21, 10})};
    const NumadPickProcess p{400, 4000, {3000, 1000}, 0b11};
    EXPECT_EQ(numad_pick_nodes(nodes, 0b11, &p, 470, 4705, true, 85), 0b01u);
    // With its memory the other way round, node 1.
    const NumadPickProcess q{400, 4000, {1000, 3000}, 0b11};
    EXPECT_EQ(numad_pick_nodes(nodes, 0b11, &q, 470, 4705, true, 85), 0b10u);
}

TEST(NumadPick, TwoNodesAreTheNearestPairNotTheTwoRoomiest) {
    // Four nodes of 8000 MB and 8 CPUs in two pairs (16 within a pair, 22 across). A request of
    // 9000 MB needs two nodes. Magnitudes: nodes 0 and 1 50000 * 1400 = 70,000,000, node 2
    // 60000 * 1500 = 90,000,000, node 3 10000 * 600 = 6,000,000. Sums over each node and its
    // nearest: node 0 and node 1 700,000 + 70,000,000 / 256 = 973,437; node 2 900,000 +
    // 23,437 = 923,437; node 3 411,562. Node 0 starts (the first of the equal best); it gives
    // 4900 MB, node 1 the remaining 4100.
    std::vector<NumadNode> nodes = {
        node(8000, 5000, 800, 400, {10, 16, 22, 22}), node(8000, 5000, 800, 400, {16, 10, 22, 22}),
        node(8000, 6000, 800, 500, {22, 22, 10, 16}), node(8000, 1000, 800, 100, {22, 22, 16, 10})};
    EXPECT_EQ(numad_pick_nodes(nodes, 0b1111, nullptr, 200, 9000, false, 85), 0b0011u);
}

}  // namespace
}  // namespace numasim
