// nth_interesting (engine/page_walk.h): the n-th page an access must fault on, found through
// words, 512-page blocks and 32768-page superblocks, is the one a page-by-page count finds; and
// region_quiet holds exactly where a walk over the region finds no such page.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>

#include "engine/page_walk.h"
#include "mm/mm_fixture.h"
#include "mm/vma.h"
#include "sim/rng.h"

namespace numasim {
namespace {

using mmtest::World;

// The n-th page in [from, hi) that is absent or PROT_NONE, counted page by page.
uint64_t nth_by_pages(const Vma& v, uint64_t from, uint64_t hi, uint64_t n) {
    for (uint64_t i = from; i < hi; ++i)
        if (!v.present.test(i) || v.protnone.test(i)) {
            if (n == 0) return i;
            --n;
        }
    return hi;
}

struct WalkTest : ::testing::Test {
    // 2.5 superblocks of pages, all present, none PROT_NONE.
    static constexpr uint64_t kPages = 5 * (uint64_t{1} << Vma::SUPERBLOCK_SHIFT) / 2;
    World w;
    Mm& mm = mm_create(w.sys);
    Vma& v = do_mmap(w.sys, mm, kPages * 4096, VM_READ | VM_WRITE, "walk");

    void SetUp() override {
        for (uint64_t i = 0; i < kPages; ++i)
            v.present.set(i);
        v.init_block_counts();
    }
    // Makes page i PROT_NONE and keeps the counts, as change_prot_numa does.
    void protnone(uint64_t i) {
        v.protnone.set(i);
        v.count_protnone(i, 1, +1);
    }
    // One random change of page i's state for the randomised tests: `choice` 0 makes it
    // PROT_NONE, 1 absent (each only from present and not PROT_NONE), any other value makes it
    // the mapping's own (`own`) or shared again.
    void change_page(uint64_t i, uint64_t choice, bool own) {
        switch (choice) {
            case 0:
                if (!v.protnone.test(i) && v.present.test(i)) protnone(i);
                break;
            case 1:
                if (v.present.test(i) && !v.protnone.test(i)) {
                    v.present.clear(i);
                    v.count_present(i, 1, -1);
                }
                break;
            default:
                if (own)
                    v.own_mask.set(i);
                else
                    v.own_mask.clear(i);
        }
    }
};

TEST_F(WalkTest, HandWorkedPagesAcrossWordsBlocksAndSuperblocks) {
    // Pages 5, 70 (next word), 600 (next block) and 40000 (the second superblock).
    for (uint64_t i : {5, 70, 600, 40000})
        protnone(i);
    EXPECT_EQ(v.sblk_interesting[0], 3u);
    EXPECT_EQ(v.sblk_interesting[1], 1u);
    EXPECT_EQ(nth_interesting(v, 0, kPages, false, 0), 5u);
    EXPECT_EQ(nth_interesting(v, 0, kPages, false, 1), 70u);
    EXPECT_EQ(nth_interesting(v, 0, kPages, false, 2), 600u);
    EXPECT_EQ(nth_interesting(v, 0, kPages, false, 3), 40000u);
    EXPECT_EQ(nth_interesting(v, 0, kPages, false, 4), kPages);  // none left: hi
    EXPECT_EQ(nth_interesting(v, 6, kPages, false, 0), 70u);
    EXPECT_EQ(nth_interesting(v, 0, 600, false, 2), 600u);  // hi excludes page 600
    // From a block's or a superblock's first page (the walk reads that word again and steps
    // over whole blocks from there).
    EXPECT_EQ(nth_interesting(v, 512, kPages, false, 0), 600u);
    EXPECT_EQ(nth_interesting(v, 512, kPages, false, 1), 40000u);
    EXPECT_EQ(nth_interesting(v, 1024, kPages, false, 0), 40000u);
    EXPECT_EQ(nth_interesting(v, 1u << Vma::SUPERBLOCK_SHIFT, kPages, false, 0), 40000u);
    EXPECT_EQ(nth_interesting(v, 1u << Vma::SUPERBLOCK_SHIFT, kPages, false, 1), kPages);
    EXPECT_EQ(nth_interesting(v, 0, 40000, false, 3), 40000u);  // hi excludes page 40000
    // Every page of a word: the n-th is the n-th bit, deep in the word.
    for (uint64_t i = 1024; i < 1088; ++i)
        protnone(i);
    for (uint64_t n = 0; n < 64; ++n)
        EXPECT_EQ(nth_interesting(v, 1024, kPages, false, n), 1024 + n) << n;
}

TEST_F(WalkTest, MatchesAPageByPageCountOnRandomStates) {
    Rng rng(7, "walk");
    // Dense patches and scattered pages, some of them absent (never faulted).
    for (int k = 0; k < 40; ++k) {
        const uint64_t at = rng.below(kPages - 3000), len = rng.below(3000);
        for (uint64_t i = at; i < at + len; ++i)
            if (rng.below(4) != 0 && !v.protnone.test(i)) protnone(i);
    }
    for (int k = 0; k < 2000; ++k) {
        const uint64_t i = rng.below(kPages);
        if (v.present.test(i) && !v.protnone.test(i)) {
            v.present.clear(i);
            v.count_present(i, 1, -1);
        }
    }
    for (int k = 0; k < 3000; ++k) {
        // Half the walks start at a block's first page.
        const uint64_t from = rng.below(2)
                                  ? rng.below(kPages)
                                  : rng.below(kPages >> Vma::BLOCK_SHIFT) << Vma::BLOCK_SHIFT;
        const uint64_t hi = from + rng.below(kPages - from + 1);
        const uint64_t n = rng.below(4) == 0 ? rng.below(20000) : rng.below(64);
        ASSERT_EQ(nth_interesting(v, from, hi, false, n), nth_by_pages(v, from, hi, n))
            << "from " << from << " hi " << hi << " n " << n;
    }
}

// A region of v over [first, first + count) with its totals counted from the bitmaps.
Region region_of(const Vma& v, uint64_t first, uint64_t count) {
    Region r;
    r.vma = const_cast<Vma*>(&v);
    r.first = first;
    r.count = count;
    r.present = v.present.count(first, first + count);
    r.protnone = v.protnone.count(first, first + count);
    return r;
}

TEST_F(WalkTest, ARegionsFirstSkipPastItsPagesOfInterestEndsAtItsEnd) {
    // Pages 40 and 41 absent, 100 and 40000 PROT_NONE; the region [30, 40030) holds all four.
    for (uint64_t i : {40, 41}) {
        v.present.clear(i);
        v.count_present(i, 1, -1);
    }
    for (uint64_t i : {100, 40000})
        protnone(i);
    const Region r = region_of(v, 30, 40000);
    EXPECT_EQ(region_interesting(r, false), 4u);  // 40000 - 39998 present + 2 PROT_NONE
    EXPECT_EQ(region_interesting(r, true), 4u);   // no copies kept: writes fault alike
    EXPECT_EQ(nth_interesting_in_region(r, false, 0), 40u);
    EXPECT_EQ(nth_interesting_in_region(r, false, 2), 100u);
    EXPECT_EQ(nth_interesting_in_region(r, false, 3), 40000u);
    EXPECT_EQ(nth_interesting_in_region(r, false, 4), 40030u);  // past all four: the end
    EXPECT_EQ(nth_interesting_in_region(r, true, 1u << 30), 40030u);
    // A region ending before page 40000 holds three.
    const Region head = region_of(v, 0, 40000);
    EXPECT_EQ(region_interesting(head, false), 3u);
    EXPECT_EQ(nth_interesting_in_region(head, false, 3), 40000u);
    // A write to a mapping that keeps copies also faults on still-shared pages, which the totals
    // do not count: the region's count is not known, and the walk finds them.
    v.own_mask = Bitmap(kPages);
    v.own_mask.set_range(0, kPages);
    v.own_mask.clear(200);
    EXPECT_EQ(region_interesting(r, true), ~uint64_t{0});
    EXPECT_EQ(region_interesting(r, false), 4u);
    EXPECT_EQ(nth_interesting_in_region(r, true, 3), 200u);
    EXPECT_EQ(nth_interesting_in_region(r, true, 4), 40000u);
    EXPECT_EQ(nth_interesting_in_region(r, false, 4), 40030u);
}

TEST_F(WalkTest, ARegionsFirstSkipIsTheWalksOnRandomStates) {
    Rng rng(13, "region skip");
    v.own_mask = Bitmap(kPages);
    v.own_mask.set_range(0, kPages);
    for (int k = 0; k < 4000; ++k) {
        // Now and then a page turns PROT_NONE, goes absent or is shared again.
        const uint64_t i = rng.below(kPages);
        change_page(i, rng.below(3), false);
        const uint64_t first = rng.below(kPages), count = rng.below(kPages - first + 1);
        const Region r = region_of(v, first, count);
        for (bool write : {false, true}) {
            // Skips around the region's absent and PROT_NONE pages, and far past them.
            const uint64_t total = count - r.present + r.protnone;
            for (uint64_t n :
                 {uint64_t{0}, total == 0 ? 0 : total - 1, total, total + 1, rng.below(1u << 20)})
                ASSERT_EQ(nth_interesting_in_region(r, write, n),
                          nth_interesting(v, first, first + count, write, n))
                    << "first " << first << " count " << count << " write " << write << " n " << n;
        }
    }
}

TEST_F(WalkTest, AForkedRegionIsQuietForWritesOnceEveryPageIsItsOwn) {
    // After a fork the mapping keeps copies: each page is still shared until written.
    v.own_mask = Bitmap(kPages);
    const Region r = region_of(v, 100, 130);  // three words, neither end aligned
    EXPECT_TRUE(region_quiet(r, false));      // reads fault on nothing
    EXPECT_FALSE(region_quiet(r, true));
    for (uint64_t i = 100; i < 230; ++i)
        if (i != 191) v.own_mask.set(i);
    EXPECT_FALSE(region_quiet(r, true));  // page 191 is still shared: a write copies it
    EXPECT_EQ(nth_interesting(v, 100, 230, true, 0), 191u);
    v.own_mask.set(191);
    EXPECT_TRUE(region_quiet(r, true));
    EXPECT_EQ(nth_interesting(v, 100, 230, true, 0), 230u);
    // Pages outside the region do not count, nor does a mapping that keeps no copies.
    EXPECT_FALSE(v.own_mask.test(99));
    EXPECT_FALSE(v.own_mask.test(230));
    v.own_mask = Bitmap();
    EXPECT_TRUE(region_quiet(r, true));
}

TEST_F(WalkTest, QuietExactlyWhereAWalkFindsNothing) {
    Rng rng(11, "quiet");
    v.own_mask = Bitmap(kPages);
    for (uint64_t i = 0; i < kPages; ++i)
        if (rng.below(200) != 0) v.own_mask.set(i);
    for (int k = 0; k < 3000; ++k) {
        // Now and then a page turns PROT_NONE, goes absent or becomes the mapping's own.
        const uint64_t i = rng.below(kPages);
        change_page(i, rng.below(40), true);
        const uint64_t first = rng.below(kPages),
                       count = rng.below(
                           std::min<uint64_t>(kPages - first + 1, rng.below(2) ? 64 : 4096));
        const Region r = region_of(v, first, count);
        for (bool write : {false, true})
            ASSERT_EQ(region_quiet(r, write),
                      nth_interesting(v, first, first + count, write, 0) == first + count)
                << "first " << first << " count " << count << " write " << write;
    }
}

}  // namespace
}  // namespace numasim
