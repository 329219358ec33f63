// task_numa_compare with and without SMALLIMP, the node classification and load checks, and the
// load balancer's NUMA hooks.
#include "numab/numa_env.h"
#include "numab_fixture.h"
#include "sched/fair.h"

namespace numasim::test {
namespace {

// p on CPU 0 (node 0) prefers node 1; cur runs on CPU 2 (node 1) and has no fault statistics,
// so swapping them gains exactly p's task importance.
struct Compare : ::testing::Test {
    NumabWorld w;
    Task* p = nullptr;
    Task* cur = nullptr;
    TaskNumaEnv env;
    void SetUp() override {
        Mm& a = w.new_mm();
        Mm& b = w.new_mm();
        p = &w.new_task(a, 1000, 0, true);
        cur = &w.new_task(b, 2000, 2, true);
        env.p = p;
        env.src_cpu = 0;
        env.src_nid = 0;
        env.dst_nid = 1;
        env.dst_cpu = 2;
        env.dist = 21;
        env.imbalance_pct = 108;
        env.src_stats.compute_capacity = env.dst_stats.compute_capacity = 2048;
        env.dst_stats.node_type = NumaType::FullyBusy;
    }
};

TEST_F(Compare, SmallimpRefusesImp25) {
    w.sys.knobs.smallimp = 30;
    EXPECT_FALSE(task_numa_compare_for_test(w.sys, env, 25, 0, false));
    EXPECT_EQ(env.best_cpu, -1);
    EXPECT_EQ(env.best_task, nullptr);
}

TEST_F(Compare, SmallimpAcceptsImp31) {
    w.sys.knobs.smallimp = 30;
    task_numa_compare_for_test(w.sys, env, 31, 0, false);  // 31 >= 30 and > 0 + 15
    EXPECT_EQ(env.best_cpu, 2);
    EXPECT_EQ(env.best_task, cur);
    EXPECT_EQ(env.best_imp, 31);
    EXPECT_TRUE(w.sys.rqs[2].numa_migrate_on);  // claimed
}

TEST_F(Compare, NoSmallimpTakesImp25) {
    w.sys.knobs.smallimp = 0;
    task_numa_compare_for_test(w.sys, env, 25, 0, false);
    EXPECT_EQ(env.best_cpu, 2);
    EXPECT_EQ(env.best_task, cur);
    EXPECT_EQ(env.best_imp, 25);
}

TEST_F(Compare, NoSmallimpMoveWinsOnePointLower) {
    // cur's faults: 49 on node 0, 51 on node 1 -> weights 490 / 510, so the swap gains
    // imp = 40 + 490 - 510 = 20 while the move gains moveimp = 40: the move wins.
    w.set_mem_faults(*cur, 0, 0, 49);
    w.set_mem_faults(*cur, 1, 0, 51);
    w.sys.knobs.smallimp = 0;
    task_numa_compare_for_test(w.sys, env, 40, 0, true);
    EXPECT_EQ(env.best_task, nullptr);
    EXPECT_EQ(env.best_cpu, 2);
    EXPECT_EQ(env.best_imp, 39);  // before SMALLIMP: moveimp - 1
    w.sys.knobs.smallimp = 30;
    env.best_cpu = -1;
    env.best_imp = 0;
    w.sys.rqs[2].numa_migrate_on = false;
    task_numa_compare_for_test(w.sys, env, 40, 0, true);
    EXPECT_EQ(env.best_imp, 40);  // since SMALLIMP: moveimp
}

TEST_F(Compare, NoSmallimpRejectsBeforeMoveCheck) {
    // Old code: imp <= best_imp ends the comparison even when a move would be better.
    w.set_mem_faults(*cur, 1, 0, 100);  // swapping costs cur 1000
    w.sys.knobs.smallimp = 0;
    task_numa_compare_for_test(w.sys, env, 40, 0, true);
    EXPECT_EQ(env.best_cpu, -1);
    w.sys.knobs.smallimp = 30;
    task_numa_compare_for_test(w.sys, env, 40, 0, true);
    EXPECT_EQ(env.best_cpu, 2);  // the move is considered first now
    EXPECT_EQ(env.best_task, nullptr);
}

// numa_task_swap off: the swap of SmallimpAcceptsImp31 is refused, and with a move allowed the
// busy CPU takes p as a move at moveimp (31), or moveimp - 1 before SMALLIMP.
TEST_F(Compare, NoTaskSwapTakesOnlyMoves) {
    w.sys.knobs.numa_task_swap = false;
    w.sys.knobs.smallimp = 30;
    EXPECT_FALSE(task_numa_compare_for_test(w.sys, env, 31, 0, false));
    EXPECT_EQ(env.best_cpu, -1);
    task_numa_compare_for_test(w.sys, env, 31, 0, true);
    EXPECT_EQ(env.best_cpu, 2);
    EXPECT_EQ(env.best_task, nullptr);
    EXPECT_EQ(env.best_imp, 31);
    w.sys.knobs.smallimp = 0;
    env.best_cpu = -1;
    env.best_imp = 0;
    w.sys.rqs[2].numa_migrate_on = false;
    task_numa_compare_for_test(w.sys, env, 31, 0, true);
    EXPECT_EQ(env.best_task, nullptr);
    EXPECT_EQ(env.best_imp, 30);
}

// The swap partner's preferred node biases imp from v5.7 (88cca72c9673) only: going home
// 40 + 40/8 = 45, staying home 40 - 40/16 = 38; the v4.x search (numa_classify off) keeps 40.
TEST_F(Compare, PreferredNodeBiasOnlyFromV57) {
    w.sys.knobs.smallimp = 30;
    const auto best_imp = [&](bool v57, int cur_preferred) {
        w.sys.knobs.numa_classify = v57;
        cur->numa_preferred_nid = cur_preferred;
        env.best_cpu = -1;
        env.best_imp = 0;
        env.best_task = nullptr;
        w.sys.rqs[2].numa_migrate_on = false;
        task_numa_compare_for_test(w.sys, env, 40, 0, false);
        EXPECT_EQ(env.best_task, cur);
        return env.best_imp;
    };
    EXPECT_EQ(best_imp(true, 0), 45);
    EXPECT_EQ(best_imp(true, 1), 38);
    EXPECT_EQ(best_imp(false, 0), 40);
    EXPECT_EQ(best_imp(false, 1), 40);
}

TEST_F(Compare, BusyDestinationClaimedElsewhereIsSkipped) {
    w.sys.rqs[2].numa_migrate_on = true;
    EXPECT_FALSE(task_numa_compare_for_test(w.sys, env, 500, 0, false));
    EXPECT_EQ(env.best_cpu, -1);
}

// task_numa_find_cpu pulls cache lines from every runqueue it looks at, at the transfer cost
// from the searching CPU's node (tiny-2n: 140 ns to node 1): 4 lines for a busy CPU, 1 for an
// idle one (cost/constants.h).
TEST_F(Compare, SearchPaysForTheRunqueuesItReads) {
    w.sys.knobs.smallimp = 30;  // imp 25 is refused at CPU 2, so CPU 3 is looked at too
    task_numa_find_cpu(w.sys, env, 25, 0);
    EXPECT_NEAR(env.search_ns, 4 * 140.0 + 1 * 140.0, 1e-9);
}

TEST(FindCpuSearch, IdleEarlyStopReadsFewerRunqueues) {
    // v4.19 without the v5.7 classification: p on CPU 0 may move to node 1, whose CPU 2 is idle
    // and CPU 3 busy. Stopping at the idle CPU reads one runqueue; searching on reads both.
    for (bool stop : {true, false}) {
        NumaBalancingKnobs k;
        k.numa_classify = false;
        k.idle_early_stop = stop;
        NumabWorld w(k);
        Task& p = w.new_task(w.new_mm(), 1000, 0, true);
        w.new_task(w.new_mm(), 2000, 3, true);
        TaskNumaEnv env;
        env.p = &p;
        env.src_cpu = 0;
        env.src_nid = 0;
        env.dst_nid = 1;
        env.dist = 21;
        env.imbalance_pct = 108;
        env.src_stats.compute_capacity = env.dst_stats.compute_capacity = 2048;
        task_numa_find_cpu(w.sys, env, 40, 0);
        EXPECT_EQ(env.best_cpu, 2) << stop;
        EXPECT_NEAR(env.search_ns, stop ? 140.0 : 140.0 + 4 * 140.0, 1e-9) << stop;
        w.sys.rqs[2].numa_migrate_on = false;
    }
}

TEST(NumaClassify, Cases) {
    NumaStats ns;
    ns.weight = 4;
    ns.compute_capacity = 4096;
    ns.nr_running = 5;
    ns.util = 4000;  // 4096*100 = 409600 < 4000*108 = 432000
    ns.runnable = 4000;
    EXPECT_EQ(numa_classify(108, ns), NumaType::Overloaded);
    ns.nr_running = 3;
    EXPECT_EQ(numa_classify(108, ns), NumaType::HasSpare);  // fewer tasks than CPUs
    ns.nr_running = 4;
    ns.util = 3000;
    ns.runnable = 3000;  // 409600 > 324000 and 442368 > 300000
    EXPECT_EQ(numa_classify(108, ns), NumaType::HasSpare);
    ns.util = 3900;  // 409600 < 421200
    EXPECT_EQ(numa_classify(108, ns), NumaType::FullyBusy);
    ns.nr_running = 5;
    ns.util = 3000;
    ns.runnable = 4200;  // 409600 > 324000 and 442368 > 420000: spare by utilisation
    EXPECT_EQ(numa_classify(108, ns), NumaType::HasSpare);
    ns.runnable = 4500;  // 442368 < 450000
    EXPECT_EQ(numa_classify(108, ns), NumaType::Overloaded);
}

TEST(LoadTooImbalanced, Cases) {
    TaskNumaEnv env;
    env.src_stats.compute_capacity = env.dst_stats.compute_capacity = 2048;
    env.src_stats.load = 3072;
    env.dst_stats.load = 1024;
    // old imbalance |1024*2048 - 3072*2048| = 2048*2048
    EXPECT_FALSE(load_too_imbalanced(3072 - 1024, 1024 + 1024, env));  // 0
    EXPECT_FALSE(load_too_imbalanced(3072 - 2048, 1024 + 2048, env));  // equal: not worse
    EXPECT_TRUE(load_too_imbalanced(3072 - 3072, 1024 + 3072, env));   // 4096*2048
}

TEST(AdjustNumaImbalance, KernelFunction) {
    // dst_running > imb_numa_nr keeps the imbalance; else <= 2 is 0.
    EXPECT_EQ(adjust_numa_imbalance(1, 2, 4), 0);
    EXPECT_EQ(adjust_numa_imbalance(2, 4, 4), 0);
    EXPECT_EQ(adjust_numa_imbalance(3, 2, 4), 3);
    EXPECT_EQ(adjust_numa_imbalance(1, 5, 4), 1);
    // The v5.7-v5.10 form: the running count decides, the size of the imbalance does not.
    EXPECT_EQ(adjust_numa_imbalance(5, 2), 0);
    EXPECT_EQ(adjust_numa_imbalance(1, 3), 1);
}

TEST(Fbq, Classification) {
    EXPECT_EQ(fbq_classify_group(4, 3, 3), FbqType::Regular);  // a task without preference
    EXPECT_EQ(fbq_classify_group(4, 4, 2), FbqType::Remote);   // misplaced tasks
    EXPECT_EQ(fbq_classify_group(4, 4, 4), FbqType::All);      // all well placed
    Rq rq;
    rq.nr_running = 2;
    rq.nr_numa_running = 2;
    rq.nr_preferred_running = 1;
    EXPECT_EQ(fbq_classify_rq(rq), FbqType::Remote);
}

TEST(MigrateDegradesLocality, Cases) {
    NumabWorld w;
    Mm& mm = w.new_mm();
    Task& p = w.new_task(mm, 1000, 0);
    const SchedDomain* sd = w.sys.sched.sd_numa(0);
    ASSERT_NE(sd, nullptr);
    SchedDomain not_numa = *sd;
    not_numa.numa = false;
    EXPECT_EQ(migrate_degrades_locality(w.sys, p, 0, 2, *sd, false), -1);  // no statistics
    w.set_mem_faults(p, 0, 0, 80);
    w.set_mem_faults(p, 1, 0, 20);
    EXPECT_EQ(migrate_degrades_locality(w.sys, p, 0, 2, not_numa, false), -1);
    EXPECT_EQ(migrate_degrades_locality(w.sys, p, 0, 1, *sd, false), -1);  // same node
    // No preference: weights decide (80 % on node 0 vs 20 % on node 1).
    EXPECT_EQ(migrate_degrades_locality(w.sys, p, 0, 2, *sd, false), 1);
    EXPECT_EQ(migrate_degrades_locality(w.sys, p, 2, 0, *sd, false), 0);
    EXPECT_EQ(migrate_degrades_locality(w.sys, p, 0, 2, *sd, true), -1);  // idle pull
    // Leaving the preferred node.
    p.numa_preferred_nid = 0;
    w.sys.rqs[0].nr_running = 2;
    w.sys.rqs[0].nr_preferred_running = 1;
    EXPECT_EQ(migrate_degrades_locality(w.sys, p, 0, 2, *sd, false), 1);
    w.sys.rqs[0].nr_running = 1;
    EXPECT_EQ(migrate_degrades_locality(w.sys, p, 0, 2, *sd, false), -1);
    // Going to the preferred node.
    p.numa_preferred_nid = 1;
    EXPECT_EQ(migrate_degrades_locality(w.sys, p, 0, 2, *sd, false), 0);
}

}  // namespace
}  // namespace numasim::test
