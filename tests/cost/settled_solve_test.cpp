// A settled machine solves once (cost/cost_model.h): an update whose solve would be given what
// the last one was, from the delays that solve left bit for bit unchanged, keeps its result,
// and a RateNote keeps a CPU's rate while nothing it derives from moved. Both are shortcuts,
// not approximations: every number must be the one of a model that solves and derives at every
// update, and any change of placement, kernel traffic, user-mode share or rate must solve again.
// tiny-2n: L_local 90 ns, L_remote 140 ns, 10 line fill buffers, CPUs 0-1 on node 0, 2-3 on 1.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cost/bandwidth.h"
#include "cost_fixture.h"
#include "mm/fault.h"

namespace numasim {
namespace {

using costtest::CostWorld;
using costtest::Runner;

TEST(SettledSolve, SolverReachesAFixedPointThatARepeatKeeps) {
    // 20 streams of MLP 10 at 90 ns on one 60 GB/s node with a 9 ns knee (bandwidth_test.cpp):
    // warm-started solves of the same demand end where they began after a few rounds.
    BandwidthSolver s;
    s.init({{60.0, 9.0}});
    auto load = [&s](double duty) {
        s.clear();
        for (int i = 0; i < 20; ++i) {
            s.add_task(9.0, duty);
            s.add_use(0, 0.1, 64.0);
        }
    };
    int rounds = 0;
    do {
        load(1.0);
        s.solve(8);
    } while (!s.at_fixed_point() && ++rounds < 50);
    ASSERT_TRUE(s.at_fixed_point()) << "no fixed point after 50 solves";
    EXPECT_GE(rounds, 1);  // the first solve, from zero delay, moves
    const double q = s.delay(0), rate = s.task_rate(3), clip = s.clip(0);
    load(1.0);
    s.solve(8);
    EXPECT_TRUE(s.at_fixed_point());
    EXPECT_EQ(s.delay(0), q);
    EXPECT_EQ(s.task_rate(3), rate);
    EXPECT_EQ(s.clip(0), clip);
    // Less demand moves the delay: no longer where it was.
    load(0.5);
    s.solve(8);
    EXPECT_FALSE(s.at_fixed_point());
    EXPECT_LT(s.delay(0), q);
}

// Two worlds take the same steps; `fresh` derives and solves at every update (no kept demands),
// so each of kept's shortcuts must give its numbers bit for bit.
struct Pair {
    CostWorld kept{"tiny-2n"}, fresh{"tiny-2n"};
    Pair() { fresh.sys.cost.set_demand_cache(false); }
};

TEST(SettledSolve, KeptWhileNothingMovesAndSolvedAgainOnEveryChange) {
    Pair w;
    std::vector<double> a, b;
    std::vector<uint64_t> kept_after;
    for (CostWorld* c : {&w.kept, &w.fresh}) {
        std::vector<double>& out = c == &w.kept ? a : b;
        Region& x = c->region_on(64, 0);
        Runner& p = c->run_on(2, x, 8.0);  // node 1 reading node 0, enough to queue
        Runner& q = c->run_on(0, x, 8.0);
        Nanos t = 0;
        auto settle = [&] {
            for (int i = 0; i < 40; ++i)
                c->update(t += TICK_NSEC);
            out.push_back(c->line_ns(p));
            out.push_back(c->line_ns(q));
            if (c == &w.kept) kept_after.push_back(c->sys.cost.solves_kept());
        };
        settle();
        // Half the pages move to node 1: a placement change (the region's stamp).
        account_region_move(*x.vma, x.first, x.count / 2, 0, 1);
        settle();
        // Kernel traffic, a migration's copy, loads the next solve.
        c->sys.cost.copy_ns(1 << 20, 0, 1);
        c->update(t += TICK_NSEC);
        out.push_back(c->line_ns(p));
        settle();
        // p spends half its tick in the kernel.
        std::vector<CpuRunning> running(static_cast<size_t>(c->sys.nr_cpus()));
        running[2] = CpuRunning{&p.mix, p.id, 0.5};
        running[0] = CpuRunning{&q.mix, q.id, 1.0};
        c->sys.cost.update(running, t += TICK_NSEC);
        out.push_back(c->line_ns(q));
        settle();
        // p's phase asks for twice the rate over the same streams.
        p.mix.rate_gbs = 16.0;
        settle();
    }
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i)
        EXPECT_EQ(a[i], b[i]) << "rate " << i;
    EXPECT_EQ(w.fresh.sys.cost.solves_kept(), 0u);
    // Each settling kept solves, and each change interrupted that: none of the 41 updates
    // after a change may all have been kept.
    ASSERT_EQ(kept_after.size(), 5u);
    EXPECT_GT(kept_after[0], 0u);
    for (size_t i = 1; i < kept_after.size(); ++i) {
        EXPECT_GT(kept_after[i], kept_after[i - 1]) << "settling " << i;
        EXPECT_LT(kept_after[i] - kept_after[i - 1], 41u) << "settling " << i;
    }
    // The move made p partly local, so it went faster.
    EXPECT_LT(a[2], a[0]);
}

// The engine names the CPUs whose task or mix changed since the last update, and the sharing
// is compared on those alone: the same rates as a model that derives everything at every
// update, through a task replaced by one with the same streams, a CPU going idle and one
// starting a new task, and solves still kept while nothing changes.
TEST(SettledSolve, SharingComparedOnTheChangedCpusOnly) {
    Pair w;
    std::vector<double> rates[2];
    for (CostWorld* c : {&w.kept, &w.fresh}) {
        const bool named = c == &w.kept;
        std::vector<double>& out = rates[named ? 0 : 1];
        Region& x = c->region_on(64, 0);
        Region& y = c->region_on(32, 1);
        Runner& p = c->run_on(2, x, 8.0);
        c->run_on(0, x, 8.0);
        std::vector<CpuRunning> last(static_cast<size_t>(c->sys.nr_cpus()));
        Nanos t = 0;
        auto update = [&] {
            std::vector<CpuRunning> running(last.size());
            for (const auto& r : c->runners)
                running[r->cpu] = CpuRunning{&r->mix, r->id, 1.0};
            std::vector<int> changed;
            for (size_t cpu = 0; cpu < running.size(); ++cpu)
                if (running[cpu].task != last[cpu].task || running[cpu].mix != last[cpu].mix)
                    changed.push_back(static_cast<int>(cpu));
            last = running;
            if (named)
                c->sys.cost.update(running, t += TICK_NSEC, changed.empty(), changed);
            else
                c->sys.cost.update(running, t += TICK_NSEC);
        };
        auto settle = [&] {
            for (int i = 0; i < 20; ++i)
                update();
            for (const auto& r : c->runners)
                out.push_back(c->line_ns(*r));
        };
        settle();
        c->stop(0);
        c->run_on(0, x, 8.0);  // another task, the same streams
        settle();
        c->stop(0);  // CPU 0 idle
        settle();
        c->run_on(1, y, 4.0, Pattern::Random);  // a new task on a CPU idle until now
        settle();
        out.push_back(c->line_ns(p));
    }
    ASSERT_EQ(rates[0].size(), rates[1].size());
    for (size_t i = 0; i < rates[0].size(); ++i)
        EXPECT_EQ(rates[0][i], rates[1][i]) << "rate " << i;
    EXPECT_GT(w.kept.sys.cost.solves_kept(), 0u);
}

TEST(SettledSolve, RateNoteStandsUntilSomethingMoves) {
    CostWorld w("tiny-2n");
    Region& x = w.region_on(64, 0);
    Runner& p = w.run_on(2, x, 1.0);
    w.update(0);
    CostModel::RateNote note;
    double miss = -1, plain_miss = -1;
    const double first = w.sys.cost.ns_per_byte(p.mix, p.cpu, &miss, note);
    EXPECT_EQ(first, w.sys.cost.ns_per_byte(p.mix, p.cpu, &plain_miss));
    EXPECT_EQ(miss, plain_miss);
    EXPECT_EQ(note.cpu, p.cpu);
    // Taken from the note: the kept demand is not even looked up.
    const uint64_t lookups = w.sys.cost.demand_hits() + w.sys.cost.demand_misses();
    EXPECT_EQ(w.sys.cost.ns_per_byte(p.mix, p.cpu, &miss, note), first);
    EXPECT_EQ(w.sys.cost.demand_hits() + w.sys.cost.demand_misses(), lookups);
    // All pages move to node 1: the note no longer stands, and the rate is the local one.
    account_region_move(*x.vma, x.first, x.count, 0, 1);
    const double local = w.sys.cost.ns_per_byte(p.mix, p.cpu, &miss, note);
    EXPECT_LT(local, first);
    EXPECT_EQ(local, w.sys.cost.ns_per_byte(p.mix, p.cpu));
    // On another CPU the note does not stand either.
    EXPECT_EQ(w.sys.cost.ns_per_byte(p.mix, 0, &miss, note), w.sys.cost.ns_per_byte(p.mix, 0));
    EXPECT_EQ(note.cpu, 0);
}

TEST(SettledSolve, ChangesBehindTheShortcutsBackAreReported) {
    // A writer that changes a page count without its stamp leaves the placement epoch where it
    // was: the next update keeps its solve and the note stands, and the invariant checker's
    // questions must show both stale.
    CostWorld w("tiny-2n");
    Region& x = w.region_on(64, 0);
    Runner& p = w.run_on(2, x, 8.0);
    w.run_on(0, x, 8.0);
    Nanos t = 0;
    for (int i = 0; i < 40; ++i)
        w.update(t += TICK_NSEC);
    ASSERT_GT(w.sys.cost.solves_kept(), 0u);
    CostModel::RateNote note;
    double miss = 0;
    w.sys.cost.ns_per_byte(p.mix, p.cpu, &miss, note);
    EXPECT_EQ(w.sys.cost.find_stale_solve(t), std::nullopt);
    EXPECT_EQ(w.sys.cost.find_stale_note(note, p.mix, p.cpu), std::nullopt);

    x.node_pages[0] = 0;  // every page "moves" to node 1 without the stamp
    x.node_pages[1] = x.count;
    const uint64_t kept = w.sys.cost.solves_kept();
    w.update(t += TICK_NSEC);
    EXPECT_EQ(w.sys.cost.solves_kept(), kept + 1);
    const auto solve = w.sys.cost.find_stale_solve(t);
    ASSERT_TRUE(solve.has_value());
    EXPECT_NE(solve->find("PlacementStamp::epoch"), std::string::npos) << *solve;
    const auto stale = w.sys.cost.find_stale_note(note, p.mix, p.cpu);
    ASSERT_TRUE(stale.has_value());
    EXPECT_NE(stale->find("cpu 2"), std::string::npos) << *stale;
    // Once the stamp moves, the next update solves and nothing is stale.
    x.stamp.bump();
    w.update(t += TICK_NSEC);
    EXPECT_EQ(w.sys.cost.solves_kept(), kept + 1);
    EXPECT_EQ(w.sys.cost.find_stale_solve(t), std::nullopt);
    EXPECT_EQ(w.sys.cost.find_stale_note(note, p.mix, p.cpu), std::nullopt);
}

}  // namespace
}  // namespace numasim
