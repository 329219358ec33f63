// Aging's input per page (mm/lru_aging.h), worked by hand on a 1024-page mapping (two PMD-sized
// chunks of the region index) with overlapping regions, a hot part and a gap.
#include "mm/lru_aging.h"

#include <gtest/gtest.h>

#include "engine/process.h"
#include "mm_fixture.h"

namespace numasim {
namespace {

using mmtest::World;

struct LruAging : ::testing::Test {
    World w{"cascadelake-2s-pmem"};
    Vma* vma = nullptr;
    Region *a = nullptr, *b = nullptr, *c = nullptr;

    // A [0, 100) with a hot part of 10 pages, B [100, 600), C [300, 400) inside B; pages
    // [600, 1024) in no region. Expected accesses per page so far: A 2 (and 5 more in its hot
    // part), B 3, C 7.
    void SetUp() override {
        Mm& mm = mm_create(w.sys);
        vma = &do_mmap(w.sys, mm, 1024 * kPages4K.size(), VM_READ | VM_WRITE, "anon");
        a = &add_region(w.sys, *vma, 0, 100, "a");
        b = &add_region(w.sys, *vma, 100, 500, "b");
        c = &add_region(w.sys, *vma, 300, 100, "c");
        a->accesses.all = 2;
        a->accesses.hot = 5;
        a->accesses.hot_pages = 10;
        b->accesses.all = 3;
        c->accesses.all = 7;
    }
    double ask(uint64_t idx, uint64_t pass, AgingRun& run, int nid = 0) {
        return page_expected_accesses(*vma, idx, nid, w.sys.nr_nodes(), pass, run);
    }
};

TEST_F(LruAging, APagesRunIsWhereTheSameRegionsCoverItAlike) {
    struct Case {
        uint64_t page;
        double expected;
        uint64_t lo, hi;
    };
    const Case cases[] = {
        {5, 7.0, 0, 10},        // A's hot part: 2 + 5; the run ends where the hot part does
        {50, 2.0, 10, 100},     // A past its hot part
        {150, 3.0, 100, 300},   // B alone, from A's end to C's start
        {350, 10.0, 300, 400},  // B and C: 3 + 7
        {450, 3.0, 400, 512},   // B again, to the end of the first chunk;
        {550, 3.0, 512, 600},   // then in the second chunk to B's end
        {700, 0.0, 600, 1024},  // no region: nothing expected, to the chunk's end
    };
    AgingRun run;
    for (const Case& c : cases) {
        EXPECT_EQ(ask(c.page, 1, run), c.expected) << "page " << c.page;
        EXPECT_EQ(run.lo, c.lo) << "page " << c.page;
        EXPECT_EQ(run.hi, c.hi) << "page " << c.page;
    }
}

TEST_F(LruAging, AWindowIsTakenOncePerPassAndNode) {
    AgingRun run;
    EXPECT_EQ(ask(150, 1, run), 3.0);
    // B is accessed 4 more per page: the pass that took B's window still answers 3, from the
    // run and from a new lookup alike; the next pass sees the 4 added since.
    b->accesses.all += 4;
    EXPECT_EQ(ask(200, 1, run), 3.0);
    AgingRun fresh;
    EXPECT_EQ(ask(200, 1, fresh), 3.0);
    EXPECT_EQ(ask(200, 2, run), 4.0);
    EXPECT_EQ(run.lo, 100u);
    EXPECT_EQ(run.hi, 300u);
    // Node 1's hand has never passed B: its first window is everything so far, 7.
    EXPECT_EQ(ask(200, 2, run, 1), 7.0);
    // C's window for node 0 was never taken: its first pass sees all 7, beside B's 4 of pass 2.
    EXPECT_EQ(ask(350, 2, run), 11.0);
}

}  // namespace
}  // namespace numasim
