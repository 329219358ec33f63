// The cost model keeps each CPU's memory demand between updates and derives it again only when
// what it depends on changed (cost/cost_model.h): the numbers must be those of a model that
// derives everything every time, a placement change must reach the rate at once, and a change
// that bypasses the placement stamp must be caught by the invariant check.
// tiny-2n: L_local 90 ns, L_remote 140 ns, 10 line fill buffers, CPUs 0-1 on node 0, 2-3 on 1.
#include <gtest/gtest.h>

#include "cost/constants.h"
#include "cost_fixture.h"
#include "mm/fault.h"

namespace numasim {
namespace {

using costtest::CostWorld;
using costtest::Runner;

TEST(DemandCache, KeptWhileNothingChangesAndDerivedAgainAfterAMove) {
    CostWorld w("tiny-2n");
    Region& r = w.region_on(64, 0);
    Runner& p = w.run_on(2, r, 1.0);  // node 1 reading node 0
    w.update();
    const uint64_t misses = w.sys.cost.demand_misses();
    const double remote = w.line_ns(p);
    // t_cpu = 64 - 90 / 10 = 55 ns, then the remote stall (140 + queueing) / 10.
    EXPECT_NEAR(remote, 55.0 + (140.0 + w.sys.cost.path_delay_ns(1, 0)) / 10, 1e-9);
    w.update(TICK_NSEC);
    EXPECT_DOUBLE_EQ(w.line_ns(p), w.line_ns(p));
    EXPECT_EQ(w.sys.cost.demand_misses(), misses);  // nothing changed: every use was a hit
    EXPECT_GE(w.sys.cost.demand_hits(), 3u);

    // Three quarters of the pages move to node 1, through the path migration takes.
    account_region_move(*r.vma, r.first, r.count / 4 * 3, 0, 1);
    const double q0 = w.sys.cost.path_delay_ns(1, 0), q1 = w.sys.cost.path_delay_ns(1, 1);
    EXPECT_NEAR(w.line_ns(p), 55.0 + (0.25 * (140 + q0) + 0.75 * (90 + q1)) / 10, 1e-9);
    EXPECT_EQ(w.sys.cost.demand_misses(), misses + 1);
}

TEST(DemandCache, SameNumbersAsDerivingEveryTime) {
    // Two worlds take the same steps, one keeping demands and one not: LLC sharing comes and
    // goes, SMT-less CPUs of one LLC, pages move. Every rate must be bit for bit the same.
    CostWorld kept("tiny-2n"), fresh("tiny-2n");
    fresh.sys.cost.set_demand_cache(false);
    std::vector<double> a, b;
    for (CostWorld* w : {&kept, &fresh}) {
        std::vector<double>& out = w == &kept ? a : b;
        Region& x = w->region_on(10, 0);  // 10 MiB each: two of them overflow the 16 MiB LLC
        Region& y = w->region_on(10, 1);
        Runner& p = w->run_on(0, x, 2.0, Pattern::Random);
        w->update(0);
        out.push_back(w->line_ns(p));
        Runner& q = w->run_on(1, y, 2.0, Pattern::Random);
        for (Nanos t = 1; t <= 3; ++t) {
            w->update(t * TICK_NSEC);
            out.push_back(w->line_ns(p));
            out.push_back(w->line_ns(q));
        }
        account_region_move(*y.vma, y.first, y.count / 2, 1, 0);
        out.push_back(w->line_ns(q));
        w->update(4 * TICK_NSEC);
        out.push_back(w->line_ns(p));
        out.push_back(w->line_ns(q));
        w->stop(1);
        w->update(5 * TICK_NSEC);
        out.push_back(w->line_ns(p));
    }
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i)
        EXPECT_EQ(a[i], b[i]) << "rate " << i;
    // The second runner's region made the LLC share its capacity: p slowed down.
    EXPECT_GT(a[1], a[0]);
    // And alone again, p is back at its first rate (the same sharing as then).
    EXPECT_NEAR(a.back(), a[0], 1e-6 * a[0]);
    EXPECT_GT(kept.sys.cost.demand_hits(), 0u);
    EXPECT_EQ(fresh.sys.cost.demand_hits() + fresh.sys.cost.demand_misses(), 0u);
}

TEST(DemandCache, KeptStreamTermsWhereOnlyOneRegionMoved) {
    // A mix of three streams over three 64 MiB regions (sweeps past the 16 MiB LLC: every
    // line misses) from CPU 2 on node 1. When one region's pages move, only its stream's terms
    // are taken again; the others' kept ones are added in the same order, so every rate is bit
    // for bit that of a model that derives everything every time.
    CostWorld kept("tiny-2n"), fresh("tiny-2n");
    fresh.sys.cost.set_demand_cache(false);
    std::vector<double> a, b;
    for (CostWorld* w : {&kept, &fresh}) {
        std::vector<double>& out = w == &kept ? a : b;
        Region& x = w->region_on(64, 0);
        Region& y = w->region_on(64, 0);
        Region& z = w->region_on(64, 1);
        Runner& p = w->run_on(2, x, 1.0);
        p.streams = {AccessStream{&x, Pattern::Sweep, 0.5, 0.0},
                     AccessStream{&y, Pattern::Sweep, 0.25, 0.5},
                     AccessStream{&z, Pattern::Sweep, 0.25, 0.0}};
        p.mix = {p.streams, 1.0, 0};
        w->update();
        const double q0 = w->sys.cost.path_delay_ns(1, 0), q1 = w->sys.cost.path_delay_ns(1, 1);
        // t_cpu = 64 - 90 / 10 = 55 ns; 0.75 of the misses remote at 140 ns, 0.25 local.
        EXPECT_NEAR(w->line_ns(p), 55.0 + (0.75 * (140 + q0) + 0.25 * (90 + q1)) / 10, 1e-9);
        out.push_back(w->line_ns(p));
        // All of y to node 1: half the misses local now.
        account_region_move(*y.vma, y.first, y.count, 0, 1);
        EXPECT_NEAR(w->line_ns(p), 55.0 + (0.5 * (140 + q0) + 0.5 * (90 + q1)) / 10, 1e-9);
        out.push_back(w->line_ns(p));
        EXPECT_EQ(w->sys.cost.find_stale_demand(p.mix, p.cpu), std::nullopt);
        w->update(TICK_NSEC);
        out.push_back(w->line_ns(p));
        // A quarter of z to node 0, then a stream's own share changes (its terms again).
        account_region_move(*z.vma, z.first, z.count / 4, 1, 0);
        out.push_back(w->line_ns(p));
        p.streams[0].share = 0.25;
        p.streams[2].share = 0.5;
        p.mix = {p.streams, 1.0, 0};
        w->update(2 * TICK_NSEC);
        out.push_back(w->line_ns(p));
        EXPECT_EQ(w->sys.cost.find_stale_demand(p.mix, p.cpu), std::nullopt);
    }
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i)
        EXPECT_EQ(a[i], b[i]) << "rate " << i;
}

TEST(DemandCache, CountChangedWithoutItsStampIsReported) {
    CostWorld w("tiny-2n");
    Region& r = w.region_on(64, 0);
    Runner& p = w.run_on(2, r, 1.0);
    w.update();
    EXPECT_EQ(w.sys.cost.find_stale_demand(p.mix, p.cpu), std::nullopt);
    // A writer that forgets the stamp: the kept demand still says all on node 0.
    r.node_pages[0] = 0;
    r.node_pages[1] = r.count;
    const auto stale = w.sys.cost.find_stale_demand(p.mix, p.cpu);
    ASSERT_TRUE(stale.has_value());
    EXPECT_NE(stale->find("cpu 2"), std::string::npos) << *stale;
    EXPECT_NE(stale->find("Region::stamp"), std::string::npos) << *stale;
    // With the stamp bumped the demand is derived again and nothing is stale.
    r.stamp.bump();
    EXPECT_NEAR(w.line_ns(p), 55.0 + (90.0 + w.sys.cost.path_delay_ns(1, 1)) / 10, 1e-9);
    EXPECT_EQ(w.sys.cost.find_stale_demand(p.mix, p.cpu), std::nullopt);
}

TEST(DemandCache, TwoCpusHoldingOneValueGetItsRateUntilTheNextSolve) {
    // CPUs 2 and 3 (node 1) sweep the same region on node 0: one demand value, whose rate
    // under the solve's delays is kept with it and serves both; a move and a solve give both
    // the new rate.
    CostWorld w("tiny-2n");
    Region& r = w.region_on(64, 0);
    Runner& p = w.run_on(2, r, 1.0);
    Runner& q = w.run_on(3, r, 1.0);
    w.update();
    EXPECT_GE(w.sys.cost.demand_shares(), 1u);
    // t_cpu = 64 - 90 / 10 = 55 ns, then the remote stall (140 + queueing) / 10.
    const double q0 = w.sys.cost.path_delay_ns(1, 0);
    EXPECT_NEAR(w.line_ns(p), 55.0 + (140.0 + q0) / 10, 1e-9);
    EXPECT_EQ(w.line_ns(q), w.line_ns(p));
    EXPECT_EQ(w.sys.cost.find_stale_demand(p.mix, p.cpu), std::nullopt);
    EXPECT_EQ(w.sys.cost.find_stale_demand(q.mix, q.cpu), std::nullopt);
    // Half the pages to node 1 and a solve: half the misses local at 90 ns.
    account_region_move(*r.vma, r.first, r.count / 2, 0, 1);
    w.update(TICK_NSEC);
    const double d0 = w.sys.cost.path_delay_ns(1, 0), d1 = w.sys.cost.path_delay_ns(1, 1);
    EXPECT_NEAR(w.line_ns(q), 55.0 + (0.5 * (140 + d0) + 0.5 * (90 + d1)) / 10, 1e-9);
    EXPECT_EQ(w.line_ns(p), w.line_ns(q));
    EXPECT_EQ(w.sys.cost.find_stale_demand(q.mix, q.cpu), std::nullopt);
}

TEST(DemandCache, AVersionedMixStillSeesItsPagesMove) {
    // A mix the last solve took at the same version is compared by its regions' stamps only:
    // pages that move under it still reach the next solve.
    CostWorld w("tiny-2n");
    Region& r = w.region_on(64, 0);
    Runner& p = w.run_on(2, r, 1.0);
    p.version = 1;
    w.update();
    w.update(TICK_NSEC);
    const uint64_t misses = w.sys.cost.demand_misses();
    account_region_move(*r.vma, r.first, r.count / 4 * 3, 0, 1);
    w.update(2 * TICK_NSEC);
    EXPECT_EQ(w.sys.cost.demand_misses(), misses + 1);
    const double q0 = w.sys.cost.path_delay_ns(1, 0), q1 = w.sys.cost.path_delay_ns(1, 1);
    EXPECT_NEAR(w.line_ns(p), 55.0 + (0.25 * (140 + q0) + 0.75 * (90 + q1)) / 10, 1e-9);
    EXPECT_EQ(w.sys.cost.find_stale_demand(p.mix, p.cpu), std::nullopt);
}

TEST(DemandCache, AMixChangedBehindItsVersionIsReported) {
    // The version is the owner's word that the mix did not change, and the rate note's that it
    // was not cleared: an owner that breaks both gets a kept demand for the old mix, which the
    // invariant check reports instead of letting it set the rate.
    CostWorld w("tiny-2n");
    Region& r = w.region_on(64, 0);
    Runner& p = w.run_on(2, r, 1.0);
    p.version = 1;
    w.update();
    CostModel::RateNote note;
    const double before = w.sys.cost.ns_per_byte(p.mix, p.cpu, nullptr, note);
    w.update(TICK_NSEC);
    EXPECT_EQ(w.sys.cost.find_stale_note(note, p.mix, p.cpu), std::nullopt);

    p.mix.rate_gbs = 2.0;  // neither a new version nor a cleared note
    w.update(2 * TICK_NSEC);
    const auto stale = w.sys.cost.find_stale_note(note, p.mix, p.cpu);
    ASSERT_TRUE(stale.has_value());
    EXPECT_NE(stale->find("no longer matches"), std::string::npos) << *stale;

    // Told of the change (a new version and a cleared note), the next solve derives it again.
    p.version = 2;
    note = {};
    account_region_move(*r.vma, r.first, 1, 0, 1);  // so that the solve is not kept
    w.update(3 * TICK_NSEC);
    EXPECT_EQ(w.sys.cost.find_stale_note(note, p.mix, p.cpu), std::nullopt);
    EXPECT_LT(w.sys.cost.ns_per_byte(p.mix, p.cpu, nullptr, note), before);
}

TEST(DemandCache, ObjectRangeMovesInvalidateEveryMapping) {
    // Moves of a shared object's pages are counted once in the object's range totals, which
    // every mapping reads: their stamp is part of each mapping's key.
    CostWorld w("tiny-2n");
    Region& r = w.region_on(64, 0);
    ASSERT_NE(r.shared, nullptr);
    Runner& p = w.run_on(2, r, 1.0);
    w.update();
    const double before = w.line_ns(p);
    // All pages go to node 1, as account_move counts it when every mapper maps them: in the
    // object only (moved[] counts modulo 2^64), the mapping's own part untouched.
    r.shared->moved[0] -= r.count;
    r.shared->moved[1] += r.count;
    r.shared->stamp.bump();
    EXPECT_LT(w.line_ns(p), before);  // all local now
    EXPECT_NEAR(w.line_ns(p), 55.0 + (90.0 + w.sys.cost.path_delay_ns(1, 1)) / 10, 1e-9);
}

}  // namespace
}  // namespace numasim
