// CFS and EEVDF through the engine on tiny-2n (4 CPUs: tunable factor 1 + log2(4) = 3, so
// sched_latency 18 ms, min_granularity = base_slice 2.25 ms; HZ 250: a tick every 4 ms).
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "engine/engine.h"
#include "engine/process.h"
#include "kernel/system.h"
#include "machine/presets.h"
#include "sched/fair.h"
#include "sched/sched_tunables.h"
#include "sched_fixture.h"
#include "workload/phase_list.h"

namespace numasim {
namespace {

using schedtest::cpu_work;

NumaBalancingKnobs knobs(SchedClass c) {
    NumaBalancingKnobs k;
    k.numa_balancing = 0;
    k.sched_class = c;
    return k;
}

struct World {
    explicit World(SchedClass c, uint64_t seed = 3) : sys(load_preset("tiny-2n"), knobs(c), seed) {}
    // A task pinned to `cpu` (the first one is created there, the others inherit it).
    Task& spawn(std::vector<Phase> phases, int cpu = 0) {
        Task& t = programs.fork(sys, parent, std::move(phases));
        t.allow_only({cpu});
        if (!parent) parent = &t;
        return t;
    }
    System sys;
    Task* parent = nullptr;
    schedtest::Programs programs;
};

constexpr SchedClass kClasses[] = {SchedClass::Cfs, SchedClass::Eevdf, SchedClass::EevdfComplete};

TEST(SchedClass, BaseSliceScalesLikeMinGranularity) {
    EXPECT_EQ(sysctl_sched_base_slice(1), 750 * NSEC_PER_USEC);
    EXPECT_EQ(sysctl_sched_base_slice(4), 2250 * NSEC_PER_USEC);
    EXPECT_EQ(sysctl_sched_base_slice(144), 3 * NSEC_PER_MSEC);
}

// Two CPU-bound tasks on one CPU for 300 ms: both classes split it evenly, at different rates.
// CFS: period max(18 ms, 2 x 2.25 ms) = 18 ms, ideal 9 ms each; check_preempt_tick fires at the
// first tick past 9 ms, the 3rd (12 ms): ~300 / 12 = 25 switches. EEVDF: a 2.25 ms request ends
// inside every 4 ms tick, and the waiting task, behind V, has the earlier deadline: a switch at
// every tick, ~300 / 4 = 75.
TEST(SchedClass, TwoTasksShareACpuEvenly) {
    for (SchedClass c : kClasses) {
        World w(c);
        Task& a = w.spawn({cpu_work(2 * NSEC_PER_SEC)});
        Task& b = w.spawn({cpu_work(2 * NSEC_PER_SEC)});
        Engine eng(w.sys);
        eng.run(msecs_to_ns(300));
        ASSERT_EQ(a.cpu, 0);
        ASSERT_EQ(b.cpu, 0);
        EXPECT_NEAR(static_cast<double>(a.sum_exec_runtime), 150e6, 7.5e6) << knob_name(c);
        EXPECT_NEAR(static_cast<double>(b.sum_exec_runtime), 150e6, 7.5e6) << knob_name(c);
        EXPECT_EQ(a.sum_exec_runtime + b.sum_exec_runtime, msecs_to_ns(300)) << knob_name(c);
        const uint64_t cs = w.sys.counters.cs;
        if (c == SchedClass::Cfs) {
            EXPECT_GE(cs, 20u);
            EXPECT_LE(cs, 30u);
        } else {
            EXPECT_GE(cs, 70u) << knob_name(c);
            EXPECT_LE(cs, 80u) << knob_name(c);
        }
    }
}

// Three tasks: each a third, within 5 %.
TEST(SchedClass, ThreeTasksShareACpuEvenly) {
    for (SchedClass c : kClasses) {
        World w(c);
        std::vector<Task*> ts;
        for (int i = 0; i < 3; ++i)
            ts.push_back(&w.spawn({cpu_work(2 * NSEC_PER_SEC)}));
        Engine eng(w.sys);
        eng.run(msecs_to_ns(600));
        for (Task* t : ts)
            EXPECT_NEAR(static_cast<double>(t->sum_exec_runtime), 200e6, 10e6) << knob_name(c);
    }
}

// A task that runs 1 ms and sleeps 7 ms beside a CPU hog is not held back by it: its wakeups
// are placed by lag (EEVDF) or with the sleeper credit (CFS) ahead of the hog, and the resched
// they raise is served at the next tick (the engine acts on need_resched at ticks): at most
// 1 + 7 + 4 ms per round, at least 400 / 12 = 33 rounds of 1 ms in 400 ms.
TEST(SchedClass, ASleeperIsNotHeldBackByAHog) {
    for (SchedClass c : kClasses) {
        World w(c);
        w.spawn({cpu_work(5 * NSEC_PER_SEC)});
        std::vector<Phase> rounds(200, cpu_work(NSEC_PER_MSEC, 7 * NSEC_PER_MSEC));
        Task& s = w.spawn(rounds);
        Engine eng(w.sys);
        eng.run(msecs_to_ns(400));
        EXPECT_GE(s.sum_exec_runtime, msecs_to_ns(33)) << knob_name(c);
        EXPECT_LE(s.sum_exec_runtime, msecs_to_ns(51)) << knob_name(c);
        EXPECT_GE(s.nvcsw, 33u) << knob_name(c);
    }
}

// Same seed, same run, for every class: an oversubscribed mix of sleepers on all CPUs, with the
// load balancer moving them (no pinning).
struct Outcome {
    std::vector<Nanos> runtime;
    std::vector<uint64_t> nvcsw, nivcsw, migrations;
    std::vector<int> cpu;
    uint64_t cs = 0, sys_migrations = 0;
    bool operator==(const Outcome&) const = default;
};

Outcome mixed_run(SchedClass c) {
    World w(c, 17);
    std::vector<Task*> ts;
    for (int i = 0; i < 6; ++i) {
        std::vector<Phase> rounds(60,
                                  cpu_work((2 + i) * NSEC_PER_MSEC, (1 + i % 3) * NSEC_PER_MSEC));
        Task& t = w.spawn(rounds);
        t.allow_all(w.sys.nr_cpus());
        ts.push_back(&t);
    }
    Engine eng(w.sys);
    eng.run(msecs_to_ns(500));
    Outcome o;
    for (Task* t : ts) {
        o.runtime.push_back(t->sum_exec_runtime);
        o.nvcsw.push_back(t->nvcsw);
        o.nivcsw.push_back(t->nivcsw);
        o.migrations.push_back(t->nr_migrations);
        o.cpu.push_back(t->cpu);
    }
    o.cs = w.sys.counters.cs;
    o.sys_migrations = w.sys.counters.migrations;
    return o;
}

TEST(SchedClass, DeterministicForEveryClass) {
    std::vector<Outcome> outs;
    for (SchedClass c : kClasses) {
        const Outcome a = mixed_run(c);
        EXPECT_TRUE(a == mixed_run(c)) << knob_name(c);
        EXPECT_GT(a.sys_migrations, 0u) << knob_name(c);  // the balancer had work
        outs.push_back(a);
    }
    // The classes really differ.
    EXPECT_FALSE(outs[0] == outs[1]);
    EXPECT_FALSE(outs[1] == outs[2]);
}

// --- delayed dequeue (v6.12) against v6.6 ---
// a and b share CPU 0 (EEVDF, 2.25 ms requests). Each tick ends the running request and hands
// the CPU to the other task: a runs 0-4 and 8-12 ms, b 4-8 ms. At 11.9 ms a has run 7.9 ms and
// b 4 ms of virtual time (context switches add a few us to both), so V is their mean and a is
// ineligible: its lag V - v is about -1.95 ms.
struct SleepWhileIneligible {
    explicit SleepWhileIneligible(SchedClass c) : w(c), eng(w.sys) {
        a = &w.spawn({cpu_work(2 * NSEC_PER_SEC)});
        b = &w.spawn({cpu_work(2 * NSEC_PER_SEC)});
        eng.run(11'900'000);
        rq = &w.sys.rqs[0];
    }
    bool queued(const Task& t) const {
        return std::count(rq->queued.begin(), rq->queued.end(), &t) == 1;
    }
    World w;
    Engine eng;
    Task *a = nullptr, *b = nullptr;
    Rq* rq = nullptr;
};

TEST(DelayedDequeue, V66SleeperLeavesWithItsNegativeLag) {
    SleepWhileIneligible s(SchedClass::Eevdf);
    ASSERT_EQ(s.rq->curr, s.a);
    const double lag = (s.b->vruntime - s.a->vruntime) / 2;  // V - v_a with two equal weights
    ASSERT_LT(lag, -1.5e6);
    dequeue_sleeping_task(s.w.sys, *s.a);
    EXPECT_FALSE(s.a->sched_delayed);
    EXPECT_FALSE(s.queued(*s.a));
    EXPECT_EQ(s.rq->nr_running, 1u);
    EXPECT_DOUBLE_EQ(s.a->vlag, lag);
}

TEST(DelayedDequeue, V612SleeperStaysQueuedUntilItsLagIsBurntOff) {
    SleepWhileIneligible s(SchedClass::EevdfComplete);
    ASSERT_EQ(s.rq->curr, s.a);
    dequeue_sleeping_task(s.w.sys, *s.a);
    schedule(s.w.sys, 0);
    EXPECT_EQ(s.rq->curr, s.b);
    EXPECT_TRUE(s.a->sched_delayed);
    EXPECT_TRUE(s.queued(*s.a));
    EXPECT_EQ(s.a->state, TaskState::Sleeping);
    EXPECT_EQ(s.rq->nr_running, 2u);  // still counted, as v6.12 counted it
    // b catches up with a's vruntime at ~16 ms; at that tick b's request ends, a (eligible,
    // earlier deadline) is picked and its dequeue completes with its lag, now positive, clipped
    // to zero (DELAY_ZERO).
    s.eng.run(msecs_to_ns(20));
    EXPECT_FALSE(s.a->sched_delayed);
    EXPECT_FALSE(s.queued(*s.a));
    EXPECT_EQ(s.rq->nr_running, 1u);
    EXPECT_EQ(s.a->vlag, 0.0);
    EXPECT_EQ(s.rq->curr, s.b);
}

// Woken while its dequeue is delayed, the task is requeued where it is: same CPU (no
// select_idle_sibling), same vruntime and deadline while its lag is still negative. v6.6 has
// dequeued it, so the wakeup picks the idle CPU 1 of the same LLC.
TEST(DelayedDequeue, WakeupWhileDelayedRequeuesInPlace) {
    for (SchedClass c : {SchedClass::Eevdf, SchedClass::EevdfComplete}) {
        SleepWhileIneligible s(c);
        dequeue_sleeping_task(s.w.sys, *s.a);
        schedule(s.w.sys, 0);
        const double v = s.a->vruntime, deadline = s.a->deadline;
        s.a->allow_all(s.w.sys.nr_cpus());
        try_to_wake_up(s.w.sys, *s.a);
        EXPECT_FALSE(s.a->sched_delayed);
        if (c == SchedClass::EevdfComplete) {
            EXPECT_EQ(s.a->state, TaskState::Runnable);  // ineligible: no preemption of b
            EXPECT_EQ(s.a->cpu, 0);
            EXPECT_TRUE(s.queued(*s.a));
            EXPECT_EQ(s.rq->nr_running, 2u);
            EXPECT_EQ(s.a->vruntime, v);
            EXPECT_EQ(s.a->deadline, deadline);
        } else {
            EXPECT_EQ(s.a->cpu, 1);
            EXPECT_EQ(s.a->state, TaskState::Running);
            EXPECT_EQ(s.rq->nr_running, 1u);
        }
    }
}

}  // namespace
}  // namespace numasim
