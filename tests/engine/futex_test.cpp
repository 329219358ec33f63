// Phase::futex_wake / futex_wait and Phase::exact_end (docs/model.md, "How tasks touch memory"
// and "Time"): tasks that wake each other as schbench's threads do.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "cost/cost_model.h"
#include "engine/engine.h"
#include "engine/process.h"
#include "kernel/system.h"
#include "machine/presets.h"
#include "numab/knobs.h"

namespace numasim {
namespace {

// Plays `phases` in order and notes the CPU's clock at each phase's start.
class Script : public TaskProgram {
  public:
    explicit Script(std::vector<Phase> phases) : phases_(std::move(phases)) {}
    bool next_phase(Task& t, Phase& ph) override {
        if (next_ >= phases_.size()) return false;
        starts.push_back(sys->rqs[t.cpu].clock);
        ph = phases_[next_++];
        return true;
    }
    System* sys = nullptr;
    std::vector<Nanos> starts;

  private:
    std::vector<Phase> phases_;
    size_t next_ = 0;
};

Phase cpu(Nanos ns, bool exact) {
    Phase ph;
    ph.cpu_time = ns;
    ph.exact_end = exact;
    return ph;
}

struct Pair {
    System sys{load_preset("tiny-2n"), NumaBalancingKnobs{}, 1};
    std::unique_ptr<Script> a, b;
    Task* ta = nullptr;
    Task* tb = nullptr;
    // A: 1 ms of work, then a futex_wait phase of `a_wait` and a last phase. B: `b_work`, then a
    // phase that wakes A, then its end.
    Pair(Nanos a_wait, Nanos b_work, bool exact) {
        Phase wait = cpu(a_wait, exact);
        wait.futex_wait = true;
        a = std::make_unique<Script>(
            std::vector<Phase>{cpu(NSEC_PER_MSEC, exact), wait, cpu(NSEC_PER_USEC, exact)});
        a->sys = &sys;
        ta = &create_process(sys, mm_create(sys), nullptr, "a", a.get(), 0, 0);
        Phase wake = cpu(NSEC_PER_USEC, exact);
        wake.futex_wake = {ta};
        b = std::make_unique<Script>(std::vector<Phase>{cpu(b_work, exact), wake});
        b->sys = &sys;
        tb = &create_process(sys, mm_create(sys), nullptr, "b", b.get(), 0, 1);
    }
    void run(Nanos end) {
        Engine eng(sys);
        eng.run(end);
    }
};

// A waits from about 1 ms; B wakes it at about 6 ms. With exact phase ends the wakeup is
// handled at B's time: A is queued on its idle CPU within a nanosecond of B's wake (the event
// just past B's phase end) and runs after the context switch. (Exact ends are kept from the
// first event on, the tick at 4 ms: B's end is foreseen from there.)
TEST(Futex, ExactWakeRunsTheWaiterAtTheWakersTime) {
    Pair p(NSEC_PER_USEC, 6 * NSEC_PER_MSEC, true);
    p.run(10 * NSEC_PER_MSEC);
    ASSERT_EQ(p.b->starts.size(), 2u);
    ASSERT_EQ(p.a->starts.size(), 3u);
    const Nanos woken_by = p.b->starts[1];
    EXPECT_GE(p.ta->last_wakeup, woken_by);
    EXPECT_LE(p.ta->last_wakeup, woken_by + 1);
    EXPECT_EQ(p.a->starts[2],
              p.ta->last_wakeup + static_cast<Nanos>(p.sys.cost.k().CONTEXT_SWITCH_NS));
    EXPECT_EQ(p.ta->nvcsw, 2u);  // it slept once, and exited
}

// Without exact ends B's wake is a CPU-local step inside an advance to the next tick: A is
// queued only when the engine reaches that event.
TEST(Futex, WithoutExactEndsTheWakeWaitsForTheEvent) {
    Pair p(NSEC_PER_USEC, 6 * NSEC_PER_MSEC, false);
    p.run(10 * NSEC_PER_MSEC);
    ASSERT_EQ(p.a->starts.size(), 3u);
    EXPECT_GT(p.ta->last_wakeup, p.b->starts[1] + 100 * NSEC_PER_USEC);
    EXPECT_EQ(p.ta->last_wakeup % TICK_NSEC, 0);
}

// B posts at about 2 ms while A's futex_wait phase (1 to 6 ms) runs: A does not sleep at its
// end (fwait() finds the futex posted).
TEST(Futex, PostDuringTheWaitPhaseMeansNoSleep) {
    Pair p(5 * NSEC_PER_MSEC, 2 * NSEC_PER_MSEC, true);
    p.run(10 * NSEC_PER_MSEC);
    ASSERT_EQ(p.a->starts.size(), 3u);
    EXPECT_EQ(p.ta->nvcsw, 1u);  // its exit only
    EXPECT_GE(p.a->starts[2], p.a->starts[1] + 5 * NSEC_PER_MSEC);
    EXPECT_LT(p.a->starts[2], p.a->starts[1] + 5 * NSEC_PER_MSEC + 10 * NSEC_PER_USEC);
}

// B posts at about 0.5 ms, before A's futex_wait phase starts at 1 ms: the phase sets the futex
// to blocked, so the post is lost and A sleeps for good.
TEST(Futex, PostBeforeTheWaitPhaseIsLost) {
    Pair p(NSEC_PER_USEC, NSEC_PER_MSEC / 2, true);
    p.run(10 * NSEC_PER_MSEC);
    EXPECT_EQ(p.a->starts.size(), 2u);
    EXPECT_EQ(p.ta->state, TaskState::Sleeping);
}

// A wakeup onto a busy CPU (CFS): H runs 20 ms of work on CPU 0; A sleeps in a futex wait,
// also bound to CPU 0; B, on CPU 1, wakes A after 6 ms. A is queued behind H and runs only
// when CPU 0 switches, which the model does at a tick (it serves a wakeup preemption's
// reschedule there, and check_preempt_tick() ends H's slice there): A starts at a tick plus the
// context switch, and no later than H's slice, sched_latency / 2 = 9 ms with 4 CPUs
// (sched_tunable_factor 3), after the wakeup, rounded up to a tick.
TEST(Futex, WakeupOntoABusyCpuWaitsForATick) {
    NumaBalancingKnobs k;
    k.sched_class = SchedClass::Cfs;
    System sys(load_preset("tiny-2n"), k, 1);
    auto on = [](Phase ph, int c) {
        ph.set_affinity = std::vector<int>{c};
        return ph;
    };
    Phase wait = cpu(NSEC_PER_USEC, true);
    wait.futex_wait = true;
    Script a({on(cpu(NSEC_PER_USEC, true), 0), wait, cpu(NSEC_PER_USEC, true)});
    Script h({on(cpu(20 * NSEC_PER_MSEC, true), 0)});
    a.sys = h.sys = &sys;
    Task& ta = create_process(sys, mm_create(sys), nullptr, "a", &a, 0, 0);
    create_process(sys, mm_create(sys), nullptr, "h", &h, 0, 1);
    Phase wake = cpu(NSEC_PER_USEC, true);
    wake.futex_wake = {&ta};
    Script b({on(cpu(6 * NSEC_PER_MSEC, true), 1), wake});
    b.sys = &sys;
    create_process(sys, mm_create(sys), nullptr, "b", &b, 0, 2);
    Engine eng(sys);
    eng.run(30 * NSEC_PER_MSEC);
    ASSERT_EQ(a.starts.size(), 3u);
    ASSERT_EQ(b.starts.size(), 2u);
    const Nanos woken = b.starts[1];
    EXPECT_GE(ta.last_wakeup, woken);
    EXPECT_LE(ta.last_wakeup, woken + 1);
    const auto cs = static_cast<Nanos>(sys.cost.k().CONTEXT_SWITCH_NS);
    const Nanos picked = a.starts[2] - cs;
    EXPECT_EQ(picked % TICK_NSEC, 0);
    EXPECT_GT(picked, woken);
    EXPECT_LE(picked, ((woken + 9 * NSEC_PER_MSEC) / TICK_NSEC + 1) * TICK_NSEC);
}

// The wake reaches select_task_rq_fair() as B's, from B's CPU: A is forked onto CPU 0 and B onto
// CPU 2, the other node, whose NUMA level (distance 21) has SD_WAKE_AFFINE and spans both, so
// wake_affine() is asked once; with B busy on its CPU and A's CPU idle, v5.10's idle-prev test
// keeps A on CPU 0. B records A as its wakee. A timer wake-up (this_cpu == prev) asks nothing.
TEST(Futex, TheWakerAndItsCpuReachTheWakeUpPath) {
    Pair p(NSEC_PER_USEC, 6 * NSEC_PER_MSEC, true);
    ASSERT_EQ(p.ta->cpu, 0);
    ASSERT_EQ(p.tb->cpu, 2);
    p.run(10 * NSEC_PER_MSEC);
    ASSERT_EQ(p.a->starts.size(), 3u);
    EXPECT_EQ(p.ta->nr_wakeups_affine_attempts, 1u);
    EXPECT_EQ(p.ta->nr_wakeups_affine, 1u);
    EXPECT_EQ(p.ta->cpu, 0);
    EXPECT_EQ(p.tb->wakee.last_wakee, p.ta);
    EXPECT_EQ(p.tb->wakee.wakee_flips, 1u);
}

}  // namespace
}  // namespace numasim
