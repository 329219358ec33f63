// NO_HZ idle balancing (sched/nohz.h) on the tiny presets: tiny-2n (2 nodes x 2 CPUs, one LLC
// domain per node) and tiny-4n (4 nodes x 1 CPU, no LLC domain at all).
#include "sched/nohz.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "engine/engine.h"
#include "engine/process.h"
#include "kernel/invariants.h"
#include "kernel/system.h"
#include "machine/presets.h"
#include "sched/fair.h"
#include "sched/load_balance.h"
#include "sched_fixture.h"
#include "workload/phase_list.h"

namespace numasim {
namespace {

// Pure CPU work for `cpu_ms` of CPU time.
Phase busy(Nanos cpu_ms) {
    return schedtest::cpu_work(msecs_to_ns(cpu_ms));
}

NumaBalancingKnobs knobs(bool nohz) {
    NumaBalancingKnobs k;
    k.numa_balancing = 0;  // no NUMA migrations: only the load balancer moves tasks
    k.nohz = nohz;
    return k;
}

struct World {
    explicit World(const std::string& machine, bool nohz = true)
        : sys(load_preset(machine), knobs(nohz), 7) {}
    // A task pinned to `cpu` running `phases` (a phase with clear_affinity frees it).
    Task& spawn_on(int cpu, std::vector<Phase> phases) {
        Task& p = programs.fork(sys, nullptr, std::move(phases));
        p.allow_only({cpu});
        if (p.cpu != cpu) move_task(sys, p, cpu);
        return p;
    }
    // Every CPU without work goes idle, as its idle loop would: its tick stops.
    void idle_the_rest() {
        for (int c = 0; c < sys.nr_cpus(); ++c)
            if (!sys.rqs[c].curr) schedule(sys, c);
    }
    int llc_of(int cpu) const { return sys.topo.cpus[cpu].llc; }
    System sys;
    schedtest::Programs programs;
};

void expect_consistent(const System& sys) {
    const auto v = find_invariant_violation(sys);
    EXPECT_FALSE(v.has_value()) << *v;
}

TEST(Nohz, GoingIdleStopsTheTickAndLeavesTheLlcBusyCount) {
    World w("tiny-2n");
    w.spawn_on(0, {busy(1000)});
    const int busy_llc0 = w.sys.nohz.nr_busy_cpus[w.llc_of(0)];
    w.idle_the_rest();
    for (int c = 1; c < 4; ++c) {
        EXPECT_TRUE(w.sys.rqs[c].nohz_tick_stopped) << c;
        EXPECT_TRUE(tick_nohz_tick_stopped_cpu(w.sys, c)) << c;
    }
    EXPECT_FALSE(w.sys.rqs[0].nohz_tick_stopped);
    EXPECT_EQ(w.sys.nohz.nr_cpus, 3);
    EXPECT_TRUE(w.sys.nohz.needs_update);
    // CPU 1 left node 0's LLC; node 1's LLC has nobody busy.
    EXPECT_EQ(w.sys.nohz.nr_busy_cpus[w.llc_of(0)], busy_llc0 - 1);
    EXPECT_EQ(w.sys.nohz.nr_busy_cpus[w.llc_of(2)], 0);
    expect_consistent(w.sys);
}

// When CPUs 1-3 last balanced at each level, which only a tick of their own or the ilb moves.
std::vector<std::vector<Nanos>> idle_balance_times(const System& sys) {
    std::vector<std::vector<Nanos>> t;
    for (int c = 1; c < 4; ++c)
        t.push_back(sys.rqs[c].last_balance);
    return t;
}

TEST(Nohz, AnIdleCpuTakesNoTicks) {
    // One task on CPU 0: no kick ever balances (one task, alone busy in its LLC), so the idle
    // CPUs' balance times stay where they were when they went idle.
    World w("tiny-2n");
    Task& p = w.spawn_on(0, {busy(1000)});
    w.idle_the_rest();
    const auto before = idle_balance_times(w.sys);
    Engine eng(w.sys);
    eng.set_check_invariants(true);
    eng.run(msecs_to_ns(200));
    EXPECT_EQ(idle_balance_times(w.sys), before);
    EXPECT_EQ(p.cpu, 0);
    EXPECT_NEAR(static_cast<double>(p.sum_exec_runtime), 200e6, 5e6);

    // With nohz off the same idle CPUs balance at their own ticks.
    World periodic("tiny-2n", false);
    periodic.spawn_on(0, {busy(1000)});
    periodic.idle_the_rest();
    EXPECT_EQ(periodic.sys.nohz.nr_cpus, 0);
    const auto start = idle_balance_times(periodic.sys);
    Engine eng2(periodic.sys);
    eng2.run(msecs_to_ns(200));
    const auto end = idle_balance_times(periodic.sys);
    for (size_t i = 0; i < end.size(); ++i)
        for (size_t l = 0; l < end[i].size(); ++l)
            EXPECT_GT(end[i][l], start[i][l] + msecs_to_ns(100)) << "cpu " << i + 1;
}

TEST(Nohz, FindNewIlbTakesTheFirstIdleCpuOtherThanTheKicker) {
    World w("tiny-2n");
    w.idle_the_rest();  // all four idle and in the mask
    EXPECT_EQ(find_new_ilb(w.sys, 0), 1);
    EXPECT_EQ(find_new_ilb(w.sys, 1), 0);
    // A CPU still in the mask that has just been given work (its first tick is yet to come) is
    // not idle: skipped.
    w.spawn_on(1, {busy(100)});
    ASSERT_TRUE(w.sys.rqs[1].nohz_tick_stopped);
    EXPECT_EQ(find_new_ilb(w.sys, 0), 2);
    // Outside the mask means no candidate even when idle.
    nohz_balance_exit_idle(w.sys, 2);
    nohz_balance_exit_idle(w.sys, 3);
    EXPECT_EQ(find_new_ilb(w.sys, 0), -1);
}

TEST(Nohz, KickWhenTwoTasksShareTheCpu) {
    World w("tiny-2n");
    w.spawn_on(0, {busy(100)});
    w.spawn_on(0, {busy(100)});
    w.idle_the_rest();
    w.sys.nohz.needs_update = false;
    w.sys.now = msecs_to_ns(8);
    nohz_balancer_kick(w.sys, 0);
    EXPECT_EQ(w.sys.rqs[1].nohz_flags, NOHZ_BALANCE_KICK);
    EXPECT_EQ(w.sys.nohz.next_balance, w.sys.now + TICK_NSEC);  // no second kick this tick
    // A second busy tick in the same jiffy does not kick again.
    w.sys.rqs[1].nohz_flags = 0;
    nohz_balancer_kick(w.sys, 0);
    EXPECT_EQ(w.sys.rqs[1].nohz_flags, 0u);
}

TEST(Nohz, KickWhenAnotherCpuOfTheLlcIsBusy) {
    World w("tiny-2n");
    w.spawn_on(0, {busy(100)});
    w.spawn_on(1, {busy(100)});
    w.idle_the_rest();
    w.sys.nohz.needs_update = false;
    nohz_balancer_kick(w.sys, 0);
    EXPECT_EQ(w.sys.rqs[2].nohz_flags, NOHZ_BALANCE_KICK);
}

TEST(Nohz, NoKickForALoneTaskInItsLlc) {
    // CPUs 0 and 2 busy, but in different LLCs: nr_busy_cpus is 1 in each.
    World w("tiny-2n");
    w.spawn_on(0, {busy(100)});
    w.spawn_on(2, {busy(100)});
    w.idle_the_rest();
    w.sys.nohz.needs_update = false;
    nohz_balancer_kick(w.sys, 0);
    nohz_balancer_kick(w.sys, 2);
    for (int c = 0; c < 4; ++c)
        EXPECT_EQ(w.sys.rqs[c].nohz_flags, 0u) << c;
    // Without LLC domains (tiny-4n) busy neighbours never count either.
    World four("tiny-4n");
    for (int c = 0; c < 3; ++c)
        four.spawn_on(c, {busy(100)});
    four.idle_the_rest();
    four.sys.nohz.needs_update = false;
    nohz_balancer_kick(four.sys, 0);
    EXPECT_EQ(four.sys.rqs[3].nohz_flags, 0u);
    // ... while a second task on a CPU does.
    four.spawn_on(0, {busy(100)});
    nohz_balancer_kick(four.sys, 0);
    EXPECT_EQ(four.sys.rqs[3].nohz_flags, NOHZ_BALANCE_KICK);
}

TEST(Nohz, NewIdleCpuAsksOnlyForTheNextBalanceTime) {
    World w("tiny-2n");
    w.spawn_on(0, {busy(100)});
    w.idle_the_rest();
    ASSERT_TRUE(w.sys.nohz.needs_update);  // CPUs 1-3 entered the mask
    nohz_balancer_kick(w.sys, 0);
    EXPECT_EQ(w.sys.rqs[1].nohz_flags, NOHZ_NEXT_KICK);
    nohz_csd_func(w.sys, 1);
    EXPECT_FALSE(w.sys.nohz.needs_update);
    EXPECT_EQ(w.sys.rqs[1].nohz_flags, 0u);
    // No balancing was asked for, so the idle CPUs kept their balance times; next_balance is
    // the earliest of them.
    Nanos earliest = msecs_to_ns(60000);
    for (int c = 1; c < 4; ++c)
        earliest = std::min(earliest, w.sys.rqs[c].next_balance);
    EXPECT_EQ(w.sys.nohz.next_balance, earliest);
}

TEST(Nohz, NoKickBeforeNextBalanceOrFromAnIdleTick) {
    World w("tiny-2n");
    w.spawn_on(0, {busy(100)});
    w.spawn_on(0, {busy(100)});
    w.idle_the_rest();
    w.sys.nohz.needs_update = false;
    w.sys.nohz.next_balance = w.sys.now + TICK_NSEC;
    nohz_balancer_kick(w.sys, 0);
    EXPECT_EQ(w.sys.rqs[1].nohz_flags, 0u);
    // An idle CPU's own tick (before its tick stopped) kicks nobody.
    w.sys.now += TICK_NSEC;
    nohz_balancer_kick(w.sys, 3);
    EXPECT_EQ(w.sys.rqs[1].nohz_flags, 0u);
    // Without idle CPUs there is nobody to kick.
    World full("tiny-2n");
    for (int c = 0; c < 4; ++c)
        full.spawn_on(c, {busy(100)});
    full.spawn_on(0, {busy(100)});
    nohz_balancer_kick(full.sys, 0);
    for (int c = 0; c < 4; ++c)
        EXPECT_EQ(full.sys.rqs[c].nohz_flags, 0u) << c;
}

TEST(Nohz, FirstBusyTickLeavesNohzIdle) {
    World w("tiny-2n");
    w.idle_the_rest();
    const int busy_llc1 = w.sys.nohz.nr_busy_cpus[w.llc_of(2)];
    w.spawn_on(2, {busy(100)});
    // Woken but not yet ticked: still in the mask, its tick no longer stopped.
    EXPECT_TRUE(w.sys.rqs[2].nohz_tick_stopped);
    EXPECT_FALSE(tick_nohz_tick_stopped_cpu(w.sys, 2));
    nohz_balancer_kick(w.sys, 2);  // what its first tick calls
    EXPECT_FALSE(w.sys.rqs[2].nohz_tick_stopped);
    EXPECT_EQ(w.sys.nohz.nr_cpus, 3);
    EXPECT_EQ(w.sys.nohz.nr_busy_cpus[w.llc_of(2)], busy_llc1 + 1);
    expect_consistent(w.sys);
}

TEST(Nohz, IdleBalanceRebalancesOnlyDueCpus) {
    World w("tiny-2n");
    w.spawn_on(0, {busy(100)});
    w.idle_the_rest();
    w.sys.now = msecs_to_ns(100);
    // CPU 2 is due (last balanced at 0 at every level), CPU 3 not before 150 ms, CPU 1 not
    // before 170 ms.
    w.sys.rqs[2].next_balance = msecs_to_ns(90);
    std::fill(w.sys.rqs[2].last_balance.begin(), w.sys.rqs[2].last_balance.end(), 0);
    w.sys.rqs[3].next_balance = msecs_to_ns(150);
    w.sys.rqs[1].next_balance = msecs_to_ns(170);
    const auto last3 = w.sys.rqs[3].last_balance, last1 = w.sys.rqs[1].last_balance;
    _nohz_idle_balance(w.sys, 1, NOHZ_BALANCE_KICK);
    // CPU 2 balanced every level (nothing to pull, so each interval doubled from its
    // minimum): its next balance is the shortest doubled idle interval from now.
    const auto& doms = w.sys.sched.domains[2];
    Nanos next2 = msecs_to_ns(60000);
    for (size_t l = 0; l < doms.size(); ++l) {
        EXPECT_EQ(w.sys.rqs[2].last_balance[l], w.sys.now) << doms[l].name;
        next2 = std::min(next2, w.sys.now + msecs_to_ns(2 * doms[l].min_interval_ms));
    }
    EXPECT_EQ(w.sys.rqs[2].next_balance, next2);
    EXPECT_EQ(w.sys.rqs[3].last_balance, last3);
    EXPECT_EQ(w.sys.rqs[1].last_balance, last1);
    EXPECT_EQ(w.sys.nohz.next_balance, std::min(next2, msecs_to_ns(150)));
}

TEST(Nohz, IlbPullsASecondTaskOffASharedCpu) {
    World w("tiny-2n");
    Phase free_run = busy(2000);
    free_run.clear_affinity = true;  // pinned to CPU 0 at first, then free
    Task& a = w.spawn_on(0, {free_run});
    Task& b = w.spawn_on(0, {free_run});
    w.idle_the_rest();  // CPUs 1-3 stop their ticks: they cannot pull for themselves
    ASSERT_EQ(w.sys.rqs[0].nr_running, 2u);
    const uint64_t migrations = w.sys.counters.migrations;
    Engine eng(w.sys);
    eng.set_check_invariants(true);
    Nanos split_at = -1;
    for (Nanos t = 4; t <= 200; t += 4) {
        eng.run(msecs_to_ns(t));
        if (a.cpu != b.cpu) {
            split_at = t;
            break;
        }
    }
    ASSERT_GE(split_at, 0) << "the idle load balancer never pulled the second task";
    // The pull went to an idle CPU (its newidle balance never ran: its tick was stopped), and
    // that CPU has left nohz idle at its first busy tick.
    const int dst = a.cpu == 0 ? b.cpu : a.cpu;
    EXPECT_NE(dst, 0);
    eng.run(msecs_to_ns(split_at + 8));
    EXPECT_FALSE(w.sys.rqs[dst].nohz_tick_stopped);
    EXPECT_EQ(w.sys.nohz.nr_cpus, 2);
    EXPECT_EQ(w.sys.counters.migrations, migrations + 1);
}

TEST(Nohz, OffKeepsEveryCpuTicking) {
    // nohz=off: the same pair is split by an idle CPU's own balancing, and no CPU ever stops its
    // tick or leaves its LLC's busy count.
    World w("tiny-2n", false);
    Phase free_run = busy(2000);
    free_run.clear_affinity = true;
    Task& a = w.spawn_on(0, {free_run});
    Task& b = w.spawn_on(0, {free_run});
    w.idle_the_rest();
    std::vector<int> llc_weights = w.sys.nohz.nr_busy_cpus;
    Engine eng(w.sys);
    eng.set_check_invariants(true);
    for (Nanos t = 4; t <= 200 && a.cpu == b.cpu; t += 4) {
        eng.run(msecs_to_ns(t));
        EXPECT_EQ(w.sys.nohz.nr_cpus, 0);
        EXPECT_EQ(w.sys.nohz.nr_busy_cpus, llc_weights);
        for (int c = 0; c < 4; ++c) {
            EXPECT_FALSE(tick_nohz_tick_stopped_cpu(w.sys, c)) << c;
            EXPECT_EQ(w.sys.rqs[c].nohz_flags, 0u) << c;
        }
    }
    EXPECT_NE(a.cpu, b.cpu);
}

}  // namespace
}  // namespace numasim
