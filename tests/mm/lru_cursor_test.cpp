// The walk of an LRU list through one mapping (mm/lru_cursor.h), worked by hand on
// cascadelake-2s-pmem under v6.6 (node 0 DRAM, demoting to node 2).
#include "mm/lru_cursor.h"

#include <gtest/gtest.h>

#include "engine/process.h"
#include "kernel/invariants.h"
#include "lru_mapping.h"
#include "mm/lru_add.h"
#include "mm/migrate.h"
#include "mm/page_alloc.h"

namespace numasim {
namespace {

struct LruCursorTest : mmtest::LruMapping {};

TEST_F(LruCursorTest, PassesEmptyWordsAndKeepsUpWithTheFoliosItMeets) {
    // 300 pages, all but 1, 2 and 250 demoted to node 2: node 0's inactive list holds those
    // three, words 1 to 3 none of its pages.
    map(300 * kPages4K.size());
    for (uint64_t i = 0; i < 300; ++i)
        if (i != 1 && i != 2 && i != 250) demote(i);
    LruCursor lru(*vma, 0, false);
    uint64_t first = 0, nr = 0;
    ASSERT_NE(lru.next(0, first, nr), nullptr);
    EXPECT_EQ(first, 1u);
    EXPECT_EQ(nr, 1u);
    // The met folio is demoted, as reclaim does, while the cursor keeps word 0's bits: 2 is
    // next, then 250 past the three empty words, then nothing.
    demote(1);
    PageFrame* f = lru.next(2, first, nr);
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(first, 2u);
    EXPECT_EQ(f, &vma->frame(2));
    ASSERT_NE(lru.next(3, first, nr), nullptr);
    EXPECT_EQ(first, 250u);
    EXPECT_EQ(lru.next(251, first, nr), nullptr);
    // Back from page 0, word 0 again: its kept bit for page 1 is out of date, and page 1's frame
    // (now node 2's) says so.
    ASSERT_NE(lru.next(0, first, nr), nullptr);
    EXPECT_EQ(first, 2u);
    // Node 2's list: 0 first, and every page but 2 and 250.
    LruCursor pmem(*vma, 2, false);
    uint64_t met = 0;
    for (uint64_t i = 0; pmem.next(i, first, nr); i = first + nr)
        ++met;
    EXPECT_EQ(met, 298u);
    EXPECT_EQ(find_invariant_violation(w.sys), std::nullopt);
}

TEST_F(LruCursorTest, FindsTheThpBlocksOfAMappingThatStartsInsideAPmd) {
    // Three PMDs' worth of pages from 256 pages into a PMD: the blocks wholly inside are pages
    // [256, 768) and [768, 1280); [0, 256) and [1280, 1536) are base pages.
    const uint64_t pmd = kPages4K.pmd_size();
    map(3 * pmd, VM_HUGEPAGE, 0x40000000 + 256 * kPages4K.size());
    ASSERT_EQ(vma->nr_pages(), 1536u);
    ASSERT_TRUE(vma->pmd_mapped.test(vma->pmd_index(256)));
    ASSERT_TRUE(vma->pmd_mapped.test(vma->pmd_index(768)));
    std::vector<std::pair<uint64_t, uint64_t>> met;
    LruCursor lru(*vma, 0, false);
    uint64_t first = 0, nr = 0;
    for (uint64_t i = 0; lru.next(i, first, nr); i = first + nr)
        met.emplace_back(first, nr);
    ASSERT_EQ(met.size(), 256u + 2 + 256);
    EXPECT_EQ(met[255], (std::pair<uint64_t, uint64_t>{255, 1}));
    EXPECT_EQ(met[256], (std::pair<uint64_t, uint64_t>{256, 512}));
    EXPECT_EQ(met[257], (std::pair<uint64_t, uint64_t>{768, 512}));
    EXPECT_EQ(met[258], (std::pair<uint64_t, uint64_t>{1280, 1}));
    // From inside a PMD-mapped block: its folio is passed whole.
    ASSERT_NE(lru.next(300, first, nr), nullptr);
    EXPECT_EQ(first, 768u);
    EXPECT_EQ(nr, 512u);
}

}  // namespace
}  // namespace numasim
