// sd->nr_balance_failed, sd->balance_interval and the levels a balance reaches, as
// load_balance() and rebalance_domains() keep them. Only periodic balancing counts a failure,
// and a balanced pass clears the count: the count decides when a lone running task is pushed by
// active balance, so newidle balancing (which runs every time a CPU runs out of work) must not
// bring that moment forward. A balanced level backs off (its interval doubles up to twice the
// minimum), an unbalanced one returns to the minimum, and a CPU that is not its group's
// balancer at a level leaves that level and those above to the one that is.
//
// tiny-2n (node 0 = CPUs 0-1, node 1 = CPUs 2-3), the balancer before v5.5: CPUs 0 and 1 each
// run one task of load 1024, node 1 is idle. At the NUMA level CPU 2 sees node 0 at avg_load
// 1024 above the domain average 512 and node 1 at 0, so the imbalance is 1024 (one task); the
// busiest runqueue holds only its running task, nothing can be detached, and the balance fails.
#include <gtest/gtest.h>

#include <cstdint>
#include <deque>
#include <vector>

#include "kernel/system.h"
#include "machine/presets.h"
#include "sched/fair.h"
#include "sched/load_balance.h"
#include "sched/sched_domain.h"

namespace numasim {
namespace {

// tiny-2n with tasks placed by hand, and CPU 2 balancing as its periodic balance does.
struct Tiny2nBalancing {
    explicit Tiny2nBalancing(bool lb_rework) : sys(load_preset("tiny-2n"), knobs(lb_rework), 1) {}
    static NumaBalancingKnobs knobs(bool lb_rework = false) {
        NumaBalancingKnobs k;
        k.numa_balancing = 0;
        k.lb_rework = lb_rework;
        return k;
    }
    // A task of load and utilisation 1024 on `cpu`: running there, or queued behind its task.
    Task& add_task(int cpu, int pid, bool running) {
        Task& t = tasks.emplace_back();
        t.pid = pid;
        t.cpu = cpu;
        t.avg.load_avg = 1024;
        t.avg.util_avg = 1024;
        t.state = running ? TaskState::Running : TaskState::Runnable;
        t.allow_all(sys.nr_cpus());
        if (running)
            sys.rqs[cpu].curr = &t;
        else
            sys.rqs[cpu].queued.push_back(&t);
        ++sys.rqs[cpu].nr_running;
        return t;
    }
    size_t numa_level() const { return sys.sched.domains[kDst].size() - 1; }
    unsigned failed() const { return sys.rqs[kDst].nr_balance_failed[numa_level()]; }
    int cache_nice_tries() const { return sys.sched.domains[kDst][numa_level()].cache_nice_tries; }
    int tasks_on_node1() const { return sys.rqs[2].nr_running + sys.rqs[3].nr_running; }
    // Periodic balances of CPU 2, one second apart: every level is due at each.
    void tick_balance(int times = 1) {
        for (int i = 0; i < times; ++i) {
            sys.now += NSEC_PER_SEC;
            trigger_load_balance(sys, kDst);
        }
    }
    static constexpr int kDst = 2;
    System sys;
    std::deque<Task> tasks;
};

struct TwoBusyOneIdleNode : Tiny2nBalancing {
    // kDst is the first idle CPU of node 1: it balances for the group.
    TwoBusyOneIdleNode() : Tiny2nBalancing(false) {
        for (int cpu = 0; cpu < 2; ++cpu)
            add_task(cpu, 100 + cpu, true);
    }
};

TEST(BalanceFailed, NewidleBalanceCountsNoFailure) {
    TwoBusyOneIdleNode w;
    for (int i = 0; i < 10; ++i)
        newidle_balance(w.sys, TwoBusyOneIdleNode::kDst);
    EXPECT_EQ(w.failed(), 0u);
    EXPECT_EQ(w.tasks_on_node1(), 0);
}

TEST(BalanceFailed, PeriodicFailuresLeadToActiveBalance) {
    TwoBusyOneIdleNode w;
    const int tries = w.cache_nice_tries();
    ASSERT_EQ(tries, SD_CACHE_NICE_TRIES_NUMA);
    // Newidle balancing in between changes nothing of the count.
    for (int i = 0; i < tries + 2; ++i) {
        w.tick_balance();
        newidle_balance(w.sys, TwoBusyOneIdleNode::kDst);
    }
    EXPECT_EQ(w.failed(), static_cast<unsigned>(tries + 2));
    EXPECT_EQ(w.tasks_on_node1(), 0);
    // The failure past cache_nice_tries + 2 pushes a running task over, and the count restarts
    // at cache_nice_tries + 1.
    w.tick_balance();
    EXPECT_EQ(w.tasks_on_node1(), 1);
    EXPECT_EQ(w.failed(), static_cast<unsigned>(tries + 1));
}

// When the imbalance goes away (CPU 1's task has left: node 0 is no longer more than one idle
// CPU behind node 1), the pass is balanced and the count goes back to 0.
TEST(BalanceFailed, BalancedClearsTheCount) {
    TwoBusyOneIdleNode w;
    w.tick_balance(SD_CACHE_NICE_TRIES_NUMA + 1);
    ASSERT_EQ(w.failed(), static_cast<unsigned>(SD_CACHE_NICE_TRIES_NUMA + 1));
    w.sys.rqs[1].curr = nullptr;
    w.sys.rqs[1].nr_running = 0;
    w.tick_balance();
    EXPECT_EQ(w.failed(), 0u);
    EXPECT_EQ(w.tasks_on_node1(), 0);
}

// CPU 2's MC level (node 1: CPUs 2 and 3, both idle) is balanced and backs off; its NUMA level is
// unbalanced (the failing pull above) and returns to the minimum whatever it had grown to.
TEST(BalanceInterval, BalancedBacksOffUnbalancedResets) {
    TwoBusyOneIdleNode w;
    const auto& doms = w.sys.sched.domains[TwoBusyOneIdleNode::kDst];
    ASSERT_EQ(doms.size(), 2u);
    Rq& rq = w.sys.rqs[TwoBusyOneIdleNode::kDst];
    rq.balance_interval_ms[1] = 2 * doms[1].min_interval_ms;
    w.tick_balance();
    EXPECT_EQ(rq.balance_interval_ms[0], 2 * doms[0].min_interval_ms);
    EXPECT_EQ(rq.balance_interval_ms[1], doms[1].min_interval_ms);
    w.tick_balance();  // the MC level stays at its maximum
    EXPECT_EQ(rq.balance_interval_ms[0], 2 * doms[0].min_interval_ms);
}

// haswell-2s: the second thread of core 0 is not its core's balancer while the first thread is
// idle too. Its balance stops at the MC level, which counts as balanced (the failure count
// clears, the interval doubles), and never reaches the NUMA level.
TEST(BalanceInterval, NotTheGroupsBalancerLeavesTheLevelsAbove) {
    System sys(load_preset("haswell-2s"), TwoBusyOneIdleNode::knobs(), 1);
    int cpu = -1;
    for (int c = 1; c < sys.nr_cpus() && cpu < 0; ++c)
        if (sys.topo.cpus[c].core == sys.topo.cpus[0].core) cpu = c;
    ASSERT_GT(cpu, 0);
    const auto& doms = sys.sched.domains[cpu];
    ASSERT_EQ(doms.size(), 3u);  // SMT, MC, NUMA
    Rq& rq = sys.rqs[cpu];
    std::fill(rq.last_balance.begin(), rq.last_balance.end(), 0);
    rq.nr_balance_failed[1] = 2;
    sys.now = NSEC_PER_SEC;
    trigger_load_balance(sys, cpu);
    EXPECT_EQ(rq.last_balance[0], sys.now);
    EXPECT_EQ(rq.last_balance[1], sys.now);
    EXPECT_EQ(rq.last_balance[2], 0);
    EXPECT_EQ(rq.nr_balance_failed[1], 0u);
    EXPECT_EQ(rq.balance_interval_ms[1], 2 * doms[1].min_interval_ms);
    // The first thread, its core's balancer, goes on to the NUMA level.
    Rq& first = sys.rqs[0];
    std::fill(first.last_balance.begin(), first.last_balance.end(), 0);
    trigger_load_balance(sys, 0);
    EXPECT_EQ(first.last_balance[2], sys.now);
}

// need_active_balance() from a busy CPU. tiny-2n: CPUs 0 and 1 each run a task that may run
// anywhere and have one more queued that is pinned to them; CPUs 2 and 3 each run one task.
// CPU 2, busy, balances node 1 against node 0 (4 tasks on 2 CPUs against 2): the only tasks it
// could pull are pinned, so every pass fails.
struct BusyBalancer : Tiny2nBalancing {
    explicit BusyBalancer(bool lb_rework) : Tiny2nBalancing(lb_rework) {
        for (int cpu = 0; cpu < 4; ++cpu) {
            add_task(cpu, 100 + 10 * cpu, true).avg.runnable_avg = 1024;
            if (cpu >= 2) continue;
            Task& pinned = add_task(cpu, 101 + 10 * cpu, false);
            pinned.avg.runnable_avg = 1024;
            pinned.allow_only(std::vector<int>{cpu});
        }
    }
};

TEST(ActiveBalance, BusyCpuPushesAfterRepeatedFailuresBeforeV511) {
    // The balancer before v5.5: any imbalance, and any CPU, once cache_nice_tries + 2 periodic
    // passes failed.
    BusyBalancer w(false);
    const int tries = w.cache_nice_tries();
    w.tick_balance(tries + 2);
    EXPECT_EQ(w.failed(), static_cast<unsigned>(tries + 2));
    EXPECT_EQ(w.tasks_on_node1(), 2);
    w.tick_balance();
    // One of node 0's running tasks was pushed to the busy CPU 2.
    EXPECT_EQ(w.tasks_on_node1(), 3);
    EXPECT_EQ(w.sys.rqs[BusyBalancer::kDst].nr_running, 2);
}

TEST(ActiveBalance, LoadImbalanceNeverPushesFromV511) {
    // The reworked balancer: CPU 2's group is fully busy, so the imbalance is one of load, and
    // imbalanced_active_balance() wants one counted in tasks: the failures pile up, nothing moves.
    BusyBalancer w(true);
    const int tries = w.cache_nice_tries();
    w.tick_balance(tries + 6);
    EXPECT_GT(w.failed(), static_cast<unsigned>(tries + 2));
    EXPECT_EQ(w.tasks_on_node1(), 2);
}

// detach_tasks() with a load imbalance (v5.5+): a task whose load exceeds what is left to move
// stays until the failures have relaxed the test (load >> nr_balance_failed). tiny-2n: CPU 0
// runs a task and has a queued one of load B = 2048, CPU 1 runs one task, node 1 runs one task
// per CPU. Busy CPU 2 sees node 0 at avg_load (2048 + B) / 2 and node 1 at 1024 around an
// average of (4096 + B) / 4, so the imbalance is B / 2: too little for the task, until one
// failure halves its load in the test.
TEST(DetachTasks, LoadTestRelaxesWithFailures) {
    BusyBalancer w(true);
    // Node 0 as above: CPU 0's queued task is the big one and may go anywhere; CPU 1's queued
    // task leaves.
    Task& big = *w.sys.rqs[0].queued.front();
    big.avg.load_avg = 2048;
    big.allow_all(w.sys.nr_cpus());
    w.sys.rqs[1].queued.clear();
    w.sys.rqs[1].nr_running = 1;
    w.tick_balance();
    EXPECT_EQ(big.cpu, 0);
    EXPECT_EQ(w.failed(), 1u);
    w.tick_balance();
    EXPECT_EQ(big.cpu, BusyBalancer::kDst);
    EXPECT_EQ(w.failed(), 0u);
}

}  // namespace
}  // namespace numasim
