// Fork placement, load balancing of CPU-bound tasks, affinity, and the scheduler counters,
// driven through the engine on the tiny-2n preset (2 nodes x 2 CPUs).
#include "sched/fair.h"
#include "workload/phase_list.h"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <set>
#include <vector>

#include "engine/engine.h"
#include "engine/process.h"
#include "kernel/system.h"
#include "machine/presets.h"
#include "sched/load_balance.h"
#include "sched/sched_tunables.h"
#include "sched/sg_stats_cache.h"
#include "sched_fixture.h"

namespace numasim {
namespace {

// Pure CPU work for `cpu_ms` of CPU time.
Phase busy(Nanos cpu_ms) {
    return schedtest::cpu_work(msecs_to_ns(cpu_ms));
}

NumaBalancingKnobs off() {
    NumaBalancingKnobs k;
    k.numa_balancing = 0;
    return k;
}

struct SchedWorld {
    SchedWorld() : sys(load_preset("tiny-2n"), off(), 3) {}
    Task& spawn(Task* parent, std::vector<Phase> phases) {
        return programs.fork(sys, parent, std::move(phases));
    }
    System sys;
    schedtest::Programs programs;
};

TEST(ForkPlacement, FourNewTasksSpreadOverFourCpus) {
    SchedWorld w;
    std::vector<Task*> ts;
    for (int i = 0; i < 4; ++i)
        ts.push_back(&w.spawn(nullptr, {busy(100)}));
    // 1st: everything idle, stays on CPU 0. 2nd: NUMA level, local node has 1 running:
    // adjust_numa_imbalance(1 idle diff, 2 running, imb 2) = 0 -> stay on node 0, MC picks the
    // idle CPU 1. 3rd: node 0 has 2 running: 3 > imb_numa_nr -> go to node 1 (CPU 2). 4th:
    // idle diff 1, 3 > 2 -> node 1, the idle CPU 3.
    // (With imb_numa_nr = 1 the 2nd task would go to node 1 instead; either way all four
    // CPUs end up with one task.)
    EXPECT_EQ(ts[0]->cpu, 0);
    std::set<int> cpus;
    for (Task* t : ts)
        cpus.insert(t->cpu);
    EXPECT_EQ(cpus, (std::set<int>{0, 1, 2, 3}));
    for (int c = 0; c < 4; ++c) {
        EXPECT_EQ(w.sys.rqs[c].nr_running, 1u) << c;
        EXPECT_NE(w.sys.rqs[c].curr, nullptr) << c;
    }
    // A new task starts with full load and half utilisation.
    EXPECT_DOUBLE_EQ(ts[0]->avg.load_avg, 1024.0);
    EXPECT_DOUBLE_EQ(ts[0]->avg.util_avg, 512.0);
    // Placement at fork is not a migration.
    EXPECT_EQ(w.sys.counters.migrations, 0u);
    EXPECT_EQ(w.sys.counters.cs, 4u);  // each CPU switched from idle to its task once
}

TEST(ForkPlacement, ChildInheritsAffinityAndCpu) {
    SchedWorld w;
    Task& a = w.spawn(nullptr, {busy(100)});
    a.allow_only({3});
    Task& b = w.spawn(&a, {busy(100)});
    EXPECT_EQ(b.cpu, 3);
    EXPECT_EQ(b.nr_cpus_allowed, 1);
    EXPECT_FALSE(b.allowed(0));
    EXPECT_TRUE(b.allowed(3));
}

TEST(LoadBalance, CpuBoundPairOnOneCpuGetsSplit) {
    SchedWorld w;
    Phase free_run = busy(2000);
    free_run.clear_affinity = true;  // both start on CPU 0, then may go anywhere
    Task& a = w.spawn(nullptr, {free_run});
    a.allow_only({0});
    Task& b = w.spawn(&a, {free_run});
    ASSERT_EQ(a.cpu, 0);
    ASSERT_EQ(b.cpu, 0);
    ASSERT_EQ(w.sys.rqs[0].nr_running, 2u);
    Engine eng(w.sys);
    Nanos split_at = -1;
    for (Nanos t = 10; t <= 500; t += 10) {
        eng.run(msecs_to_ns(t));
        if (a.cpu != b.cpu) {
            split_at = t;
            break;
        }
    }
    ASSERT_GE(split_at, 0) << "an idle CPU never pulled the second task";
    EXPECT_LE(split_at, 300);
    EXPECT_GE(w.sys.counters.migrations, 1u);
    EXPECT_GE(a.nr_migrations + b.nr_migrations, 1u);
    // They stay apart, each getting a whole CPU.
    const Nanos a0 = a.sum_exec_runtime, b0 = b.sum_exec_runtime;
    eng.run(msecs_to_ns(split_at + 200));
    EXPECT_NE(a.cpu, b.cpu);
    EXPECT_NEAR(static_cast<double>(a.sum_exec_runtime - a0), 200e6, 10e6);
    EXPECT_NEAR(static_cast<double>(b.sum_exec_runtime - b0), 200e6, 10e6);
}

TEST(LoadBalance, TimeSharingCountsContextSwitches) {
    // Two tasks pinned to one CPU share it under CFS: context switches every slice, no
    // migrations (sched_class_test.cpp has both classes).
    SchedWorld w;
    w.sys.knobs.sched_class = SchedClass::Cfs;
    Task& a = w.spawn(nullptr, {busy(2000)});
    a.allow_only({0});
    Task& b = w.spawn(&a, {busy(2000)});
    Engine eng(w.sys);
    eng.run(msecs_to_ns(300));
    EXPECT_EQ(a.cpu, 0);
    EXPECT_EQ(b.cpu, 0);
    EXPECT_EQ(w.sys.counters.migrations, 0u);
    // sched_latency 6 ms * (1 + log2(4)) = 18 ms for 2 tasks: 9 ms slices, preemption checked
    // at 4 ms ticks, so a switch every 12 ms or so: at least 15 in 300 ms.
    EXPECT_GE(w.sys.counters.cs, 15u);
    EXPECT_GE(a.nivcsw + b.nivcsw, 14u);
    // Fair shares: each within 10 % of 150 ms.
    EXPECT_NEAR(static_cast<double>(a.sum_exec_runtime), 150e6, 15e6);
    EXPECT_NEAR(static_cast<double>(b.sum_exec_runtime), 150e6, 15e6);
}

TEST(LoadBalance, AffinityMasksAreRespected) {
    SchedWorld w;
    Task& a = w.spawn(nullptr, {busy(2000)});
    a.allow_only({0, 1});
    std::vector<Task*> ts{&a};
    for (int i = 0; i < 3; ++i)
        ts.push_back(&w.spawn(&a, {busy(2000)}));
    // A fifth task allowed only on CPU 3.
    Task& solo = w.spawn(nullptr, {busy(2000)});
    solo.allow_only({3});
    if (solo.cpu != 3) move_task(w.sys, solo, 3);
    const uint64_t cpu2_switches = w.sys.rqs[2].nr_switches;  // fork placement may have used it
    Engine eng(w.sys);
    for (Nanos t = 4; t <= 400; t += 4) {
        eng.run(msecs_to_ns(t));
        for (Task* p : ts)
            ASSERT_TRUE(p->cpu == 0 || p->cpu == 1) << "t=" << t << " cpu " << p->cpu;
        ASSERT_EQ(solo.cpu, 3) << "t=" << t;
    }
    // CPU 2 ran nothing after setup; the four tasks shared CPUs 0 and 1 two by two.
    EXPECT_EQ(w.sys.rqs[2].nr_switches, cpu2_switches);
    EXPECT_EQ(w.sys.rqs[2].curr, nullptr);
    Nanos sum = 0;
    for (Task* p : ts)
        sum += p->sum_exec_runtime;
    EXPECT_NEAR(static_cast<double>(sum), 800e6, 20e6);
    for (Task* p : ts)
        EXPECT_NEAR(static_cast<double>(p->sum_exec_runtime), 200e6, 40e6);
}

// The groups holding CPU 0, with their sums cached now.
void cache_groups_of_cpu0(System& sys) {
    sys.sg_cache.enable(sys.sched);
    for (const SchedDomain& sd : sys.sched.domains[0])
        for (size_t g = 0; g < sd.groups.size(); ++g)
            sys.sg_cache.get(sys, sd.group_ids[g]);
}

bool groups_of_cpu0_cached(const System& sys) {
    for (const SchedDomain& sd : sys.sched.domains[0])
        for (size_t g = 0; g < sd.groups.size(); ++g)
            if (!sys.sg_cache.cached(sd.group_ids[g])) return false;
    return true;
}

TEST(Pelt, ATaskThatRunsOnReachesAFixedPointThatKeepsItsGroupsSums) {
    SchedWorld w;
    Task& p = w.spawn(nullptr, {busy(5000)});
    ASSERT_EQ(p.cpu, 0);
    Engine eng(w.sys);
    // 100 ms in, util_avg still climbs from the 512 it started with: a tick's update changes
    // the averages, so the sums of CPU 0's groups are stale.
    eng.run(msecs_to_ns(100));
    cache_groups_of_cpu0(w.sys);
    ASSERT_TRUE(groups_of_cpu0_cached(w.sys));
    w.sys.now = p.avg.last_update_time + TICK_NSEC;
    const double util_before = p.avg.util_avg;
    update_load_avg(w.sys, p);
    EXPECT_GT(p.avg.util_avg, util_before);
    EXPECT_FALSE(groups_of_cpu0_cached(w.sys));
    w.sys.sg_cache.disable();
    // Four seconds in (about 1000 ticks, each decaying by 2^(-4/32)), another tick's update gives
    // back the same bits: the sums still hold and stay cached.
    eng.run(msecs_to_ns(4000));
    cache_groups_of_cpu0(w.sys);
    const SchedAvg before = p.avg;
    w.sys.now = p.avg.last_update_time + TICK_NSEC;
    update_load_avg(w.sys, p);
    EXPECT_EQ(p.avg.load_avg, before.load_avg);
    EXPECT_EQ(p.avg.runnable_avg, before.runnable_avg);
    EXPECT_EQ(p.avg.util_avg, before.util_avg);
    EXPECT_NEAR(p.avg.util_avg, 1024.0, 1e-9);
    EXPECT_EQ(p.avg.last_update_time, w.sys.now);
    EXPECT_TRUE(groups_of_cpu0_cached(w.sys));
    w.sys.sg_cache.disable();
}

// One task after four seconds of running: its averages are the fixed point of a tick's update
// (above), and the update has marked them settled.
struct SettledRunner {
    SchedWorld w;
    Task& p = w.spawn(nullptr, {busy(5000)});
    Engine eng{w.sys};
    SettledRunner() { eng.run(msecs_to_ns(4000)); }
};

TEST(Pelt, TheSettledSkipHoldsOnlyInTheStateItSettledIn) {
    SettledRunner r;
    SchedWorld& w = r.w;
    Task& p = r.p;
    ASSERT_EQ(p.avg.settled_delta, TICK_NSEC);
    ASSERT_TRUE(p.avg.settled_running && p.avg.settled_runnable);
    EXPECT_TRUE(pelt_settle_holds(p));
    // The same tick while queued, not running: util_avg decays towards 0 by 2^(-4/32) of its
    // distance from it, though the interval is the settled one; the mark is dropped.
    p.state = TaskState::Runnable;
    const SchedAvg before = p.avg;
    w.sys.now = p.avg.last_update_time + TICK_NSEC;
    update_load_avg(w.sys, p);
    p.state = TaskState::Running;
    EXPECT_DOUBLE_EQ(p.avg.util_avg, before.util_avg * std::exp2(-4.0 / 32.0));
    EXPECT_EQ(p.avg.load_avg, before.load_avg);
    EXPECT_EQ(p.avg.settled_delta, 0);
    EXPECT_TRUE(pelt_settle_holds(p));  // no mark, nothing to hold
}

TEST(Pelt, AnAverageChangedUnderASettledMarkIsReported) {
    SettledRunner r;
    Task& p = r.p;
    ASSERT_EQ(p.avg.settled_delta, TICK_NSEC);
    // Half the load by hand, the mark left: a tick's update would move it back up, so the skip
    // would keep a value the update does not give.
    p.avg.load_avg /= 2;
    EXPECT_FALSE(pelt_settle_holds(p));
    p.avg.settled_delta = 0;
    EXPECT_TRUE(pelt_settle_holds(p));
}

TEST(SgStatsCache, ANodeIsSummedFromItsCpusAndAChangeRedoesOnlyItsPart) {
    // tiny-2n: CPU 0's NUMA level has the groups node 0 = {0, 1} and node 1 = {2, 3}; node 0 is
    // the span of CPU 0's MC domain, whose groups {0} and {1} partition it.
    SchedWorld w;
    Task& p = w.spawn(nullptr, {busy(10)});
    ASSERT_EQ(p.cpu, 0);
    const SchedDomain& mc = w.sys.sched.domains[0][0];
    const SchedDomain& numa = w.sys.sched.domains[0][1];
    const int node0 = numa.group_ids[0], cpu0 = mc.group_ids[0], cpu1 = mc.group_ids[1];
    ASSERT_EQ(w.sys.sched.group_parts[static_cast<size_t>(node0)], (std::vector<int>{cpu0, cpu1}));
    SgStatsCache& cache = w.sys.sg_cache;
    cache.enable(w.sys.sched);
    // The task's 1024 on CPU 0, nothing on CPU 1: two CPUs of capacity 1024, one idle. The node
    // misses, and so do both its parts.
    const SgSums sums = cache.get(w.sys, node0);
    EXPECT_EQ(sums.load, 1024u);
    EXPECT_EQ(sums.capacity, 2048u);
    EXPECT_EQ(sums.sum_nr_running, 1u);
    EXPECT_EQ(sums.idle_cpus, 1u);
    EXPECT_EQ(sums.weight, 2u);
    EXPECT_EQ(cache.misses(), 3u);
    EXPECT_EQ(cache.hits(), 0u);
    // CPU 1 changes: its group and the node go, CPU 0's sums stay and are read back.
    cache.cpu_changed(1);
    EXPECT_EQ(cache.cached(node0), nullptr);
    EXPECT_EQ(cache.cached(cpu1), nullptr);
    EXPECT_NE(cache.cached(cpu0), nullptr);
    EXPECT_EQ(cache.get(w.sys, node0), sums);
    EXPECT_EQ(cache.misses(), 5u);
    EXPECT_EQ(cache.hits(), 1u);
    cache.disable();
}

TEST(Helpers, IdleAndCacheSharing) {
    SchedWorld w;
    EXPECT_TRUE(idle_cpu(w.sys, 0));
    EXPECT_TRUE(cpus_share_cache(w.sys, 0, 1));
    EXPECT_FALSE(cpus_share_cache(w.sys, 1, 2));
    w.spawn(nullptr, {busy(10)});
    EXPECT_FALSE(idle_cpu(w.sys, 0));
    EXPECT_EQ(capacity_of(w.sys, 0), SCHED_CAPACITY_SCALE);
    EXPECT_EQ(cpu_load(w.sys, 0), 1024u);
    EXPECT_EQ(sched_tunable_factor(4), 3);   // 1 + log2(4)
    EXPECT_EQ(sched_tunable_factor(64), 4);  // capped at 8 CPUs
    EXPECT_EQ(sched_tunable_factor(1), 1);
}

}  // namespace
}  // namespace numasim
