// The LRU index (mm/lru_index.h): per node and list, a bit per page of an object, and the walk
// that reads it. Worked by hand on small frame arrays and on cascadelake-2s-pmem under v6.6
// (node 0 DRAM, demoting to node 2).
#include "mm/lru_index.h"

#include <gtest/gtest.h>

#include <vector>

#include "kernel/invariants.h"
#include "lru_mapping.h"
#include "mm/lru_add.h"
#include "mm/migrate.h"
#include "mm/page_alloc.h"
#include "mm/vmscan.h"

namespace numasim {
namespace {

using mmtest::World;

PageFrame frame(int nid, uint8_t flags) {
    PageFrame f;
    f.nid = static_cast<uint8_t>(nid);
    f.flags = flags;
    return f;
}

TEST(LruIndex, BuildsANodesListsFromTheFramesAndReadsThemAcrossWords) {
    // 130 frames: 3 and 129 on node 0's inactive list, 64 on its active one, 100 on node 1's
    // inactive list; 5 says node 0 but holds no page.
    std::vector<PageFrame> f(130);
    f[3] = frame(0, PF_ALLOC);
    f[129] = frame(0, PF_ALLOC | PF_LRU_PENDING);  // a batch's page is indexed on its list
    f[64] = frame(0, PF_ALLOC | PF_ACTIVE);
    f[100] = frame(1, PF_ALLOC);
    f[5] = frame(0, 0);
    LruIndex ix;
    ix.build(0, f.data(), f.size());
    EXPECT_TRUE(ix.indexed(0));
    EXPECT_FALSE(ix.indexed(1));
    EXPECT_EQ(lru_list_of(f[64]), 1);
    EXPECT_EQ(lru_list_of(f[100]), 2);
    EXPECT_EQ(lru_list_of(f[5]), kNoLru);
    EXPECT_EQ(ix.bits_at(0, 0), uint64_t{1} << 3);
    EXPECT_EQ(ix.bits_at(0, 3), uint64_t{1});
    // 64 bits from page 66 straddle words 1 and 2: page 129 is bit 63.
    EXPECT_EQ(ix.bits_at(0, 66), uint64_t{1} << 63);
    EXPECT_EQ(ix.bits_at(1, 1), uint64_t{1} << 63);   // page 64
    EXPECT_EQ(ix.bits_at(0, 128), uint64_t{1} << 1);  // past page 129: the object's end
    EXPECT_EQ(ix.bits_at(0, 192), uint64_t{0});
    // 64 is deactivated, 3 migrates to node 1 (not indexed: its bit just goes), 100 comes to
    // node 0's active list.
    ix.note(64, 1, 0);
    ix.note(3, 0, 2);
    ix.note(100, 2, 1);
    EXPECT_EQ(ix.bits_at(0, 0), uint64_t{0});
    EXPECT_EQ(ix.bits_at(0, 64), uint64_t{1});
    EXPECT_EQ(ix.bits_at(0, 100), uint64_t{1} << (129 - 100));
    EXPECT_EQ(ix.bits_at(1, 64), uint64_t{1} << (100 - 64));
    EXPECT_EQ(ix.list(2).size(), 0u);  // node 1's lists stay unkept
}

struct LruWalk : mmtest::LruMapping {
    // The folios next_lru_folio meets from page 0 on, as first:nr.
    std::vector<std::pair<uint64_t, uint64_t>> walk(int nid, bool active) {
        std::vector<std::pair<uint64_t, uint64_t>> met;
        uint64_t first = 0, nr = 0;
        for (uint64_t i = 0; next_lru_folio(*vma, i, nid, active, first, nr); i = first + nr)
            met.emplace_back(first, nr);
        return met;
    }
};

using Met = std::vector<std::pair<uint64_t, uint64_t>>;

TEST_F(LruWalk, MeetsTheListsPagesOnlyAndKeepsUpWithMovesAndActivation) {
    // 300 pages on node 0; all but 1, 70, 199 and 250 demoted to node 2; 250 waits in an add
    // batch. The first walk indexes node 0 and meets 1, 70 and 199 (250 is not on the list
    // yet); node 2's list holds the rest.
    map(300 * kPages4K.size());
    for (uint64_t i = 0; i < 300; ++i)
        if (i != 1 && i != 70 && i != 199 && i != 250) demote(i);
    vma->frame(250).flags |= PF_LRU_PENDING;
    EXPECT_EQ(walk(0, false), (Met{{1, 1}, {70, 1}, {199, 1}}));
    EXPECT_TRUE(vma->object->lru.indexed(0));
    EXPECT_FALSE(vma->object->lru.indexed(2));
    EXPECT_EQ(walk(2, false).size(), 296u);
    vma->frame(250).flags &= static_cast<uint8_t>(~PF_LRU_PENDING);
    // Reclaim with every page unaccessed: a pass of 2 demotes 1 and 70 (shrink_node takes the
    // index's word of pages 0-63, then 64-127), and the index follows both moves.
    EXPECT_EQ(shrink_node(w.sys, 0, 2, 2, ReclaimBy::Kswapd), 2u);
    EXPECT_EQ(walk(0, false), (Met{{199, 1}, {250, 1}}));
    EXPECT_EQ(walk(2, false).front(), (std::pair<uint64_t, uint64_t>{0, 1}));
    EXPECT_EQ(walk(2, false).size(), 298u);
    EXPECT_EQ(walk(0, true), Met{});
    EXPECT_EQ(find_invariant_violation(w.sys), std::nullopt);
}

TEST_F(LruWalk, APmdMappedFolioIsMetAtItsFirstPageOnly) {
    // Two THP blocks of 512 pages; block 0 is then made active by hand (its first frame
    // carries PG_active, as set_active leaves it). The inactive walk passes block 0 whole,
    // though its tail frames are inactive, and meets block 1 as one folio; from inside block 1
    // it meets nothing.
    map(2 * kPages4K.pmd_size(), VM_HUGEPAGE);
    ASSERT_TRUE(vma->pmd_mapped.test(0));
    ASSERT_TRUE(vma->pmd_mapped.test(1));
    vma->frame(0).flags |= PF_ACTIVE;
    EXPECT_EQ(walk(0, false), (Met{{512, 512}}));
    EXPECT_EQ(walk(0, true), (Met{{0, 512}}));
    uint64_t first = 0, nr = 0;
    EXPECT_FALSE(next_lru_folio(*vma, 513, 0, false, first, nr));
    // Demoting block 1 moves all 512 of its bits to node 2's list.
    demote(512, 512);
    EXPECT_EQ(walk(0, false), Met{});
    EXPECT_EQ(walk(2, false), (Met{{512, 512}}));  // node 2's lists made from the frames
}

TEST_F(LruWalk, TheInvariantsFindAFrameTheIndexDoesNotKnow) {
    map(100 * kPages4K.size());
    EXPECT_EQ(walk(0, false).size(), 100u);
    EXPECT_EQ(find_invariant_violation(w.sys), std::nullopt);
    // A frame moved to node 1 behind the index's back (and the counts kept right).
    vma->frame(42).nid = 1;
    free_pages(w.sys, 0, 1);
    ASSERT_EQ(alloc_demote_page(w.sys, 1, uint64_t{1} << 1, 0, 0), 1);
    account_region_move(*vma, 42, 1, 0, 1);
    const auto v = find_invariant_violation(w.sys);
    ASSERT_TRUE(v.has_value());
    EXPECT_NE(v->find("frame 42 (node 1, flags 0x4) is on node 0's inactive list in the LRU "
                      "index"),
              std::string::npos)
        << *v;
}

}  // namespace
}  // namespace numasim
