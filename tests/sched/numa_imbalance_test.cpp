// The NUMA imbalance allowance of each release, worked by hand from kernel/sched/fair.c of v5.7,
// v5.10 (fixed) and v5.18+ (imb_numa_nr); the first posting's and v5.6's forms are in
// load_balance_history_test.cpp.
#include "sched/numa_imbalance.h"

#include <gtest/gtest.h>

#include "sched/lb_env.h"
#include "sched/sched_domain.h"

namespace numasim {
namespace {

NumaBalancingKnobs with(NumaImbalance v) {
    NumaBalancingKnobs k;
    k.numa_imbalance = v;
    return k;
}

SgStats group(unsigned running, unsigned weight = 8) {
    SgStats s;
    s.sum_nr_running = running;
    s.weight = weight;
    return s;
}

SchedDomain numa_domain(int imb_numa_nr) {
    SchedDomain sd;
    sd.numa = true;
    sd.imb_numa_nr = imb_numa_nr;
    return sd;
}

TEST(NumaImbalance, MoveInTaskNumaFindCpu) {
    // v5.7 asks about the source after the move, v5.10 about the destination.
    const auto src = with(NumaImbalance::SrcMin), fixed = with(NumaImbalance::Fixed);
    EXPECT_EQ(numa_move_imbalance(src, 2, 1, 3, 16), 0);
    EXPECT_EQ(numa_move_imbalance(fixed, 2, 1, 3, 16), 2);
    EXPECT_EQ(numa_move_imbalance(fixed, 2, 0, 2, 16), 0);
    EXPECT_EQ(numa_move_imbalance(fixed, 1, 2, 3, 16), 1);  // imb_numa_nr plays no part
    // v5.18+: up to imb_numa_nr running tasks, an imbalance of at most 2 counts as none.
    const auto imb = with(NumaImbalance::ImbNumaNr);
    EXPECT_EQ(numa_move_imbalance(imb, 1, 2, 3, 16), 0);
    EXPECT_EQ(numa_move_imbalance(imb, 3, 0, 3, 16), 3);
    EXPECT_EQ(numa_move_imbalance(imb, 1, 16, 17, 16), 1);
    // Before v5.7 the NUMA search saw the imbalance as it was.
    for (auto v : {NumaImbalance::None, NumaImbalance::ImbalancePct, NumaImbalance::BusiestMin})
        EXPECT_EQ(numa_move_imbalance(with(v), 1, 0, 2, 16), 1);
}

TEST(NumaImbalance, CalculateImbalanceCountsTheRightGroup) {
    const SchedDomain sd = numa_domain(2);
    // v5.6 to v5.10 ask about the busiest group: 2 tasks there are a pair worth keeping
    // together, however idle the local group is. The result is in tasks to move (halved).
    for (auto v : {NumaImbalance::BusiestMin, NumaImbalance::SrcMin, NumaImbalance::Fixed}) {
        EXPECT_EQ(numa_balance_imbalance(with(v), sd, 6, group(2), group(0)), 0);
        EXPECT_EQ(numa_balance_imbalance(with(v), sd, 6, group(3), group(0)), 3);
    }
    // v5.18+ asks about the local group after the pull, against imb_numa_nr.
    const auto imb = with(NumaImbalance::ImbNumaNr);
    EXPECT_EQ(numa_balance_imbalance(imb, sd, 2, group(8), group(1)), 0);  // 1 + 1 <= 2
    EXPECT_EQ(numa_balance_imbalance(imb, sd, 2, group(8), group(2)), 1);  // 2 + 1 > 2
    EXPECT_EQ(numa_balance_imbalance(imb, sd, 6, group(2), group(0)), 3);  // more than 2
    EXPECT_EQ(numa_balance_imbalance(with(NumaImbalance::None), sd, 2, group(2), group(0)), 1);
}

TEST(NumaImbalance, ForkPlacement) {
    for (auto v : {NumaImbalance::None, NumaImbalance::ImbalancePct, NumaImbalance::BusiestMin,
                   NumaImbalance::SrcMin})
        EXPECT_FALSE(numa_fork_rules(with(v)));
    EXPECT_TRUE(numa_fork_rules(with(NumaImbalance::Fixed)));
    EXPECT_TRUE(numa_fork_rules(with(NumaImbalance::ImbNumaNr)));
    // Local group: 3 running, 1 idle CPU; idlest group: 4 idle CPUs; imb_numa_nr 2.
    // v5.10 keeps the task local while the local group has an idle CPU.
    const auto fixed = with(NumaImbalance::Fixed);
    EXPECT_FALSE(numa_fork_spreads(fixed, 3, 1, 4, 2, 64));
    EXPECT_TRUE(numa_fork_spreads(fixed, 3, 0, 4, 2, 64));
    // v5.18+: 3 + 1 > imb_numa_nr, so the imbalance of 3 idle CPUs stands and the task spreads.
    const auto imb = with(NumaImbalance::ImbNumaNr);
    EXPECT_TRUE(numa_fork_spreads(imb, 3, 1, 4, 2, 64));
    // With 1 running the allowance holds (2 <= 2) and an idle difference of 2 is ignored...
    EXPECT_FALSE(numa_fork_spreads(imb, 1, 2, 4, 2, 64));
    // ...unless the task may use only one CPU, which caps imb_numa_nr at 1.
    EXPECT_TRUE(numa_fork_spreads(imb, 1, 2, 4, 2, 1));
}

}  // namespace
}  // namespace numasim
