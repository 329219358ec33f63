// The per-CPU LRU add batches (mm/lru_add.h): hand-worked examples of which new folios wait in a
// batch, when the batch moves to the LRU, and what a waiting folio means for its migration.
#include <gtest/gtest.h>

#include "kernel/invariants.h"
#include "mm/khugepaged.h"
#include "mm/lru_add.h"
#include "mm/munmap.h"
#include "mm_fixture.h"

namespace numasim {
namespace {

using mmtest::World;

struct LruAdd : ::testing::Test {
    World w;
    Mm& mm = mm_create(w.sys);
    Vma& vma = do_mmap(w.sys, mm, 2 * kPages4K.pmd_size(), VM_READ | VM_WRITE, "anon");
    Region& r = add_region(w.sys, vma, 0, vma.nr_pages(), "r");
    Task& p0 = w.task_on(0);  // node 0
    Task& p2 = w.task_on(2);  // node 1

    void SetUp() override { w.sys.knobs.pagevec_size = 15; }  // v4.15 to v6.8
    bool waits(uint64_t i) const { return vma.frame(i).flags & PF_LRU_PENDING; }
    std::string waiting(uint64_t n) const {
        std::string s;
        for (uint64_t i = 0; i < n; ++i)
            s += waits(i) ? 'W' : '.';
        return s;
    }
};

// 14 first touches on CPU 0 wait in its batch; the 15th fills it and the batch moves to the LRU
// whole; the next 3 wait again. CPU 2's batch is another.
TEST_F(LruAdd, TheBatchMovesWhenItFills) {
    for (uint64_t i = 0; i < 14; ++i)
        handle_mm_fault(w.sys, p0, vma, i, true);
    EXPECT_EQ(waiting(20), "WWWWWWWWWWWWWW......");
    EXPECT_EQ(w.sys.lru_add.batch(0).size(), 14u);
    handle_mm_fault(w.sys, p0, vma, 14, true);
    EXPECT_EQ(waiting(20), "....................");
    EXPECT_TRUE(w.sys.lru_add.batch(0).empty());
    for (uint64_t i = 15; i < 18; ++i)
        handle_mm_fault(w.sys, p0, vma, i, true);
    handle_mm_fault(w.sys, p2, vma, 18, true);
    EXPECT_EQ(waiting(20), "...............WWWW.");
    EXPECT_EQ(w.sys.lru_add.batch(0).size(), 3u);
    EXPECT_EQ(w.sys.lru_add.batch(2).size(), 1u);
    EXPECT_EQ(find_invariant_violation(w.sys), std::nullopt);
}

// A run of 40 first touches (repeat_anon_fault) after 10 single ones: of the 50 adds the batch
// moved at the 15th, 30th and 45th, so the last 5 wait, as they would one by one.
TEST_F(LruAdd, ARunLeavesWhatItsAddsOneByOneWould) {
    for (uint64_t i = 0; i < 11; ++i)
        handle_mm_fault(w.sys, p0, vma, i, true);
    repeat_anon_fault(w.sys, p0, vma, 10, 39);  // pages 11..49
    EXPECT_EQ(waiting(52), std::string(45, '.') + "WWWWW..");

    World one;  // the same adds one at a time
    one.sys.knobs.pagevec_size = 15;
    Mm& m1 = mm_create(one.sys);
    Vma& v1 = do_mmap(one.sys, m1, 2 * kPages4K.pmd_size(), VM_READ | VM_WRITE, "anon");
    Task& q = one.task_on(0);
    for (uint64_t i = 0; i < 50; ++i)
        handle_mm_fault(one.sys, q, v1, i, true);
    for (uint64_t i = 0; i < 52; ++i)
        ASSERT_EQ(v1.frame(i).flags, vma.frame(i).flags) << i;
    EXPECT_EQ(find_invariant_violation(w.sys), std::nullopt);
}

// A THP is a large folio: adding it moves the batch, the 3 base pages before it with it.
TEST_F(LruAdd, ALargeFolioMovesTheBatch) {
    Vma& thp = do_mmap(w.sys, mm, 2 * kPages4K.pmd_size(), VM_READ | VM_WRITE | VM_HUGEPAGE, "thp");
    for (uint64_t i = 0; i < 3; ++i)
        handle_mm_fault(w.sys, p0, vma, i, true);
    ASSERT_EQ(waiting(3), "WWW");
    handle_mm_fault(w.sys, p0, thp, 0, true);
    ASSERT_TRUE(thp.pmd_mapped.test(0));
    EXPECT_EQ(waiting(3), "...");
    EXPECT_FALSE(thp.frame(0).flags & PF_LRU_PENDING);
    EXPECT_TRUE(w.sys.lru_add.batch(0).empty());
}

// A page that waits cannot be isolated, so its NUMA migration fails (-EAGAIN) until its CPU's
// batch moves; the migrated page's new folio then waits in the migrating CPU's batch.
TEST_F(LruAdd, AWaitingPageDoesNotMigrate) {
    handle_mm_fault(w.sys, p0, vma, 0, true);
    EXPECT_EQ(migrate_misplaced_folio_prepare(w.sys, vma, 0, 1, 1, 0), MIGRATE_EAGAIN);
    lru_add_drain(w.sys, 0);
    ASSERT_EQ(migrate_misplaced_folio_prepare(w.sys, vma, 0, 1, 1, 0), MIGRATE_OK);
    double ns = 0;
    ASSERT_EQ(migrate_misplaced_folio(w.sys, p2, vma, 0, 1, 1, ns), MIGRATE_OK);
    EXPECT_EQ(vma.frame(0).nid, 1);
    EXPECT_TRUE(waits(0));
    ASSERT_EQ(w.sys.lru_add.batch(2).size(), 1u);
    EXPECT_EQ(w.sys.lru_add.batch(2)[0], &vma.frame(0));
    EXPECT_EQ(migrate_misplaced_folio_prepare(w.sys, vma, 0, 1, 0, 0), MIGRATE_EAGAIN);
    EXPECT_EQ(find_invariant_violation(w.sys), std::nullopt);
}

// With a batch of 1 (knob pagevec_size = 1, as lru_cache_disable()) nothing waits.
TEST_F(LruAdd, ABatchOfOneKeepsNothing) {
    w.sys.knobs.pagevec_size = 1;
    for (uint64_t i = 0; i < 4; ++i)
        handle_mm_fault(w.sys, p0, vma, i, true);
    repeat_anon_fault(w.sys, p0, vma, 3, 4);
    EXPECT_EQ(waiting(10), "..........");
    EXPECT_EQ(migrate_misplaced_folio_prepare(w.sys, vma, 0, 1, 1, 0), MIGRATE_OK);
}

// A waiting page that is freed leaves a slot in the batch (the kernel's batch holds the folio's
// reference until it moves): the batch still moves at its 15th add.
TEST_F(LruAdd, AFreedPageKeepsItsSlot) {
    Vma& other = do_mmap(w.sys, mm, kPages4K.pmd_size(), VM_READ | VM_WRITE, "other");
    for (uint64_t i = 0; i < 4; ++i)
        handle_mm_fault(w.sys, p0, other, i, true);
    do_munmap(w.sys, other);
    ASSERT_EQ(w.sys.lru_add.batch(0).size(), 4u);
    EXPECT_EQ(w.sys.lru_add.batch(0)[3], nullptr);
    EXPECT_EQ(find_invariant_violation(w.sys), std::nullopt);
    for (uint64_t i = 0; i < 10; ++i)
        handle_mm_fault(w.sys, p0, vma, i, true);
    EXPECT_EQ(waiting(11), "WWWWWWWWWW.");
    handle_mm_fault(w.sys, p0, vma, 10, true);  // the 15th add
    EXPECT_EQ(waiting(11), "...........");
    EXPECT_EQ(find_invariant_violation(w.sys), std::nullopt);
}

// After fork, the child copies page 0 (a new folio, waiting in CPU 2's batch); the parent's
// write to page 0 then reuses the old page, which moves to its private copies while it waits:
// its slot in CPU 0's batch follows it there.
TEST_F(LruAdd, AReusedPageTakesItsSlotAlong) {
    handle_mm_fault(w.sys, p0, vma, 0, true);
    Mm& child = dup_mm(w.sys, mm);
    Vma& cv = *child.vmas[0];
    ASSERT_EQ(vma.frame(0).mapcount, 2);
    do_wp_page(w.sys, p2, cv, 0);
    ASSERT_FALSE(cv.shares_object_page(0));
    EXPECT_TRUE(cv.frame(0).flags & PF_LRU_PENDING);
    do_wp_page(w.sys, p0, vma, 0);
    ASSERT_FALSE(vma.shares_object_page(0));
    EXPECT_TRUE(waits(0));
    ASSERT_EQ(w.sys.lru_add.batch(0).size(), 1u);
    EXPECT_EQ(w.sys.lru_add.batch(0)[0], &vma.frame(0));
    EXPECT_FALSE(vma.object->frames[0].flags & PF_LRU_PENDING);
    EXPECT_EQ(find_invariant_violation(w.sys), std::nullopt);
}

// khugepaged: an mm that maps a THP-eligible anonymous VMA joins its list, a fork's child
// joins with its parent, and while the list holds an mm every pass (due at once, then every
// 10 s) moves every CPU's batch. Without such an mm, batches stay as they are.
TEST_F(LruAdd, KhugepagedMovesEveryBatchOnEachPass) {
    for (uint64_t i = 0; i < 3; ++i)
        handle_mm_fault(w.sys, p0, vma, i, true);
    handle_mm_fault(w.sys, p2, vma, 3, true);
    khugepaged_tick(w.sys);  // no THP-eligible VMA anywhere: khugepaged has nothing to do
    EXPECT_EQ(waiting(4), "WWWW");
    EXPECT_EQ(w.sys.khugepaged_mms, 0);

    do_mmap(w.sys, mm, 2 * kPages4K.pmd_size(), VM_READ | VM_WRITE | VM_HUGEPAGE, "thp");
    EXPECT_TRUE(mm.khugepaged_listed);
    Mm& child = dup_mm(w.sys, mm);
    EXPECT_TRUE(child.khugepaged_listed);
    EXPECT_EQ(w.sys.khugepaged_mms, 2);

    w.sys.now = msecs_to_ns(4);
    khugepaged_tick(w.sys);  // the first pass: due at once
    EXPECT_EQ(waiting(4), "....");
    EXPECT_TRUE(w.sys.lru_add.batch(0).empty());
    EXPECT_TRUE(w.sys.lru_add.batch(2).empty());
    EXPECT_EQ(w.sys.khugepaged_next_pass, msecs_to_ns(4) + KHUGEPAGED_SCAN_SLEEP_NS);

    handle_mm_fault(w.sys, p0, vma, 4, true);
    w.sys.now = msecs_to_ns(10003);  // still asleep
    khugepaged_tick(w.sys);
    EXPECT_TRUE(waits(4));
    w.sys.now = msecs_to_ns(10004);  // the sleep is over
    khugepaged_tick(w.sys);
    EXPECT_FALSE(waits(4));
    EXPECT_EQ(find_invariant_violation(w.sys), std::nullopt);
    ++w.sys.khugepaged_mms;  // a list count that no longer matches the mms is caught
    const auto broken = find_invariant_violation(w.sys);
    ASSERT_TRUE(broken.has_value());
    EXPECT_NE(broken->find("khugepaged"), std::string::npos) << *broken;
}

}  // namespace
}  // namespace numasim
