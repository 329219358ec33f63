// First touch (base pages and THP), misplaced-folio migration, fork/COW sharing, file-backed
// mappings shared by several processes, and the host memory cost per simulated page.
#include <gtest/gtest.h>

#include "cost/constants.h"
#include "kernel/invariants.h"
#include "mm/munmap.h"
#include "mm_fixture.h"

namespace numasim {
namespace {

using mmtest::World;

// --- first touch ---

TEST(FirstTouch, BasePageOnTheFaultingNode) {
    World w;
    Mm& mm = mm_create(w.sys);
    Vma& vma = do_mmap(w.sys, mm, 16 * kPages4K.size(), VM_READ | VM_WRITE, "anon");
    Region& r = add_region(w.sys, vma, 0, 16, "r");
    Task& p = w.task_on(3);  // node 1
    const double ns = handle_mm_fault(w.sys, p, vma, 5, true);
    EXPECT_TRUE(vma.present.test(5));
    EXPECT_EQ(vma.present.count(0, 16), 1u);
    EXPECT_EQ(vma.frame(5).nid, 1);
    EXPECT_EQ(vma.frame(5).mapcount, 1);
    // The new page waits in CPU 3's LRU add batch (mm/lru_add.h).
    EXPECT_EQ(vma.frame(5).flags, PF_ALLOC | PF_LRU_PENDING);
    EXPECT_EQ(r.present, 1u);
    EXPECT_EQ(r.pages_on(1), 1u);
    EXPECT_EQ(w.c(Vm::pgfault), 1u);
    EXPECT_EQ(w.c(Vm::pgalloc), 1u);
    EXPECT_EQ(w.c(Vm::thp_fault_alloc), 0u);
    EXPECT_EQ(p.nr_faults, 1u);
    // 1700 cycles at 2.5 GHz = 680 ns, plus clearing the page at one core's streaming rate
    // (clear_ns: 10 lines * 64 B / 90 ns = 7.111 GB/s: 4096 bytes in 576 ns).
    EXPECT_NEAR(ns, 680.0 + 576.0, 1e-6);
}

TEST(FirstTouch, ThpAllocatesA512PageBlock) {
    World w;
    Mm& mm = mm_create(w.sys);
    Vma& vma = do_mmap(w.sys, mm, 4 * kPages4K.pmd_size(), VM_READ | VM_WRITE | VM_HUGEPAGE, "thp");
    ASSERT_EQ(vma.start % kPages4K.pmd_size(), 0u);
    Region& r = add_region(w.sys, vma, 0, vma.nr_pages(), "r");
    Task& p = w.task_on(0);
    handle_mm_fault(w.sys, p, vma, 700, true);  // inside block 1: pages 512..1023
    EXPECT_EQ(vma.present.count(0, vma.nr_pages()), 512u);
    EXPECT_EQ(vma.present.find_next(0, vma.nr_pages()), 512u);
    EXPECT_TRUE(vma.pmd_mapped.test(1));
    EXPECT_FALSE(vma.pmd_mapped.test(0));
    for (uint64_t i = 512; i < 1024; ++i) {
        ASSERT_EQ(vma.frame(i).flags, PF_ALLOC | PF_THP) << i;
        ASSERT_EQ(vma.frame(i).nid, 0);
    }
    EXPECT_EQ(w.c(Vm::thp_fault_alloc), 1u);
    EXPECT_EQ(w.c(Vm::pgalloc), 512u);
    EXPECT_EQ(w.c(Vm::numa_hit), 1u);  // one allocation call
    EXPECT_EQ(w.c(Vm::pgfault), 1u);
    EXPECT_EQ(r.pages_on(0), 512u);
    EXPECT_EQ(w.sys.mem.nodes[0].free_pages, w.sys.mem.nodes[0].present_pages - 512);
}

// __split_huge_pmd_locked makes the new PTEs from the VMA's protection, so a PROT_NONE PMD's
// hint does not reach them. Blocks 0 and 1 are PMD-mapped THPs; block 0 is PROT_NONE as a
// whole (change_prot_numa's huge path), block 1 is split first and then 10 of its PTEs are
// made PROT_NONE.
//   1. Splitting block 0 maps it with 512 accessible PTEs: its hint is gone, the region counts
//      no PROT_NONE page.
//   2. Splitting block 1 again is no split at all (it is mapped with PTEs already): its 10 PTE
//      hints stay.
TEST(SplitHugePmd, APmdHintDoesNotReachThePtes) {
    World w;
    Mm& mm = mm_create(w.sys);
    Vma& vma = do_mmap(w.sys, mm, 2 * kPages4K.pmd_size(), VM_READ | VM_WRITE | VM_HUGEPAGE, "thp");
    Region& r = add_region(w.sys, vma, 0, vma.nr_pages(), "r");
    Task& p = w.task_on(0);
    handle_mm_fault(w.sys, p, vma, 0, true);
    handle_mm_fault(w.sys, p, vma, 512, true);
    ASSERT_TRUE(vma.pmd_mapped.test(0));
    ASSERT_TRUE(vma.pmd_mapped.test(1));
    vma.protnone.set_range(0, 512);
    account_region_protnone(vma, 0, 512, +1);
    split_huge_pmd(vma, 512);
    vma.protnone.set_range(600, 610);
    account_region_protnone(vma, 600, 10, +1);
    ASSERT_EQ(r.protnone, 522u);

    split_huge_pmd(vma, 100);
    EXPECT_FALSE(vma.pmd_mapped.test(0));
    EXPECT_EQ(vma.protnone.count(0, 512), 0u);
    EXPECT_EQ(r.protnone, 10u);

    split_huge_pmd(vma, 605);
    EXPECT_EQ(vma.protnone.count(512, 1024), 10u);
    EXPECT_EQ(r.protnone, 10u);
    EXPECT_EQ(find_invariant_violation(w.sys), std::nullopt);
}

TEST(FirstTouch, NoThpWithoutVmHugepageOrAPartialBlock) {
    World w;
    Mm& mm = mm_create(w.sys);
    Vma& plain = do_mmap(w.sys, mm, 2 * kPages4K.pmd_size(), VM_READ | VM_WRITE, "plain");
    Task& p = w.task_on(0);
    handle_mm_fault(w.sys, p, plain, 3, true);
    EXPECT_EQ(plain.present.count(0, plain.nr_pages()), 1u);
    // 3 MiB with THP allowed: block 1 (pages 512..1023) is not wholly inside the 768 pages.
    Vma& part =
        do_mmap(w.sys, mm, 3 * kPages4K.pmd_size() / 2, VM_READ | VM_WRITE | VM_HUGEPAGE, "p");
    handle_mm_fault(w.sys, p, part, 600, true);
    EXPECT_EQ(part.present.count(0, part.nr_pages()), 1u);
    EXPECT_EQ(w.c(Vm::thp_fault_alloc), 0u);
    // Block 0 is whole: a THP; afterwards a block with a present page gets base pages.
    handle_mm_fault(w.sys, p, part, 0, true);
    EXPECT_EQ(w.c(Vm::thp_fault_alloc), 1u);
    EXPECT_EQ(part.present.count(0, part.nr_pages()), 513u);
}

// --- migration ---

struct Migrate : ::testing::Test {
    World w;
    Mm& mm = mm_create(w.sys);
    Vma& vma = do_mmap(w.sys, mm, 2 * kPages4K.pmd_size(), VM_READ | VM_WRITE, "anon");
    Region& r = add_region(w.sys, vma, 0, vma.nr_pages(), "r");
    Task& p0 = w.task_on(0);
    Task& p2 = w.task_on(2);
    NodeMemory& n0 = w.sys.mem.nodes[0];
    NodeMemory& n1 = w.sys.mem.nodes[1];
    void SetUp() override {
        for (uint64_t i = 0; i < 4; ++i)
            handle_mm_fault(w.sys, p0, vma, i, true);
        // On the LRU, so that they can be isolated (LruAdd below tests the batch).
        lru_add_drain(w.sys, p0.cpu);
        ASSERT_EQ(r.pages_on(0), 4u);
    }
};

TEST_F(Migrate, BasePageMovesAndIsCounted) {
    const uint64_t free0 = n0.free_pages, free1 = n1.free_pages;
    EXPECT_EQ(migrate_misplaced_folio_prepare(w.sys, vma, 2, 1, 1, 0), MIGRATE_OK);
    double kns = 0;
    EXPECT_EQ(migrate_misplaced_folio(w.sys, p2, vma, 2, 1, 1, kns), MIGRATE_OK);
    EXPECT_EQ(vma.frame(2).nid, 1);
    EXPECT_EQ(w.c(Vm::pgmigrate_success), 1u);
    EXPECT_EQ(w.c(Vm::numa_pages_migrated), 1u);
    EXPECT_EQ(w.c(Vm::pgmigrate_fail), 0u);
    EXPECT_EQ(w.sys.counters.mm_migrate_pages, 1u);
    EXPECT_EQ(r.pages_on(0), 3u);
    EXPECT_EQ(r.pages_on(1), 1u);
    EXPECT_EQ(r.present, 4u);
    EXPECT_EQ(n0.free_pages, free0 + 1);
    EXPECT_EQ(n1.free_pages, free1 - 1);
    EXPECT_EQ(w.c(Vm::pgfree), 1u);
    // Kernel time: 9000 ns fixed + copy of 4096 bytes from node 0 to node 1 at
    // 10 * 64 B / 140 ns * 0.5 = 2.2857 GB/s -> 1792 ns.
    EXPECT_NEAR(kns, 9000.0 + 1792.0, 1e-6);
}

TEST_F(Migrate, FailsBelowTheTargetsHighWatermark) {
    n1.free_pages = n1.wmark_high;  // free - 1 < high
    EXPECT_EQ(migrate_misplaced_folio_prepare(w.sys, vma, 2, 1, 1, 0), MIGRATE_EAGAIN);
    const auto before = w.sys.counters.vm;
    double kns = 0;
    EXPECT_EQ(migrate_misplaced_folio(w.sys, p2, vma, 2, 1, 1, kns), MIGRATE_EAGAIN);
    EXPECT_EQ(vma.frame(2).nid, 0);
    EXPECT_EQ(w.c(Vm::pgmigrate_fail), 1u);
    EXPECT_EQ(w.c(Vm::pgmigrate_success), 0u);
    EXPECT_EQ(w.c(Vm::numa_pages_migrated), 0u);
    EXPECT_EQ(w.c(Vm::pgalloc), before[static_cast<size_t>(Vm::pgalloc)]);
    EXPECT_EQ(r.pages_on(0), 4u);
    EXPECT_EQ(r.pages_on(1), 0u);
    EXPECT_EQ(n1.free_pages, n1.wmark_high);
    EXPECT_NEAR(kns, 900.0, 1e-9);  // a tenth of the fixed overhead
    // One page more and it fits: prepare and the allocation agree on the boundary.
    n1.free_pages = n1.wmark_high + 1;
    EXPECT_EQ(migrate_misplaced_folio_prepare(w.sys, vma, 2, 1, 1, 0), MIGRATE_OK);
    EXPECT_EQ(migrate_misplaced_folio(w.sys, p2, vma, 2, 1, 1, kns), MIGRATE_OK);
}

TEST(MigrateThp, WholeFolioMoves) {
    World w;
    Mm& mm = mm_create(w.sys);
    Vma& vma = do_mmap(w.sys, mm, kPages4K.pmd_size(), VM_READ | VM_WRITE | VM_HUGEPAGE, "thp");
    Region& r = add_region(w.sys, vma, 0, vma.nr_pages(), "r");
    Task& p0 = w.task_on(0);
    handle_mm_fault(w.sys, p0, vma, 0, true);
    ASSERT_EQ(w.c(Vm::thp_fault_alloc), 1u);
    double kns = 0;
    EXPECT_EQ(migrate_misplaced_folio(w.sys, p0, vma, 0, kPages4K.pmd_nr(), 1, kns), MIGRATE_OK);
    EXPECT_EQ(w.c(Vm::thp_migration_success), 1u);
    EXPECT_EQ(w.c(Vm::pgmigrate_success), 512u);
    EXPECT_EQ(w.c(Vm::numa_pages_migrated), 512u);
    EXPECT_EQ(r.pages_on(1), 512u);
    EXPECT_EQ(r.pages_on(0), 0u);
    for (uint64_t i = 0; i < 512; ++i)
        ASSERT_EQ(vma.frame(i).nid, 1);
    // Failure of a THP counts 512 failed base pages and one THP failure.
    w.sys.mem.nodes[0].free_pages = 100;
    EXPECT_EQ(migrate_misplaced_folio(w.sys, p0, vma, 0, kPages4K.pmd_nr(), 0, kns),
              MIGRATE_EAGAIN);
    EXPECT_EQ(w.c(Vm::pgmigrate_fail), 512u);
    EXPECT_EQ(w.c(Vm::thp_migration_fail), 1u);
}

// --- fork and copy-on-write ---

struct Fork : ::testing::Test {
    World w;
    Mm& parent = mm_create(w.sys);
    Vma& pv = do_mmap(w.sys, parent, 8 * kPages4K.size(), VM_READ | VM_WRITE, "heap");
    Task& pt = w.task_on(0);
    Task& ct = w.task_on(2);  // the child runs on node 1
    void SetUp() override {
        add_region(w.sys, pv, 0, 8, "heap");
        for (uint64_t i = 0; i < 8; ++i)
            handle_mm_fault(w.sys, pt, pv, i, true);
    }
};

TEST_F(Fork, DupMmSharesFramesWithMapcountTwo) {
    Mm& child = dup_mm(w.sys, parent);
    ASSERT_EQ(child.vmas.size(), 1u);
    Vma& cv = *child.vmas[0];
    EXPECT_EQ(cv.start, pv.start);
    EXPECT_EQ(cv.object, pv.object);
    EXPECT_EQ(pv.object->mappers.size(), 2u);
    EXPECT_EQ(cv.present.count(0, 8), 8u);
    for (uint64_t i = 0; i < 8; ++i) {
        EXPECT_EQ(&cv.frame(i), &pv.frame(i)) << i;
        EXPECT_EQ(pv.frame(i).mapcount, 2) << i;
        EXPECT_TRUE(cv.shares_object_page(i));
    }
    // The child's region was duplicated by name with the same per-node totals.
    Region* cr = find_region(child, "heap");
    ASSERT_NE(cr, nullptr);
    EXPECT_EQ(cr->vma, &cv);
    EXPECT_EQ(cr->present, 8u);
    EXPECT_EQ(cr->pages_on(0), 8u);
    // Forking allocated nothing.
    EXPECT_EQ(w.c(Vm::pgalloc), 8u);
}

TEST_F(Fork, ChildWriteCopiesOnlyThatPage) {
    Mm& child = dup_mm(w.sys, parent);
    Vma& cv = *child.vmas[0];
    Region* cr = find_region(child, "heap");
    const uint64_t faults = w.c(Vm::pgfault);
    const double ns = do_wp_page(w.sys, ct, cv, 3);
    EXPECT_GT(ns, 0.0);
    EXPECT_EQ(w.c(Vm::pgfault), faults + 1);
    EXPECT_EQ(w.c(Vm::pgalloc), 9u);
    EXPECT_FALSE(cv.shares_object_page(3));
    EXPECT_NE(&cv.frame(3), &pv.frame(3));
    EXPECT_EQ(cv.frame(3).mapcount, 1);
    EXPECT_EQ(cv.frame(3).nid, 1);  // the copy is allocated where the child runs
    EXPECT_EQ(pv.frame(3).mapcount, 1);
    EXPECT_EQ(pv.frame(3).nid, 0);
    // The child's region moved its page 3 from node 0 to node 1; the parent's is unchanged.
    EXPECT_EQ(cr->pages_on(0), 7u);
    EXPECT_EQ(cr->pages_on(1), 1u);
    EXPECT_EQ(cr->present, 8u);
    EXPECT_EQ(find_region(parent, "heap")->pages_on(0), 8u);
    // The other pages are still shared.
    for (uint64_t i : {0u, 1u, 2u, 4u, 7u})
        EXPECT_EQ(pv.frame(i).mapcount, 2) << i;
    // A second write by the child to the same page is no fault at all.
    EXPECT_EQ(do_wp_page(w.sys, ct, cv, 3), 0.0);
    EXPECT_EQ(w.c(Vm::pgfault), faults + 1);
    // The parent writing its now-exclusive page reuses it: no copy, no allocation.
    PageFrame* before = &pv.frame(3);
    EXPECT_EQ(do_wp_page(w.sys, pt, pv, 3), 0.0);
    EXPECT_EQ(w.c(Vm::pgalloc), 9u);
    EXPECT_EQ(pv.frame(3).nid, 0);
    EXPECT_EQ(pv.frame(3).mapcount, 1);
    EXPECT_FALSE(pv.shares_object_page(3));
    EXPECT_NE(&pv.frame(3), before);  // moved to the parent's private frames
}

// The object-level totals of a shared object (ObjectRangeTotals). Parent and two children map
// the 8-page heap, all on node 0 (each region: 8 pages on node 0).
//   1. Pages 1 and 5 migrate to node 1 while all three map them (mapcount 3 = 3 mappers): one
//      update in the object, moved = {-2, +2} for object pages [0, 8); every region reads
//      8 - 2 = 6 on node 0 and 0 + 2 = 2 on node 1, while each region's own part stays {8, 0}.
//   2. Child 1 writes page 2 (its copy lands on node 1, where it runs): its own part becomes
//      {7, 1}, so it reads 5 / 3; page 2's object frame now has mapcount 2.
//   3. The parent's page 2 migrates to node 1: the object's moves become {-3, +3}; child 1 does
//      not map that frame (its page 2 is its own copy), so the move is taken back out of its own
//      part ({7, 1} -> {8, 0}); parent and child 2 keep {8, 0}: all read 5 / 3.
TEST_F(Fork, SharedPagesMoveOnceInTheObject) {
    Mm& c1 = dup_mm(w.sys, parent);
    Mm& c2 = dup_mm(w.sys, parent);
    Vma& cv1 = *c1.vmas[0];
    Region* pr = find_region(parent, "heap");
    Region* r1 = find_region(c1, "heap");
    Region* r2 = find_region(c2, "heap");
    ASSERT_EQ(pv.object->mappers.size(), 3u);
    ObjectRangeTotals* t = pr->shared;
    ASSERT_NE(t, nullptr);
    EXPECT_EQ(r1->shared, t);
    EXPECT_EQ(r2->shared, t);
    EXPECT_EQ(pv.shared, t);  // the VMA window is the same object range as the region
    EXPECT_EQ(t->window_mappers, 3u);
    double kns = 0;
    EXPECT_EQ(migrate_misplaced_folio(w.sys, ct, pv, 1, 1, 1, kns), MIGRATE_OK);
    EXPECT_EQ(migrate_misplaced_folio(w.sys, ct, *c2.vmas[0], 5, 1, 1, kns), MIGRATE_OK);
    EXPECT_EQ(t->moved[0], uint64_t{0} - 2);
    EXPECT_EQ(t->moved[1], 2u);
    for (const Region* r : {pr, r1, r2}) {
        EXPECT_EQ(r->node_pages[0], 8u) << r->vma->mm->id;
        EXPECT_EQ(r->node_pages[1], 0u) << r->vma->mm->id;
        EXPECT_EQ(r->pages_on(0), 6u) << r->vma->mm->id;
        EXPECT_EQ(r->pages_on(1), 2u) << r->vma->mm->id;
    }
    EXPECT_EQ(cv1.pages_on(0), 6u);
    EXPECT_EQ(cv1.pages_on(1), 2u);

    do_wp_page(w.sys, ct, cv1, 2);
    ASSERT_EQ(cv1.frame(2).nid, 1);
    EXPECT_EQ(pv.frame(2).mapcount, 2);
    EXPECT_EQ(r1->pages_on(0), 5u);
    EXPECT_EQ(r1->pages_on(1), 3u);

    EXPECT_EQ(migrate_misplaced_folio(w.sys, pt, pv, 2, 1, 1, kns), MIGRATE_OK);
    EXPECT_EQ(t->moved[0], uint64_t{0} - 3);
    EXPECT_EQ(t->moved[1], 3u);
    for (const Region* r : {pr, r1, r2}) {
        EXPECT_EQ(r->node_pages[0], 8u) << r->vma->mm->id;
        EXPECT_EQ(r->node_pages[1], 0u) << r->vma->mm->id;
        EXPECT_EQ(r->pages_on(0), 5u) << r->vma->mm->id;
        EXPECT_EQ(r->pages_on(1), 3u) << r->vma->mm->id;
    }
    EXPECT_EQ(pv.pages_on(1), 3u);
    EXPECT_EQ(find_invariant_violation(w.sys), std::nullopt);
}

// remove_migration_ptes: a migrated shared page comes back in every other mapping with the VMA's
// protection, so their NUMA hints on it are gone. Parent and two children map the 8-page heap;
// child 1 holds its own copy of page 4; pages 2..6 are PROT_NONE in all three mappings (5 each).
//   1. Child 2 faults page 3 and migrates it: parent and child 1 lose their hint on page 3 (4
//      left each); child 2's own hint is its fault's to clear (do_numa_page), so it keeps 5.
//   2. The parent migrates page 4: child 2 loses its hint (3 left); child 1's page 4 is its own
//      copy, another folio, and keeps its hint (4).
//   3. The parent migrates page 5 and repeats it for page 6 (a fault run): the children lose both
//      hints (child 1: 2 left, page 2 and its page 4; child 2: page 2 alone).
TEST_F(Fork, AMigratedSharedPageLosesEveryOtherMappingsHint) {
    Mm& c1 = dup_mm(w.sys, parent);
    Mm& c2 = dup_mm(w.sys, parent);
    Vma& cv1 = *c1.vmas[0];
    Vma& cv2 = *c2.vmas[0];
    do_wp_page(w.sys, ct, cv1, 4);
    ASSERT_FALSE(cv1.shares_object_page(4));
    for (Vma* v : {&pv, &cv1, &cv2}) {
        ASSERT_EQ(v->protnone.size(), 8u);
        v->protnone.set_range(2, 7);
        account_region_protnone(*v, 2, 5, +1);
    }
    auto hints = [](const Vma& v) {
        std::string s;
        for (uint64_t i = 0; i < 8; ++i)
            s += v.protnone.test(i) ? 'N' : '.';
        return s;
    };
    double kns = 0;
    ASSERT_EQ(migrate_misplaced_folio(w.sys, ct, cv2, 3, 1, 1, kns), MIGRATE_OK);
    EXPECT_EQ(hints(pv), "..N.NNN.");
    EXPECT_EQ(hints(cv1), "..N.NNN.");
    EXPECT_EQ(hints(cv2), "..NNNNN.");

    ASSERT_EQ(migrate_misplaced_folio(w.sys, pt, pv, 4, 1, 1, kns), MIGRATE_OK);
    EXPECT_EQ(hints(cv1), "..N.NNN.");
    EXPECT_EQ(hints(cv2), "..NN.NN.");

    MigrateCostRecord record;
    ASSERT_EQ(migrate_misplaced_folio(w.sys, pt, pv, 5, 1, 1, kns, &record), MIGRATE_OK);
    ASSERT_GE(record.alike, 1u);
    pv.frame(6).nid = 1;  // the caller tags and moves the run's frames (repeat_numa_fault)
    repeat_migrate_misplaced_folio(w.sys, pt, pv, 6, 1, record);
    EXPECT_EQ(hints(pv), "..N.NNN.");  // the parent's own hints are its faults' to clear
    EXPECT_EQ(hints(cv1), "..N.N...");
    EXPECT_EQ(hints(cv2), "..NN....");
    EXPECT_EQ(find_region(parent, "heap")->protnone, 4u);
    EXPECT_EQ(find_region(c1, "heap")->protnone, 2u);
    EXPECT_EQ(find_region(c2, "heap")->protnone, 2u);
    EXPECT_EQ(find_invariant_violation(w.sys), std::nullopt);
}

// Which mappings do not map a moved page is remembered (MemObject::unmapped_hint) and used only
// where the mapcounts confirm it. Parent and three children map the 8-page heap on node 0.
//   1. Child 1 copies page 2; page 2 moves: mapcount 3 of 4 covering, the walk finds child 1.
//   2. Child 2 copies page 3; page 3 moves: the hint (child 1, which maps page 3) accounts for
//      none of the one missing mapping, so the walk runs again and finds child 2.
//   3. Page 6, which all four map, moves: 4 of 4, the hint (child 2 maps page 6) is confirmed
//      with nothing to take back; it stays.
//   4. Child 3 goes (munmap): the hint is dropped with it.
// At each step every region reads what its own PTEs map: a private copy stays on node 1 (where
// child 1 and 2 run), the object pages it does not map are not counted for it.
TEST_F(Fork, MappingsThatMissAMovedPageAreRememberedOnlyWhileTrue) {
    Mm& c1 = dup_mm(w.sys, parent);
    Mm& c2 = dup_mm(w.sys, parent);
    Mm& c3 = dup_mm(w.sys, parent);
    Vma &cv1 = *c1.vmas[0], &cv2 = *c2.vmas[0], &cv3 = *c3.vmas[0];
    MemObject& o = *pv.object;
    double kns = 0;

    do_wp_page(w.sys, ct, cv1, 2);
    ASSERT_EQ(pv.frame(2).mapcount, 3);
    EXPECT_EQ(migrate_misplaced_folio(w.sys, pt, pv, 2, 1, 1, kns), MIGRATE_OK);
    EXPECT_EQ(o.unmapped_hint, std::vector<Vma*>{&cv1});
    EXPECT_EQ(find_region(c1, "heap")->pages_on(1), 1u);  // its own copy only
    EXPECT_EQ(find_region(c2, "heap")->pages_on(1), 1u);  // the object's page 2
    EXPECT_EQ(find_invariant_violation(w.sys), std::nullopt);

    do_wp_page(w.sys, ct, cv2, 3);
    EXPECT_EQ(migrate_misplaced_folio(w.sys, pt, pv, 3, 1, 1, kns), MIGRATE_OK);
    EXPECT_EQ(o.unmapped_hint, std::vector<Vma*>{&cv2});
    EXPECT_EQ(find_region(parent, "heap")->pages_on(1), 2u);  // object pages 2 and 3
    EXPECT_EQ(find_region(c1, "heap")->pages_on(1), 2u);      // its copy of 2, object page 3
    EXPECT_EQ(find_region(c2, "heap")->pages_on(1), 2u);      // object page 2, its copy of 3
    EXPECT_EQ(find_region(c3, "heap")->pages_on(1), 2u);
    EXPECT_EQ(find_invariant_violation(w.sys), std::nullopt);

    EXPECT_EQ(migrate_misplaced_folio(w.sys, pt, pv, 6, 1, 1, kns), MIGRATE_OK);
    EXPECT_EQ(o.unmapped_hint, std::vector<Vma*>{&cv2});
    for (Mm* m : {&parent, &c1, &c2, &c3})
        EXPECT_EQ(find_region(*m, "heap")->pages_on(1), 3u) << m->id;
    EXPECT_EQ(find_invariant_violation(w.sys), std::nullopt);

    do_munmap(w.sys, cv3);
    EXPECT_TRUE(o.unmapped_hint.empty());
    EXPECT_EQ(find_invariant_violation(w.sys), std::nullopt);
}

// A region added after shared moves (a third process forked later) reads the same totals.
TEST_F(Fork, ARegionAddedAfterSharedMovesCountsRight) {
    Mm& c1 = dup_mm(w.sys, parent);
    double kns = 0;
    EXPECT_EQ(migrate_misplaced_folio(w.sys, ct, *c1.vmas[0], 4, 1, 1, kns), MIGRATE_OK);
    Mm& c2 = dup_mm(w.sys, c1);
    Region* r2 = find_region(c2, "heap");
    EXPECT_EQ(r2->pages_on(0), 7u);
    EXPECT_EQ(r2->pages_on(1), 1u);
    Region& late = add_region(w.sys, pv, 2, 4, "late");  // pages 2-5: page 4 is on node 1
    EXPECT_EQ(late.pages_on(0), 3u);
    EXPECT_EQ(late.pages_on(1), 1u);
    EXPECT_EQ(find_invariant_violation(w.sys), std::nullopt);
}

TEST_F(Fork, ParentWriteFirstThenChildReuses) {
    Mm& child = dup_mm(w.sys, parent);
    Vma& cv = *child.vmas[0];
    do_wp_page(w.sys, pt, pv, 0);  // the parent copies: new frame on node 0
    EXPECT_EQ(w.c(Vm::pgalloc), 9u);
    EXPECT_EQ(pv.frame(0).mapcount, 1);
    EXPECT_EQ(cv.frame(0).mapcount, 1);  // the child is now the only mapper of the old frame
    do_wp_page(w.sys, ct, cv, 0);        // reuse, no copy
    EXPECT_EQ(w.c(Vm::pgalloc), 9u);
    EXPECT_FALSE(cv.shares_object_page(0));
}

TEST_F(Fork, NewPagesAfterForkArePrivate) {
    // A VMA mapped before fork but never touched: after fork each side's first touch gets its
    // own frame, allocated where that side runs.
    Vma& later = do_mmap(w.sys, parent, 4 * kPages4K.size(), VM_READ | VM_WRITE, "later");
    Mm& child = dup_mm(w.sys, parent);
    Vma* clater = child.vmas.back().get();
    ASSERT_EQ(clater->name, "later");
    handle_mm_fault(w.sys, ct, *clater, 1, true);
    handle_mm_fault(w.sys, pt, later, 1, true);
    EXPECT_NE(&clater->frame(1), &later.frame(1));
    EXPECT_EQ(clater->frame(1).nid, 1);
    EXPECT_EQ(later.frame(1).nid, 0);
    EXPECT_EQ(later.frame(1).mapcount, 1);
    EXPECT_EQ(clater->frame(1).mapcount, 1);
}

// --- file-backed mappings ---

TEST(FileMapping, SharedByNProcessesHasMapcountN) {
    World w;
    const uint64_t pages = 16;
    auto file = std::make_shared<MemObject>(pages, true);
    const int n = 3;
    std::vector<Vma*> vmas;
    for (int i = 0; i < n; ++i) {
        Mm& mm = mm_create(w.sys);
        vmas.push_back(
            &do_mmap(w.sys, mm, pages * kPages4K.size(), VM_READ | VM_EXEC | VM_FILE, "lib", file));
    }
    EXPECT_EQ(file->mappers.size(), 3u);
    for (int i = 0; i < n; ++i) {
        Task& p = w.task_on(i);
        handle_mm_fault(w.sys, p, *vmas[i], 4, false);
    }
    // One page-cache page, allocated once (on node 0, by the first reader on CPU 0).
    EXPECT_EQ(file->frames[4].mapcount, n);
    EXPECT_EQ(file->frames[4].nid, 0);
    EXPECT_EQ(w.c(Vm::pgalloc), 1u);
    EXPECT_EQ(w.c(Vm::pgfault), 3u);
    for (Vma* v : vmas)
        EXPECT_EQ(&v->frame(4), &file->frames[4]);
    // An executable file page mapped by several processes is not migrated (shared library).
    EXPECT_EQ(migrate_misplaced_folio_prepare(w.sys, *vmas[2], 4, 1, 1, 0), MIGRATE_EACCES);
}

TEST(FileMapping, PrivateWriteCopiesThePageCachePage) {
    World w;
    auto file = std::make_shared<MemObject>(8, true);
    Mm& a = mm_create(w.sys);
    Mm& b = mm_create(w.sys);
    Vma& ra = do_mmap(w.sys, a, 8 * kPages4K.size(), VM_READ | VM_FILE, "data", file);
    Vma& wb = do_mmap(w.sys, b, 8 * kPages4K.size(), VM_READ | VM_WRITE | VM_FILE, "data", file);
    Task& pa = w.task_on(0);
    Task& pb = w.task_on(2);
    handle_mm_fault(w.sys, pa, ra, 2, false);
    EXPECT_EQ(file->frames[2].mapcount, 1);
    // b writes its private mapping: it gets its own anonymous copy; the page cache page stays
    // with one mapper.
    handle_mm_fault(w.sys, pb, wb, 2, true);
    EXPECT_FALSE(wb.shares_object_page(2));
    EXPECT_EQ(wb.frame(2).nid, 1);
    EXPECT_EQ(file->frames[2].mapcount, 1);
    EXPECT_EQ(w.c(Vm::pgalloc), 2u);
    // A private write to a page not in the page cache reads it in first, then copies: 2 pages.
    handle_mm_fault(w.sys, pb, wb, 5, true);
    EXPECT_TRUE(file->frames[5].flags & PF_ALLOC);
    EXPECT_FALSE(wb.shares_object_page(5));
    EXPECT_EQ(w.c(Vm::pgalloc), 4u);
}

// --- host memory per simulated page ---

TEST(MemoryFootprint, PageFrameIsEightBytes) {
    EXPECT_EQ(sizeof(PageFrame), 8u);
}

uint64_t vma_host_bytes(const Vma& v, bool count_object) {
    uint64_t b = v.present.memory_bytes() + v.protnone.memory_bytes() +
                 v.pmd_mapped.memory_bytes() + v.own_mask.memory_bytes();
    if (count_object) b += v.object->nr_pages * sizeof(PageFrame);
    if (v.own) b += v.own->nr_pages * sizeof(PageFrame);
    return b;
}

TEST(MemoryFootprint, AtMostSixteenBytesPerPage) {
    World w;
    Mm& mm = mm_create(w.sys);
    const uint64_t pages = 262144;  // 1 GiB
    Vma& v = do_mmap(w.sys, mm, pages * kPages4K.size(), VM_READ | VM_WRITE, "big");
    // Frames 8 B/page + present and protnone 1 bit each (0.25 B/page) + 1 bit per 2 MiB block:
    // 262144 * 8 + 2 * 32768 + 8 * ceil((512 + 2) / 64) = 2097152 + 65536 + 72 = 2162760.
    EXPECT_EQ(vma_host_bytes(v, true), 2162760u);
    EXPECT_LE(static_cast<double>(vma_host_bytes(v, true)) / pages, 16.0);
    // After fork each side has its private mask (1 bit a page) and shares the object, whose
    // frames are split between the two mappings: 4 (half the object) + 3 bitmaps of 1/8 B + pmd
    // bits. The private frame arrays come with the first private page.
    Mm& child = dup_mm(w.sys, mm);
    Vma& cv = *child.vmas[0];
    auto per_page = [&](const Vma& x) {
        return (static_cast<double>(vma_host_bytes(x, false)) + pages * sizeof(PageFrame) / 2.0) /
               pages;
    };
    for (const Vma* x : std::initializer_list<const Vma*>{&v, &cv}) {
        EXPECT_EQ(x->own, nullptr);
        EXPECT_NEAR(per_page(*x), 4.375, 0.01);
    }
    // The child's first page of its own (a first touch after the fork) brings its array of
    // private frames, 8 B a page: the most a forked mapping holds.
    handle_mm_fault(w.sys, w.task_on(0), cv, 7, true);
    ASSERT_NE(cv.own, nullptr);
    EXPECT_TRUE(cv.own_mask.test(7));
    EXPECT_EQ(v.own, nullptr);
    EXPECT_LE(per_page(cv), 16.0);
    EXPECT_NEAR(per_page(cv), 12.375, 0.01);
}

}  // namespace
}  // namespace numasim
