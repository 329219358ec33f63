// node_remap() as do_migrate_pages() pairs source and destination nodes (mm/migrate_syscall.h),
// worked by hand from the kernel's own examples in its comment on do_migrate_pages().
#include "mm/migrate_syscall.h"

#include <gtest/gtest.h>

namespace numasim {
namespace {

constexpr uint64_t nodes(std::initializer_list<int> ns) {
    uint64_t m = 0;
    for (int n : ns)
        m |= uint64_t{1} << n;
    return m;
}

TEST(NodeRemap, KeepsTheRelativePositionOfEachNode) {
    // [2,3,4] -> [3,4,5]: the k-th node of the one goes to the k-th of the other.
    const uint64_t from = nodes({2, 3, 4}), to = nodes({3, 4, 5});
    EXPECT_EQ(node_remap(2, from, to), 3);
    EXPECT_EQ(node_remap(3, from, to), 4);
    EXPECT_EQ(node_remap(4, from, to), 5);
}

TEST(NodeRemap, WrapsAroundAShorterDestination) {
    // [0-7] -> [3,4,5]: position 6 is 6 mod 3 = 0, node 3; position 7 node 4.
    const uint64_t from = nodes({0, 1, 2, 3, 4, 5, 6, 7}), to = nodes({3, 4, 5});
    EXPECT_EQ(node_remap(0, from, to), 3);
    EXPECT_EQ(node_remap(2, from, to), 5);
    EXPECT_EQ(node_remap(6, from, to), 3);
    EXPECT_EQ(node_remap(7, from, to), 4);
}

TEST(NodeRemap, OneSourceOneDestination) {
    // numad's calls: one node to one node.
    EXPECT_EQ(node_remap(1, nodes({1}), nodes({0})), 0);
    EXPECT_EQ(node_remap(0, nodes({0}), nodes({3})), 3);
}

}  // namespace
}  // namespace numasim
