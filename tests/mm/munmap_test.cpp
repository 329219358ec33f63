// do_munmap(): hand-worked examples of what unmapping a whole VMA gives back.
#include <gtest/gtest.h>

#include "kernel/invariants.h"
#include "mm/mm.h"
#include "mm/munmap.h"
#include "mm_fixture.h"

namespace numasim::mmtest {
namespace {

// 16 anonymous pages touched from CPU 0 (node 0), then the process forks: each frame is mapped
// twice. Unmapping the child's copy frees nothing (the parent still maps every frame) and drops
// the mapcounts to 1; unmapping the parent's then frees all 16 pages.
TEST(Munmap, SharedFramesAreFreedWithTheirLastMapping) {
    World w;
    Task& p = w.task_on(0);
    Mm& mm = mm_create(w.sys);
    Vma& v = do_mmap(w.sys, mm, 16 * kPages4K.size(), VM_READ | VM_WRITE, "buf");
    add_region(w.sys, v, 0, 16, "buf");
    for (uint64_t i = 0; i < 16; ++i)
        handle_mm_fault(w.sys, p, v, i, true);
    const uint64_t free0 = w.sys.mem.nodes[0].free_pages;
    Mm& child = dup_mm(w.sys, mm);
    ASSERT_EQ(v.frame(3).mapcount, 2);
    ASSERT_EQ(child.rss_pages, 16u);
    ASSERT_EQ(child.regions.size(), 1u);

    do_munmap(w.sys, *child.vmas[0]);
    EXPECT_TRUE(child.vmas.empty());
    EXPECT_TRUE(child.regions.empty());  // the region went with its VMA
    EXPECT_EQ(child.rss_pages, 0u);
    EXPECT_EQ(v.object->mappers.size(), 1u);
    for (uint64_t i = 0; i < 16; ++i)
        ASSERT_EQ(v.frame(i).mapcount, 1) << i;
    EXPECT_EQ(w.sys.mem.nodes[0].free_pages, free0);
    EXPECT_EQ(w.c(Vm::pgfree), 0u);
    EXPECT_EQ(find_invariant_violation(w.sys), std::nullopt);

    do_munmap(w.sys, v);
    EXPECT_TRUE(mm.vmas.empty());
    EXPECT_EQ(mm.rss_pages, 0u);
    EXPECT_EQ(w.sys.mem.nodes[0].free_pages, free0 + 16);
    EXPECT_EQ(w.c(Vm::pgfree), 16u);
    EXPECT_EQ(find_invariant_violation(w.sys), std::nullopt);
}

// After fork the child writes 4 of the 16 pages (private copies, 4 more pages in use). Unmapping
// the child frees exactly its 4 copies; the 12 frames it shared keep the parent's mapping.
TEST(Munmap, PrivateCopiesAreFreedAtOnce) {
    World w;
    Task& p = w.task_on(0);
    Mm& mm = mm_create(w.sys);
    Vma& v = do_mmap(w.sys, mm, 16 * kPages4K.size(), VM_READ | VM_WRITE, "buf");
    for (uint64_t i = 0; i < 16; ++i)
        handle_mm_fault(w.sys, p, v, i, true);
    Mm& child = dup_mm(w.sys, mm);
    Vma& cv = *child.vmas[0];
    Task& c = w.task_on(2);  // node 1
    for (uint64_t i = 0; i < 4; ++i)
        do_wp_page(w.sys, c, cv, i);
    const uint64_t used0 = w.sys.mem.used_pages(0), used1 = w.sys.mem.used_pages(1);
    ASSERT_EQ(used0 + used1, 20u);
    ASSERT_EQ(v.frame(0).mapcount, 1);   // the child copied page 0
    ASSERT_EQ(v.frame(10).mapcount, 2);  // and still shares page 10

    do_munmap(w.sys, cv);
    EXPECT_EQ(w.sys.mem.used_pages(0) + w.sys.mem.used_pages(1), 16u);
    EXPECT_EQ(v.frame(10).mapcount, 1);
    EXPECT_EQ(w.c(Vm::pgfree), 4u);
    EXPECT_EQ(find_invariant_violation(w.sys), std::nullopt);
}

// A file's page cache stays while any mapping of the file is left, and goes with the last one.
TEST(Munmap, PageCacheGoesWithTheLastMappingOfTheFile) {
    World w;
    Task& p = w.task_on(0);
    Mm& a = mm_create(w.sys);
    Mm& b = mm_create(w.sys);
    Vma& va = do_mmap(w.sys, a, 8 * kPages4K.size(), VM_READ | VM_FILE, "file");
    Vma& vb = do_mmap(w.sys, b, 8 * kPages4K.size(), VM_READ | VM_FILE, "file", va.object);
    for (uint64_t i = 0; i < 8; ++i)
        handle_mm_fault(w.sys, p, va, i, false);
    for (uint64_t i = 0; i < 4; ++i)
        handle_mm_fault(w.sys, p, vb, i, false);
    ASSERT_EQ(w.sys.mem.used_pages(0), 8u);  // one page-cache copy of each page

    do_munmap(w.sys, va);  // b still maps the file: its cache stays, even pages b never touched
    EXPECT_EQ(w.sys.mem.used_pages(0), 8u);
    EXPECT_EQ(vb.frame(0).mapcount, 1);
    EXPECT_EQ(find_invariant_violation(w.sys), std::nullopt);

    do_munmap(w.sys, vb);
    EXPECT_EQ(w.sys.mem.used_pages(0), 0u);
    EXPECT_EQ(find_invariant_violation(w.sys), std::nullopt);
}

}  // namespace
}  // namespace numasim::mmtest
