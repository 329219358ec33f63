// Racing huge-page clears (mm/huge_clear.h), by hand: when two first-touch faults on one PMD
// overlap, what the window keeps, and what the losing fault counts and costs.
#include "mm/huge_clear.h"

#include <gtest/gtest.h>

#include "mm_fixture.h"

namespace numasim {
namespace {

using mmtest::World;

// A fault that began at 10 us and took 300 us populated the PMD at 310 us.
const HugeClear kClear{.first = 512, .start = 10000, .end = 310000, .owner = 7, .losers = {}};

TEST(HugeClear, TouchesInsideTheWindowRace) {
    EXPECT_TRUE(kClear.overlaps(10000));    // the same instant
    EXPECT_TRUE(kClear.overlaps(309999));   // the last ns before pmd_lock()
    EXPECT_FALSE(kClear.overlaps(310000));  // the PMD is mapped: no fault at all
    // A touch before the recorded one that would itself still be clearing at 10 us: the two
    // overlap (the earlier one really won; one of them loses either way).
    EXPECT_TRUE(kClear.overlaps(-289999));
    EXPECT_FALSE(kClear.overlaps(-290000));  // it would have populated the PMD at 10 us
}

TEST(HugeClear, PruneDropsWindowsThatEndedByTheHorizon) {
    World w;
    Mm& mm = mm_create(w.sys);
    Vma& vma = do_mmap(w.sys, mm, 4 * kPages4K.pmd_size(), VM_READ | VM_WRITE | VM_HUGEPAGE, "thp");
    Task& a = w.task_on(0);
    note_huge_clear(vma, 0, a, 0, 300000, 0);
    note_huge_clear(vma, 512, a, 300000, 300000, 0);
    ASSERT_EQ(vma.huge_clears.size(), 2u);
    EXPECT_EQ(vma.huge_clears[1].end, 600000);
    EXPECT_EQ(vma.huge_clears[1].owner, a.pid);
    prune_huge_clears(vma, 299999);  // the first still ends after the horizon
    EXPECT_EQ(vma.huge_clears.size(), 2u);
    prune_huge_clears(vma, 300000);
    ASSERT_EQ(vma.huge_clears.size(), 1u);
    EXPECT_EQ(vma.huge_clears[0].first, 512u);
    // Noting a third prunes first.
    note_huge_clear(vma, 1024, a, 700000, 300000, 600000);
    ASSERT_EQ(vma.huge_clears.size(), 1u);
    EXPECT_EQ(vma.huge_clears[0].first, 1024u);
}

TEST(HugeClear, TheLoserAllocatesClearsAndFreesAHugePage) {
    World w;
    Mm& mm = mm_create(w.sys);
    Vma& vma = do_mmap(w.sys, mm, 4 * kPages4K.pmd_size(), VM_READ | VM_WRITE | VM_HUGEPAGE, "thp");
    add_region(w.sys, vma, 0, vma.nr_pages(), "r");
    Task& a = w.task_on(0);
    Task& b = w.task_on(1);  // node 0 as well
    const uint64_t free0 = w.sys.mem.nodes[0].free_pages;
    const double win = handle_mm_fault(w.sys, a, vma, 512, true);
    const double lose = lose_huge_clear(w.sys, b, vma, 512);
    // 1700 cycles at 2.5 GHz = 680 ns, plus clearing 2 MiB at one core's streaming rate
    // (10 lines * 64 B / 90 ns: 2,097,152 bytes in 294,912 ns): the winner's cost exactly.
    EXPECT_NEAR(lose, 680.0 + 294912.0, 1e-6);
    EXPECT_DOUBLE_EQ(lose, win);
    // Both faults count pgfault and pgalloc; only the winner thp_fault_alloc; the loser's folio
    // goes back (pgfree) and the mapping keeps the winner's.
    EXPECT_EQ(w.c(Vm::pgfault), 2u);
    EXPECT_EQ(w.c(Vm::pgalloc), 1024u);
    EXPECT_EQ(w.c(Vm::pgfree), 512u);
    EXPECT_EQ(w.c(Vm::thp_fault_alloc), 1u);
    EXPECT_EQ(b.nr_faults, 1u);
    EXPECT_EQ(w.sys.mem.nodes[0].free_pages, free0 - 512);
    EXPECT_EQ(vma.present.count(0, vma.nr_pages()), 512u);
    EXPECT_EQ(mm.rss_pages, 512u);
}

}  // namespace
}  // namespace numasim
