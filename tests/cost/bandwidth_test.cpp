// The closed-loop bandwidth solve on hand-worked cases.
//
// N identical memory-bound tasks on one resource (idle latency L, MLP M, bandwidth B, knee k):
// each needs fixed = L / M and waits Q / M per line, so the load is D = N * 64 * M / (L + Q),
// and the fixed point D / B = Q / (k + Q) is the positive root of
//     B Q^2 + (B L - 64 N M) Q - 64 N M k = 0.
#include "cost/bandwidth.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

namespace numasim {
namespace {

double root(double b, double l, double m, double k, int n) {
    const double c = 64.0 * n * m;
    const double bq = b * l - c;
    return (-bq + std::sqrt(bq * bq + 4 * b * c * k)) / (2 * b);
}

void add_streams(BandwidthSolver& s, int n, double l, double m) {
    for (int i = 0; i < n; ++i) {
        s.add_task(l / m, 1.0);
        s.add_use(0, 1.0 / m, 64.0);
    }
}

TEST(BandwidthSolver, SingleResourceMatchesTheQuadratic) {
    // 20 streams of MLP 10 at 90 ns on a 60 GB/s node with a 9 ns knee:
    // 60 Q^2 - 7400 Q - 115200 = 0, Q = 137.3 ns; D = 12800 / 227.3 = 56.3 GB/s (93.9 %).
    BandwidthSolver s;
    s.init({{60.0, 9.0}});
    add_streams(s, 20, 90, 10);
    s.solve(20);
    const double q = root(60, 90, 10, 9, 20);
    EXPECT_NEAR(q, 137.3, 0.05);
    EXPECT_NEAR(s.delay(0), q, 1e-6 * q);
    EXPECT_NEAR(s.load(0), 12800.0 / (90 + q), 1e-6);
    EXPECT_LT(s.load(0), 60.0);
    EXPECT_DOUBLE_EQ(s.clip(0), 1.0);  // converged: no backpressure needed
    EXPECT_LT(s.residual(0), 1e-6);
    // Each task's rate is 10 lines per (90 + Q) ns.
    EXPECT_NEAR(s.task_rate(3), 10.0 / (90 + q), 1e-9);
}

TEST(BandwidthSolver, LightLoadBarelyQueues) {
    // One stream: 640 / 90 = 7.1 GB/s of 60, utilisation ~12 %: Q = 9 * rho / (1 - rho) ~ 1.2.
    BandwidthSolver s;
    s.init({{60.0, 9.0}});
    add_streams(s, 1, 90, 10);
    s.solve(20);
    const double q = root(60, 90, 10, 9, 1);
    EXPECT_NEAR(s.delay(0), q, 1e-6);
    EXPECT_NEAR(q, 1.2, 0.1);
}

TEST(BandwidthSolver, WarmStartConvergesInFewPasses) {
    BandwidthSolver s;
    s.init({{60.0, 9.0}});
    add_streams(s, 20, 90, 10);
    s.solve(20);
    s.clear();
    add_streams(s, 20, 90, 10);
    EXPECT_LE(s.solve(20), 1);  // already at the fixed point
    s.clear();
    add_streams(s, 24, 90, 10);  // a few more tasks: a couple of Newton steps
    EXPECT_LE(s.solve(20), 4);
    EXPECT_NEAR(s.delay(0), root(60, 90, 10, 9, 24), 1e-4);
}

TEST(BandwidthSolver, BackpressureCapsAnUnconvergedSolve) {
    // No Newton pass at all: the delays stay 0, the 20 streams ask 12800 / 90 = 142 GB/s of a
    // 60 GB/s node, and the clip scales them down to exactly the bandwidth.
    BandwidthSolver s;
    s.init({{60.0, 9.0}});
    add_streams(s, 20, 90, 10);
    s.solve(0);
    EXPECT_NEAR(s.clip(0), 60.0 / (12800.0 / 90), 1e-12);
    EXPECT_NEAR(s.load(0), 60.0, 1e-9);
    EXPECT_LE(s.load(0), 60.0 * (1 + 1e-12));
}

TEST(BandwidthSolver, BackgroundLoadLeavesLessForTheTasks) {
    BandwidthSolver s;
    s.init({{60.0, 9.0}});
    add_streams(s, 20, 90, 10);
    s.set_background(0, 30.0);
    s.solve(20);
    const double tasks = s.load(0) - 30.0;
    EXPECT_LT(s.load(0), 60.0);
    EXPECT_LT(tasks, 30.0);
    EXPECT_GT(tasks, 25.0);
    // Background alone can never fill the resource, or there would be no fixed point.
    BandwidthSolver full;
    full.init({{60.0, 9.0}});
    full.set_background(0, 100.0);
    full.solve(20);
    EXPECT_LT(full.load(0), 60.0);
}

TEST(BandwidthSolver, CoupledDramAndLinkBothHoldTheirLimits) {
    // Resource 0: a 60 GB/s DRAM; resource 1: a 20 GB/s link. Ten local streams use the DRAM,
    // ten remote ones use both (and wait on both delays).
    BandwidthSolver s;
    s.init({{60.0, 9.0}, {20.0, 5.0}});
    for (int i = 0; i < 10; ++i) {
        s.add_task(9.0, 1.0);
        s.add_use(0, 0.1, 64.0);
    }
    for (int i = 0; i < 10; ++i) {
        s.add_task(14.0, 1.0);
        s.add_use(0, 0.1, 64.0);
        s.add_use(1, 0.1, 64.0);
    }
    s.solve(50);
    EXPECT_LT(s.residual(0), 1e-6);
    EXPECT_LT(s.residual(1), 1e-6);
    EXPECT_LT(s.load(0), 60.0);
    EXPECT_LT(s.load(1), 20.0);
    EXPECT_GT(s.load(1), 15.0);  // the link is the remote streams' bottleneck, and nearly full
    // Remote streams carry the link's delay on top of the DRAM's.
    EXPECT_LT(s.task_rate(15), s.task_rate(5));
}

TEST(BandwidthSolver, AConvergedSolveRepeatsToTheBitOverARangeOfLoads) {
    // Two DRAMs and the link between them, with local and remote streams on both sides, over a
    // range of stream counts and bandwidths. Once a solve has converged, solving the same
    // demand again must leave every delay bit for bit where it was (a fixed point): a settled
    // machine is recognised only then (cost/cost_model.h). A Newton step taken from converged
    // delays moves them by round-off, and the next solve's round-off moves them again.
    int cases = 0;
    for (int local = 1; local <= 30; local += 3)
        for (int remote = 0; remote <= 12; remote += 2)
            for (double dram : {20.0, 45.0, 80.0}) {
                BandwidthSolver s;
                s.init({{dram, 9.0}, {dram, 9.0}, {0.3 * dram, 5.0}});
                auto load = [&] {
                    s.clear();
                    for (int side = 0; side < 2; ++side) {
                        for (int i = 0; i < local; ++i) {
                            s.add_task(9.0, 1.0);
                            s.add_use(side, 0.1, 64.0);
                        }
                        for (int i = 0; i < remote; ++i) {
                            s.add_task(14.0, 1.0);
                            s.add_use(1 - side, 0.1, 64.0);
                            s.add_use(2, 0.1, 64.0);
                        }
                    }
                };
                // Solved until a solve ends on the tolerance rather than on its pass limit.
                int rounds = 0;
                do
                    load();
                while (s.solve(8) == 8 && ++rounds < 20);
                const double q0 = s.delay(0), q1 = s.delay(1), q2 = s.delay(2);
                load();
                EXPECT_EQ(s.solve(8), 0) << local << " local, " << remote << " remote, " << dram;
                EXPECT_TRUE(s.at_fixed_point()) << local << " local, " << remote << " remote";
                EXPECT_EQ(s.delay(0), q0);
                EXPECT_EQ(s.delay(1), q1);
                EXPECT_EQ(s.delay(2), q2);
                ++cases;
            }
    EXPECT_EQ(cases, 10 * 7 * 3);
}

TEST(BandwidthSolver, AResourceWithNoFixedPointIsHeldSaturatedAndRepeatsToTheBit) {
    // A 20 GB/s link carries 19.98 GB/s of kernel copies (the 99.9 % background cap) and the
    // write-backs of one stream that does not wait on it (stall weight 0): 640 / (90 + Q0) ~ 7
    // GB/s more whatever the link's delay, so the link has no fixed point. The stream's own
    // DRAM (60 GB/s, knee 9) solves as alone: Q0 = root(60, 90, 10, 9, 1) ~ 1.2 ns. The link's
    // delay must stay finite (unbounded Newton steps reach infinity, then NaN), the solve must
    // end, and solving it again must repeat it bit for bit; backpressure scales the stream to
    // the 0.02 GB/s the copies leave.
    const auto demand = [](BandwidthSolver& s) {
        s.add_task(9.0, 1.0);
        s.add_use(0, 0.1, 64.0);
        s.add_use(1, 0.0, 64.0);
        s.set_background(1, 100.0);  // held at 99.9 % of 20
    };
    BandwidthSolver s;
    s.init({{60.0, 9.0}, {20.0, 5.0}});
    demand(s);
    s.solve(8);
    const double q0 = root(60, 90, 10, 9, 1);
    EXPECT_NEAR(s.delay(0), q0, 1e-6);
    EXPECT_TRUE(std::isfinite(s.delay(1)));
    EXPECT_GT(s.delay(1), 1e6);  // a queue no link of cache lines has: saturated
    const double wanted = 640.0 / (90 + q0);
    EXPECT_NEAR(s.clip(1), 0.02 / wanted, 1e-9);
    EXPECT_NEAR(s.task_rate(0), s.clip(1) * 10.0 / (90 + q0), 1e-12);
    EXPECT_LE(s.load(1), 20.0 * (1 + 1e-12));
    // Again, with the same demand: no step at all, the same bits.
    for (int round = 0; round < 3; ++round) {
        s.clear();
        demand(s);
        EXPECT_EQ(s.solve(8), 0);
        EXPECT_TRUE(s.at_fixed_point());
    }
}

TEST(BandwidthSolver, DutyScalesALoad) {
    // A task that spends half its time in the kernel loads the resource half as much.
    BandwidthSolver s;
    s.init({{600.0, 9.0}});
    s.add_task(9.0, 0.5);
    s.add_use(0, 0.1, 64.0);
    s.solve(20);
    EXPECT_NEAR(s.load(0), 0.5 * 64.0 * s.task_rate(0), 1e-12);
}

TEST(BandwidthSolver, DistinctUsesAddedUpMatchRepeatedUses) {
    // A task that reaches node 0's DRAM twice (reads and write-backs) and the link once: given
    // use by use, or already added up per resource, the solve is the same to the bit.
    BandwidthSolver a, b;
    for (BandwidthSolver* s : {&a, &b})
        s->init({{60.0, 9.0}, {20.8, 5.0}});
    for (int t = 0; t < 12; ++t) {
        a.add_task(5.5, 1.0);
        a.add_use(0, 0.1, 64.0);
        a.add_use(1, 0.1, 64.0);
        a.add_use(0, 0.0, 32.0);
        b.add_task(5.5, 1.0);
        b.add_uses(std::vector<BandwidthSolver::Use>{{0, 0.1 + 0.0, 64.0 + 32.0}, {1, 0.1, 64.0}});
    }
    EXPECT_EQ(a.solve(8), b.solve(8));
    for (int r = 0; r < 2; ++r) {
        EXPECT_EQ(a.delay(r), b.delay(r)) << r;
        EXPECT_EQ(a.load(r), b.load(r)) << r;
    }
    EXPECT_EQ(a.task_rate(11), b.task_rate(11));
    EXPECT_GT(a.delay(0), 0.0);
}

TEST(BandwidthSolver, TasksOfOneIdTakeTheirFiguresOnceAndTheSameBits) {
    // Two demands, each held by several tasks (ids 7 and 9, cost/cost_model.h), some at another
    // duty, interleaved: given by id, each id and duty's line time and loads are computed once
    // and added in task order; given each on its own, every task computes its own. The solves
    // must agree to the bit, unconverged (2 passes, backpressure) and converged, and taking
    // one id's figures for another's would move node 0's load.
    using Uses = std::vector<BandwidthSolver::Use>;
    const Uses seven{{0, 0.1, 96.0}, {1, 0.1, 64.0}}, nine{{0, 0.25, 64.0}};
    struct T {
        uint64_t id;
        double duty;
    };
    const std::vector<T> tasks{{7, 1.0}, {9, 1.0}, {7, 1.0}, {7, 0.5},
                               {9, 1.0}, {7, 0.5}, {7, 1.0}};
    for (int passes : {2, 20}) {
        BandwidthSolver a, b;
        for (BandwidthSolver* s : {&a, &b})
            s->init({{30.0, 9.0}, {10.4, 5.0}});
        for (int round = 0; round < 2; ++round) {  // the second from the first one's delays
            for (BandwidthSolver* s : {&a, &b}) {
                s->clear();
                for (const T& t : tasks) {
                    s->add_task(t.id == 7 ? 5.5 : 9.0, t.duty);
                    s->add_uses(t.id == 7 ? seven : nine, s == &a ? t.id : 0);
                }
            }
            EXPECT_EQ(a.solve(passes), b.solve(passes)) << passes;
            EXPECT_TRUE(a.same_result(b)) << passes << " passes, round " << round;
            EXPECT_EQ(a.residual(0), b.residual(0));
            for (size_t i = 0; i < tasks.size(); ++i)
                EXPECT_EQ(a.task_rate(static_cast<int>(i)), b.task_rate(static_cast<int>(i))) << i;
        }
        EXPECT_GT(a.delay(0), 0.0);
        EXPECT_NE(a.task_rate(0), a.task_rate(1));
    }
}

TEST(BandwidthSolver, RunsOfOneIdAddTheirLoadsOneAfterTheOther) {
    // Threads of one process on the CPUs of one node come one after the other with one id: 28
    // tasks of id 7, 5 of id 9, 28 of id 7 again and one of id 7 at another duty. Taken by id,
    // each run adds its repeated figure to every resource once per task; the solve must have the
    // bits of every task given on its own, unconverged and converged. The figures (tenths) are
    // not exact in binary, so 28 additions of one differ from a product (checked below).
    using Uses = std::vector<BandwidthSolver::Use>;
    const Uses seven{{0, 0.1, 96.3}, {1, 0.1, 64.1}, {2, 0.0, 32.7}}, nine{{0, 0.3, 64.1}};
    std::vector<std::pair<uint64_t, double>> tasks;
    for (int i = 0; i < 28; ++i)
        tasks.push_back({7, 1.0});
    for (int i = 0; i < 5; ++i)
        tasks.push_back({9, 1.0});
    for (int i = 0; i < 28; ++i)
        tasks.push_back({7, 1.0});
    tasks.push_back({7, 0.7});
    for (int passes : {2, 20}) {
        BandwidthSolver a, b;
        for (BandwidthSolver* s : {&a, &b})
            s->init({{300.0, 9.0}, {104.0, 5.0}, {104.0, 5.0}});
        for (int round = 0; round < 2; ++round) {
            for (BandwidthSolver* s : {&a, &b}) {
                s->clear();
                for (const auto& [id, duty] : tasks) {
                    s->add_task(id == 7 ? 5.5 : 9.1, duty);
                    s->add_uses(id == 7 ? seven : nine, s == &a ? id : 0);
                }
            }
            EXPECT_EQ(a.solve(passes), b.solve(passes)) << passes;
            EXPECT_TRUE(a.same_result(b)) << passes << " passes, round " << round;
            EXPECT_EQ(a.residual(1), b.residual(1));
        }
        EXPECT_GT(a.delay(0), 0.0);
    }
    double sum = 0.1;
    for (int i = 0; i < 28; ++i)
        sum += 96.3 / 7.1;
    EXPECT_NE(sum, 0.1 + 28 * (96.3 / 7.1));
}

}  // namespace
}  // namespace numasim
