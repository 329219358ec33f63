// Demands shared between CPUs (cost/demand_share.cpp): a CPU whose demand would be derived from
// the same inputs as another CPU's kept one takes a copy, with bit for bit the numbers of a
// model that derives everything; a CPU on another node, or over pages placed otherwise, derives
// its own.
// tiny-2n: L_local 90 ns, L_remote 140 ns, 10 line fill buffers, CPUs 0-1 on node 0, 2-3 on 1,
// one core per CPU, one LLC per node.
#include <gtest/gtest.h>

#include "cost/counts_hash.h"
#include "cost_fixture.h"
#include "mm/fault.h"

namespace numasim {
namespace {

using costtest::CostWorld;
using costtest::Runner;

// Two regions of one size on node 0 (64 MiB each, two overflow the 16 MiB LLC), swept by CPUs 0
// and 1.
struct TwoAlike {
    explicit TwoAlike(bool keep) : w("tiny-2n") {
        w.sys.cost.set_demand_cache(keep);
        x = &w.region_on(64, 0);
        y = &w.region_on(64, 0);
        p = &w.run_on(0, *x, 1.0);
        q = &w.run_on(1, *y, 1.0);
    }
    CostWorld w;
    Region *x, *y;
    Runner *p, *q;
};

TEST(DemandShare, ALikeCpuCopiesAndAnyDifferenceDerives) {
    TwoAlike kept(true), fresh(false);
    std::vector<double> a, b;
    for (TwoAlike* t : {&kept, &fresh}) {
        std::vector<double>& out = t == &kept ? a : b;
        CostWorld& w = t->w;
        w.update(0);
        out.push_back(w.line_ns(*t->p));
        out.push_back(w.line_ns(*t->q));
        // A quarter of y's pages move to node 1: q's inputs differ from p's from now on.
        account_region_move(*t->y->vma, t->y->first, t->y->count / 4, 0, 1);
        w.update(TICK_NSEC);
        out.push_back(w.line_ns(*t->p));
        out.push_back(w.line_ns(*t->q));
        // The same quarter of x's: alike again, with other counts than before.
        account_region_move(*t->x->vma, t->x->first, t->x->count / 4, 0, 1);
        w.update(2 * TICK_NSEC);
        out.push_back(w.line_ns(*t->p));
        out.push_back(w.line_ns(*t->q));
    }
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i)
        EXPECT_EQ(a[i], b[i]) << "rate " << i;
    // At 0 and at 2 ticks one of the two demands was a copy; at 1 tick each was derived.
    EXPECT_EQ(kept.w.sys.cost.demand_shares(), 2u);
    EXPECT_EQ(fresh.w.sys.cost.demand_shares(), 0u);
    EXPECT_EQ(a[0], a[1]);
    EXPECT_GT(a[3], a[2]);  // a quarter of q's misses remote: 55 + (0.75 * 90 + 0.25 * 140) / 10
    EXPECT_EQ(a[4], a[5]);
    EXPECT_EQ(kept.w.sys.cost.find_stale_demand(kept.q->mix, 1), std::nullopt);
}

TEST(DemandShare, NotAcrossNodes) {
    // Alike regions, but CPU 2 is on node 1: its misses are remote, its demand its own.
    CostWorld w("tiny-2n");
    Region& x = w.region_on(64, 0);
    Region& y = w.region_on(64, 0);
    Runner& p = w.run_on(0, x, 1.0);
    Runner& q = w.run_on(2, y, 1.0);
    w.update();
    EXPECT_EQ(w.sys.cost.demand_shares(), 0u);
    EXPECT_NEAR(w.line_ns(p), 55.0 + (90.0 + w.sys.cost.path_delay_ns(0, 0)) / 10, 1e-9);
    EXPECT_NEAR(w.line_ns(q), 55.0 + (140.0 + w.sys.cost.path_delay_ns(1, 0)) / 10, 1e-9);
}

TEST(DemandShare, NotFromADemandWhosePagesMovedSince) {
    // CPU 1's kept demand was derived with half of y on node 1; then more of y moves, and CPU 0
    // asks for x, which now reads as y did then: the kept demand no longer holds for y itself.
    TwoAlike t(true);
    CostWorld& w = t.w;
    w.update();
    EXPECT_EQ(w.sys.cost.demand_shares(), 1u);  // q's, from p's
    account_region_move(*t.y->vma, t.y->first, t.y->count / 2, 0, 1);
    w.line_ns(*t.q);
    account_region_move(*t.y->vma, t.y->first + t.y->count / 2, t.y->count / 4, 0, 1);
    account_region_move(*t.x->vma, t.x->first, t.x->count / 2, 0, 1);
    const double line = w.line_ns(*t.p);
    EXPECT_EQ(w.sys.cost.demand_shares(), 1u);
    const double q00 = w.sys.cost.path_delay_ns(0, 0), q01 = w.sys.cost.path_delay_ns(0, 1);
    EXPECT_NEAR(line, 55.0 + (0.5 * (90.0 + q00) + 0.5 * (140.0 + q01)) / 10, 1e-9);
    EXPECT_EQ(w.sys.cost.find_stale_demand(t.p->mix, 0), std::nullopt);
}

TEST(DemandShare, TheInvariantCheckerTakesTheCountsHashAgain) {
    // The hash of a region's page counts is kept for share_key while its stamps hold; a count
    // changed without the stamp leaves that hash stale, and the check says so.
    TwoAlike t(true);
    CostWorld& w = t.w;
    w.update();
    EXPECT_EQ(w.sys.cost.find_stale_demand(t.p->mix, 0), std::nullopt);
    const uint64_t before = region_counts_hash(*t.x, 2);  // kept (again, if y took its entry)
    EXPECT_EQ(kept_region_counts_hash(*t.x), before);
    ++t.x->node_pages[1];
    EXPECT_EQ(kept_region_counts_hash(*t.x), before);  // the stamps did not move
    EXPECT_NE(fresh_region_counts_hash(*t.x, 2), before);
    const auto found = w.sys.cost.find_stale_demand(t.p->mix, 0);
    ASSERT_TRUE(found.has_value());
    EXPECT_NE(found->find("hash"), std::string::npos) << *found;
}

}  // namespace
}  // namespace numasim
