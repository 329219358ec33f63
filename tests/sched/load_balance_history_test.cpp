// The balancer before the v5.5 rework (find_busiest_group_v54), the forms of the NUMA imbalance
// allowance in calculate_imbalance, and fork placement under each form, with hand-worked
// numbers. tiny-2n: node 0 = CPUs 0-1, node 1 = CPUs 2-3; the NUMA domain has the two nodes as
// groups, imbalance_pct 117.
#include <gtest/gtest.h>

#include <deque>
#include <map>
#include <memory>
#include <vector>

#include "engine/engine.h"
#include "engine/process.h"
#include "kernel/system.h"
#include "machine/presets.h"
#include "sched/fair.h"
#include "sched/lb_env.h"
#include "sched/numa_imbalance.h"
#include "sched/sched_domain.h"
#include "sched_fixture.h"
#include "workload/phase_list.h"

namespace numasim {
namespace {

// Runqueues filled by hand: each task has a PELT load (load_avg) and, when running, full
// utilisation.
struct Rqs {
    Rqs() : sys(load_preset("tiny-2n"), NumaBalancingKnobs{}, 1) {}
    Task& put(int cpu, double load, bool running) {
        Task& t = tasks.emplace_back();
        t.cpu = cpu;
        t.avg.load_avg = load;
        t.avg.util_avg = running ? 1024 : 0;
        Rq& rq = sys.rqs[cpu];
        ++rq.nr_running;
        if (running) {
            t.state = TaskState::Running;
            rq.curr = &t;
        } else {
            t.state = TaskState::Runnable;
            rq.queued.push_back(&t);
        }
        return t;
    }
    const SchedDomain& numa(int cpu) const { return *sys.sched.sd_numa(cpu); }
    System sys;
    std::deque<Task> tasks;
};

// Node 0: CPU 0 runs one task and queues another (1024 each), CPU 1 runs one (1024); node 1:
// CPU 2 runs one, CPU 3 (dst) is idle.
//   node 0: load 3072, capacity 2048, avg_load 1536, 3 tasks on 2 CPUs, util 2048:
//           2048 x 100 < 2048 x 117 -> overloaded; load_per_task 1024.
//   node 1: load 1024, avg_load 512, 1 task < 2 CPUs: has capacity.
//   domain average (3072 + 1024) x 1024 / 4096 = 1024.
// An idle CPU with capacity facing an overloaded group balances at once; the imbalance is
// min((1536 - 1024) x 2048, (1024 - 512) x 2048) / 1024 = 1024, not below load_per_task.
TEST(LoadBalanceV54, OverloadedGroupPullsToTheAverage) {
    Rqs w;
    w.put(0, 1024, true);
    w.put(0, 1024, false);
    w.put(1, 1024, true);
    w.put(2, 1024, true);
    LbEnv env{3, &w.numa(3), CpuIdleType::Idle};
    std::vector<SgStats> groups;
    const SgStats* busiest = find_busiest_group_v54(w.sys, env, groups);
    ASSERT_NE(busiest, nullptr);
    EXPECT_EQ(busiest->cpus->front(), 0);
    EXPECT_EQ(env.type, MigrationType::LoadV54);
    EXPECT_EQ(env.imbalance, 1024);
}

// Node 0: CPU 0 runs a task and queues one (1024 each), CPU 1 idle; node 1: CPU 2 runs one,
// CPU 3 (dst) idle.
//   node 0: load 2048, avg_load 1024, 2 tasks on 2 CPUs: not overloaded, 1 idle CPU.
//   node 1: load 1024, avg_load 512, 1 idle CPU. Domain average 3072 x 1024 / 4096 = 768.
// CPU_IDLE: not overloaded and idle CPUs 1 <= 1 + 1 -> balanced (node 0 sorts itself out at MC).
// CPU_NEWLY_IDLE: 100 x 1024 > 117 x 512, so calculate_imbalance: pull 1024 - 768 = 256,
// imbalance min(256 x 2048, 256 x 2048) / 1024 = 512 < load_per_task 1024 ->
// fix_small_imbalance: local load_per_task 1024 (not below busiest's, imbn 2), scaled busiest
// load_per_task 1024 x 1024 / 2048 = 512; 1024 + 512 >= 512 + 2 x 512 -> move one task, 1024.
TEST(LoadBalanceV54, IdleBalancedNewlyIdleFixesSmallImbalance) {
    Rqs w;
    w.put(0, 1024, true);
    w.put(0, 1024, false);
    w.put(2, 1024, true);
    std::vector<SgStats> groups;
    LbEnv idle{3, &w.numa(3), CpuIdleType::Idle};
    EXPECT_EQ(find_busiest_group_v54(w.sys, idle, groups), nullptr);
    groups.clear();
    LbEnv newly{3, &w.numa(3), CpuIdleType::NewlyIdle};
    const SgStats* busiest = find_busiest_group_v54(w.sys, newly, groups);
    ASSERT_NE(busiest, nullptr);
    EXPECT_EQ(busiest->cpus->front(), 0);
    EXPECT_EQ(newly.imbalance, 1024);
}

// The local group is the busier one: nothing to pull.
TEST(LoadBalanceV54, BusierLocalGroupPullsNothing) {
    Rqs w;
    w.put(2, 1024, true);
    w.put(2, 1024, false);
    w.put(0, 1024, true);
    std::vector<SgStats> groups;
    LbEnv env{3, &w.numa(3), CpuIdleType::NewlyIdle};
    EXPECT_EQ(find_busiest_group_v54(w.sys, env, groups), nullptr);
}

SgStats group(unsigned weight, unsigned nr_running) {
    SgStats s;
    s.weight = weight;
    s.sum_nr_running = nr_running;
    return s;
}

// calculate_imbalance()'s NUMA allowance; `imbalance` is the difference before halving.
TEST(NumaLbAllowance, FirstPostingThresholdFromImbalancePct) {
    Rqs w;
    w.sys.knobs.numa_imbalance = NumaImbalance::ImbalancePct;
    SchedDomain sd;
    sd.imbalance_pct = 117;
    const SgStats local = group(24, 0);
    // 24 CPUs: adj = max(2, (24 x 17 / 100) >> 1) = max(2, 4 >> 1) = 2;
    // imbalance_max = 24 / 2 - 2 = 10.
    EXPECT_EQ(numa_balance_imbalance(w.sys.knobs, sd, 4, group(24, 9), local),
              0);  // 2 <= 2, 9 < 10
    EXPECT_EQ(numa_balance_imbalance(w.sys.knobs, sd, 4, group(24, 10), local),
              2);  // 10 is not < 10
    EXPECT_EQ(numa_balance_imbalance(w.sys.knobs, sd, 6, group(24, 3), local), 3);  // 3 > adj
    // 48 CPUs at imbalance_pct 125: adj = (48 x 25 / 100) >> 1 = 6, imbalance_max 24 - 6 = 18.
    sd.imbalance_pct = 125;
    EXPECT_EQ(numa_balance_imbalance(w.sys.knobs, sd, 12, group(48, 17), group(48, 0)), 0);
    EXPECT_EQ(numa_balance_imbalance(w.sys.knobs, sd, 14, group(48, 17), group(48, 0)), 7);
    EXPECT_EQ(numa_balance_imbalance(w.sys.knobs, sd, 12, group(48, 18), group(48, 0)), 6);
    // 2 CPUs: adj 2 > 2 / 2, so the unsigned bound 1 - 2 wraps: any count of tasks is "below".
    sd.imbalance_pct = 117;
    EXPECT_EQ(numa_balance_imbalance(w.sys.knobs, sd, 4, group(2, 40), group(2, 0)), 0);
    EXPECT_EQ(numa_balance_imbalance(w.sys.knobs, sd, 6, group(2, 40), group(2, 0)), 3);
}

TEST(NumaLbAllowance, MergedForms) {
    Rqs w;
    SchedDomain sd;
    sd.imb_numa_nr = 3;
    for (NumaImbalance m :
         {NumaImbalance::BusiestMin, NumaImbalance::SrcMin, NumaImbalance::Fixed}) {
        w.sys.knobs.numa_imbalance = m;
        // v5.6 to v5.10: the busiest group's task count alone decides: <= 2 allows anything.
        EXPECT_EQ(numa_balance_imbalance(w.sys.knobs, sd, 8, group(4, 2), group(4, 0)), 0);
        EXPECT_EQ(numa_balance_imbalance(w.sys.knobs, sd, 8, group(4, 3), group(4, 0)), 4);
    }
    // v5.18: the destination's count (local + 1) against imb_numa_nr, then at most 2.
    w.sys.knobs.numa_imbalance = NumaImbalance::ImbNumaNr;
    EXPECT_EQ(numa_balance_imbalance(w.sys.knobs, sd, 2, group(4, 6), group(4, 2)),
              0);  // 3 <= 3, 2 <= 2
    EXPECT_EQ(numa_balance_imbalance(w.sys.knobs, sd, 2, group(4, 6), group(4, 3)), 1);  // 4 > 3
    EXPECT_EQ(numa_balance_imbalance(w.sys.knobs, sd, 4, group(4, 6), group(4, 0)), 2);  // 4 > 2
    w.sys.knobs.numa_imbalance = NumaImbalance::None;
    EXPECT_EQ(numa_balance_imbalance(w.sys.knobs, sd, 2, group(4, 2), group(4, 0)), 1);
}

// Fork placement of three tasks on cascadelake-2s (2 nodes x 40 CPUs, one LLC each:
// imb_numa_nr = 40 / 8 = 5). Without the allowance the third goes to node 1: its idle CPUs (40)
// exceed node 0's (38) by more than one. With imb_numa_nr it stays: 3 running <= 5 and an idle
// difference of 2 is allowed. The posting, v5.6 and v5.7 left find_idlest_group() alone, so
// they place as without the allowance.
std::map<int, int> fork_nodes(NumaImbalance m) {
    NumaBalancingKnobs k;
    k.numa_balancing = 0;
    k.numa_imbalance = m;
    System sys(load_preset("cascadelake-2s"), k, 1);
    schedtest::Programs programs;
    return schedtest::fork_nodes_of(sys, programs, 3);
}

TEST(NumaImbalanceAtFork, OnlyTheLaterFormsKeepForksLocal) {
    {
        const System sys(load_preset("cascadelake-2s"), NumaBalancingKnobs{}, 1);
        ASSERT_EQ(sys.sched.sd_numa(0)->imb_numa_nr, 5);
    }
    const auto none = fork_nodes(NumaImbalance::None);
    EXPECT_EQ(fork_nodes(NumaImbalance::ImbalancePct), none);
    EXPECT_EQ(fork_nodes(NumaImbalance::BusiestMin), none);
    EXPECT_EQ(fork_nodes(NumaImbalance::SrcMin), none);
    EXPECT_EQ(none, (std::map<int, int>{{0, 2}, {1, 1}}));
    EXPECT_EQ(fork_nodes(NumaImbalance::ImbNumaNr), (std::map<int, int>{{0, 3}}));
    // v5.10 keeps a new task in its NUMA group while the group has an idle CPU.
    EXPECT_EQ(fork_nodes(NumaImbalance::Fixed), (std::map<int, int>{{0, 3}}));
}

// Two CPU-bound tasks start on node 0 of tiny-2n (imb_numa_nr 1) and are then free to go
// anywhere. The rework with the v5.18 allowance leaves the pair together: node 1's idle CPU
// sees a task difference of 2 at prefer_sibling, and adjust_numa_imbalance(2, 0 + 1, 1) = 0. The
// balancer before v5.5 has no allowance: node 0 (avg_load 1024) is above the domain average
// (512), the load imbalance is 1024, no runqueue has a second task to detach, and after
// cache_nice_tries + 2 failures active balance moves a running task to node 1.
std::vector<int> pair_nodes(bool lb_rework) {
    NumaBalancingKnobs k;
    k.numa_balancing = 0;
    k.lb_rework = lb_rework;
    System sys(load_preset("tiny-2n"), k, 1);
    Phase start;
    start.cpu_time = NSEC_PER_MSEC;
    start.set_affinity = std::vector<int>{0, 1};
    Phase run;
    run.cpu_time = 2 * NSEC_PER_SEC;
    run.clear_affinity = true;
    std::vector<std::unique_ptr<PhaseList>> progs;
    std::vector<Task*> ts;
    for (int i = 0; i < 2; ++i) {
        progs.push_back(std::make_unique<PhaseList>(std::vector<Phase>{start, run}));
        Mm& mm = mm_create(sys);
        ts.push_back(
            &create_process(sys, mm, ts.empty() ? nullptr : ts[0], "t", progs.back().get(), 0, i));
    }
    Engine eng(sys);
    eng.run(NSEC_PER_SEC);
    return {sys.cpu_to_node(ts[0]->cpu), sys.cpu_to_node(ts[1]->cpu)};
}

TEST(LoadBalanceV54, HasNoNumaAllowance) {
    EXPECT_EQ(pair_nodes(true), (std::vector<int>{0, 0}));
    const auto old = pair_nodes(false);
    EXPECT_NE(old[0], old[1]);
}

}  // namespace
}  // namespace numasim
