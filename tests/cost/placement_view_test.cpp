// Placement views (cost/placement_view.h): a region's view id stays while the shares of its
// pages per node stay bit for bit, whatever its counts and stamps do, and moves when a share
// does; a kept demand keyed by it is derived again only then, with the numbers of a model that
// derives every time.
// tiny-2n: L_local 90 ns, L_remote 140 ns, 10 line fill buffers, CPUs 0-1 on node 0, 2-3 on 1.
#include "cost/placement_view.h"

#include <gtest/gtest.h>

#include "cost_fixture.h"
#include "mm/fault.h"

namespace numasim {
namespace {

using costtest::CostWorld;
using costtest::Runner;

// A 64 MiB region with its first half present on node 0.
Region& half_on_node0(CostWorld& w) {
    Region& r = w.region_on(64, 0);
    r.node_pages[0] = r.count / 2;
    r.present = r.count / 2;
    r.stamp.bump();
    return r;
}

TEST(PlacementView, FaultsOnTheOnlyNodeKeepTheIdAndAnotherNodeMovesIt) {
    CostWorld w("tiny-2n");
    Region& r = half_on_node0(w);
    PlacementViews views;
    views.init(2, 64);
    const uint64_t first = views.id(r);
    // Shares 1 and 0 before and after: the counts and the stamp moved, the view did not.
    account_region_pages(*r.vma, r.first + r.count / 2, 16, 0, +1);
    EXPECT_EQ(views.id(r), first);
    // A page on node 1 makes its share 1 / (count / 2 + 17): another view.
    account_region_pages(*r.vma, r.first + r.count / 2 + 16, 1, 1, +1);
    const uint64_t second = views.id(r);
    EXPECT_NE(second, first);
    // Another page on node 0 moves both shares again.
    account_region_pages(*r.vma, r.first + r.count / 2 + 17, 1, 0, +1);
    EXPECT_NE(views.id(r), second);
    EXPECT_EQ(views.find_stale(r), std::nullopt);
}

TEST(PlacementView, AnEmptyRegionAndADistinctRegionHaveViewsOfTheirOwn) {
    CostWorld w("tiny-2n");
    Region& r = w.region_on(64, 0);
    Region& s = w.region_on(64, 0);  // the same size and shares, but another region
    PlacementViews views;
    views.init(2, 64);
    const uint64_t all = views.id(r);
    EXPECT_NE(views.id(s), all);
    // Every page unmapped: the first touch goes to the CPU's node, not to node 0.
    account_region_pages(*r.vma, r.first, r.count, 0, -1);
    const uint64_t empty = views.id(r);
    EXPECT_NE(empty, all);
    // All back on node 0: shares as at first, but read after another view: a new id.
    account_region_pages(*r.vma, r.first, r.count, 0, +1);
    EXPECT_NE(views.id(r), empty);
    EXPECT_NE(views.id(r), all);
}

TEST(PlacementView, ACountChangedWithoutItsStampIsReported) {
    CostWorld w("tiny-2n");
    Region& r = half_on_node0(w);
    PlacementViews views;
    views.init(2, 64);
    views.id(r);
    EXPECT_EQ(views.find_stale(r), std::nullopt);
    ++r.node_pages[1];
    ++r.present;
    const auto stale = views.find_stale(r);
    ASSERT_TRUE(stale.has_value());
    EXPECT_NE(stale->find("Region::stamp"), std::string::npos) << *stale;
}

TEST(PlacementView, KeptDemandSurvivesFirstTouchesOnItsNodeWithTheSameNumbers) {
    // Two worlds, one keeping demands and one deriving every time, fault pages into a region
    // a CPU of node 1 reads: on node 0 (the kept demand stays), then one on node 1.
    CostWorld kept("tiny-2n"), fresh("tiny-2n");
    fresh.sys.cost.set_demand_cache(false);
    std::vector<double> a, b;
    for (CostWorld* w : {&kept, &fresh}) {
        std::vector<double>& out = w == &kept ? a : b;
        Region& r = half_on_node0(*w);
        Runner& p = w->run_on(2, r, 1.0);
        w->update(0);
        out.push_back(w->line_ns(p));
        const uint64_t misses = w->sys.cost.demand_misses();
        for (uint64_t i = 0; i < 4; ++i) {
            account_region_pages(*r.vma, r.first + r.count / 2 + i, 1, 0, +1);
            w->update(static_cast<Nanos>(i + 1) * TICK_NSEC);
            out.push_back(w->line_ns(p));
        }
        if (w == &kept) {
            EXPECT_EQ(w->sys.cost.demand_misses(), misses);
        }
        account_region_pages(*r.vma, r.first + r.count / 2 + 4, 1, 1, +1);
        w->update(5 * TICK_NSEC);
        out.push_back(w->line_ns(p));
        if (w == &kept) {
            EXPECT_EQ(w->sys.cost.demand_misses(), misses + 1);
            EXPECT_EQ(w->sys.cost.find_stale_demand(p.mix, p.cpu), std::nullopt);
        }
    }
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i)
        EXPECT_EQ(a[i], b[i]) << "rate " << i;
    // One page in count / 2 + 5 is local now: the line is a little shorter.
    EXPECT_LT(a.back(), a[4]);
}

}  // namespace
}  // namespace numasim
