// node_remap() as do_migrate_pages() pairs source and destination nodes (mm/migrate_syscall.h),
// worked by hand from the kernel's own examples in its comment on do_migrate_pages().
#include "mm/migrate_syscall.h"

#include <gtest/gtest.h>

#include "mm/lru_add.h"
#include "mm_fixture.h"
#include "trace_lines.h"

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

// migrate_pages(2) of a process with 4 pages on node 0 and 2 on node 1, from {0} to {1} (as
// numad makes it): migrate_to_node() for the source, one migrate_pages() call (MIGRATE_SYNC,
// MR_SYSCALL) in the caller's context, counted in mm_migrate_pages.
TEST(DoMigratePages, EachSourceIsOneMigratePagesCallInTheCallersContext) {
    mmtest::World w;
    w.sys.set_kernel_release("v6.6");
    Mm& mm = mm_create(w.sys);
    Vma& v = do_mmap(w.sys, mm, 6 * kPages4K.size(), VM_READ | VM_WRITE, "anon");
    for (uint64_t i = 0; i < 6; ++i)
        handle_mm_fault(w.sys, w.task_on(i < 4 ? 0 : w.sys.topo.nodes[1].cpus.front()), v, i, true);
    lru_add_drain_all(w.sys);
    ASSERT_EQ(v.frame(4).nid, 1);
    Task numad;
    numad.pid = numad.tgid = 900;
    numad.comm = "numad";
    mmtest::TraceLines sink;
    w.sys.tracer.attach(&sink, kEveryTraceEvent, w.sys.nr_cpus());
    double kernel_ns = 0;
    EXPECT_EQ(do_migrate_pages(w.sys, mm, nodes({0}), nodes({1}), 0, kernel_ns, &numad), 0u);
    w.sys.tracer.flush();
    EXPECT_EQ(w.sys.counters.mm_migrate_pages, 1u);
    for (uint64_t i = 0; i < 6; ++i)
        EXPECT_EQ(v.frame(i).nid, 1) << i;
    const std::string mode = "mode=MIGRATE_SYNC reason=syscall_or_cpuset";
    const std::vector<std::string> want = {
        "mm_migrate_pages_start: " + mode,
        "mm_migrate_pages: nr_succeeded=4 nr_failed=0 nr_thp_succeeded=0 nr_thp_failed=0 "
        "nr_thp_split=0 " +
            mode};
    EXPECT_EQ(sink.lines, want);
    for (const std::string& ctx : sink.contexts)
        EXPECT_EQ(ctx, "numad-900");
    // A source with nothing left to move makes no call.
    EXPECT_EQ(do_migrate_pages(w.sys, mm, nodes({0}), nodes({1}), 0, kernel_ns, &numad), 0u);
    EXPECT_EQ(w.sys.counters.mm_migrate_pages, 1u);
    w.sys.tracer.attach(nullptr, 0, 0);
}

}  // namespace
}  // namespace numasim
