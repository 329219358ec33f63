// The EEVDF functions on hand-built runqueues, each with the arithmetic worked by hand.
#include "sched/eevdf.h"

#include <gtest/gtest.h>

#include <deque>

#include "sched/rq.h"
#include "sched/task.h"

namespace numasim {
namespace {

constexpr Nanos SLICE = 3 * NSEC_PER_MSEC;  // base_slice with 8 or more CPUs

// A runqueue and the tasks on it; Task objects stay put (std::deque) while the rq points at them.
struct World {
    Rq rq;
    std::deque<Task> tasks;
    Task& entity(double v, unsigned long w = NICE_0_LOAD, double deadline = 0) {
        Task& t = tasks.emplace_back();
        t.pid = static_cast<int>(tasks.size());
        t.vruntime = v;
        t.weight = w;
        t.deadline = deadline;
        return t;
    }
    Task& curr(double v, unsigned long w = NICE_0_LOAD, double deadline = 0) {
        Task& t = entity(v, w, deadline);
        rq.curr = &t;
        return t;
    }
    Task& queued(double v, unsigned long w = NICE_0_LOAD, double deadline = 0) {
        Task& t = entity(v, w, deadline);
        rq.queued.push_back(&t);
        return t;
    }
};

// A (curr, w 1024, v 100), B (w 2048, v 130), C (w 1024, v 190), v0 = min_vruntime = 100:
//   S = 1024 x 0 + 2048 x 30 + 1024 x 90 = 153600, W = 4096, V = 100 + 153600 / 4096 = 137.5.
struct ThreeEntities : World {
    ThreeEntities() {
        rq.min_vruntime = 100;
        a = &curr(100, 1024, 400);
        b = &queued(130, 2048, 250);
        c = &queued(190, 1024, 200);
    }
    Task *a, *b, *c;
};

TEST(AvgVruntime, WeightedMeanWithCurr) {
    ThreeEntities w;
    EXPECT_DOUBLE_EQ(eevdf::avg_vruntime(w.rq), 137.5);
    // Without curr: S = 153600, W = 3072: V = 100 + 50 = 150.
    w.rq.curr = nullptr;
    EXPECT_DOUBLE_EQ(eevdf::avg_vruntime(w.rq), 150.0);
    // Empty: V is min_vruntime.
    w.rq.queued.clear();
    EXPECT_DOUBLE_EQ(eevdf::avg_vruntime(w.rq), 100.0);
}

TEST(EntityEligible, VruntimeAtOrBelowV) {
    ThreeEntities w;
    // A: 0 x 4096 <= 153600; B: 30 x 4096 = 122880 <= 153600; C: 90 x 4096 = 368640 > 153600.
    EXPECT_TRUE(eevdf::entity_eligible(w.rq, *w.a));
    EXPECT_TRUE(eevdf::entity_eligible(w.rq, *w.b));
    EXPECT_FALSE(eevdf::entity_eligible(w.rq, *w.c));
    // Exactly at V is eligible: an entity at 137.5 gives 37.5 x 4096 = 153600.
    Task probe;
    probe.vruntime = 137.5;
    EXPECT_TRUE(eevdf::entity_eligible(w.rq, probe));
}

TEST(PickEevdf, EarliestDeadlineAmongEligible) {
    ThreeEntities w;
    // C has the earliest deadline (200) but is not eligible; B (250) beats curr A (400).
    EXPECT_EQ(eevdf::pick_eevdf(w.rq), w.b);
    // curr wins with a strictly earlier deadline than the queued best: 240 < 250.
    w.a->deadline = 240;
    EXPECT_EQ(eevdf::pick_eevdf(w.rq), w.a);
    // A tie goes to the queued entity.
    w.a->deadline = 250;
    EXPECT_EQ(eevdf::pick_eevdf(w.rq), w.b);
}

TEST(PickEevdf, RunToParityProtectsAnEligibleCurr) {
    ThreeEntities w;
    // The stash (vlag == deadline) says A is still in the request it was picked for.
    w.a->vlag = w.a->deadline;
    EXPECT_EQ(eevdf::pick_eevdf(w.rq), w.a);
    // Once A is past V it loses the protection. A at 260: S = 1024 x 160 + 61440 + 92160 =
    // 317440, V = 100 + 317440 / 4096 = 177.5 < 260. B (130) is eligible, C (190) is not.
    w.a->vruntime = 260;
    EXPECT_FALSE(eevdf::entity_eligible(w.rq, *w.a));
    EXPECT_EQ(eevdf::pick_eevdf(w.rq), w.b);
}

TEST(PickEevdf, SingleAndEmpty) {
    World w;
    EXPECT_EQ(eevdf::pick_eevdf(w.rq), nullptr);
    Task& only = w.queued(500, 1024, 900);
    EXPECT_EQ(eevdf::pick_eevdf(w.rq), &only);
}

// curr A (v 1000), queued B (v 1400), both nice 0, v0 = 1000: V = 1000 + 400 x 1024 / 2048 =
// 1200, W = 2048. P joins with w = 1024.
struct TwoOnRq : World {
    TwoOnRq() {
        rq.min_vruntime = 1000;
        curr(1000);
        queued(1400);
    }
};

TEST(PlaceEntity, PositiveLagIsInflatedSoItSurvivesTheJoin) {
    TwoOnRq w;
    Task& p = w.entity(0);
    p.vlag = 300;
    eevdf::place_entity(w.rq, p, SLICE, 0);
    // lag = 300 x (2048 + 1024) / 2048 = 450; v = 1200 - 450 = 750; deadline = 750 + 3 ms.
    EXPECT_DOUBLE_EQ(p.vruntime, 750.0);
    EXPECT_DOUBLE_EQ(p.deadline, 750.0 + 3e6);
    EXPECT_EQ(p.slice, SLICE);
    // After the join V = (1000 + 1400 + 750) / 3 = 1050, and V - v = 300: the stored lag.
    w.rq.queued.push_back(&p);
    EXPECT_DOUBLE_EQ(eevdf::avg_vruntime(w.rq) - p.vruntime, 300.0);
}

TEST(PlaceEntity, NegativeLagPlacesBehindV) {
    TwoOnRq w;
    Task& p = w.entity(0);
    p.vlag = -600;
    eevdf::place_entity(w.rq, p, SLICE, 0);
    // lag = -600 x 3072 / 2048 = -900; v = 1200 + 900 = 2100. After the join
    // V = (1000 + 1400 + 2100) / 3 = 1500 and V - v = -600.
    EXPECT_DOUBLE_EQ(p.vruntime, 2100.0);
    w.rq.queued.push_back(&p);
    EXPECT_DOUBLE_EQ(eevdf::avg_vruntime(w.rq) - p.vruntime, -600.0);
}

TEST(PlaceEntity, HeavierRunqueueInflatesLess) {
    World w;
    w.rq.min_vruntime = 0;
    w.curr(0, 2048);
    w.queued(300, 1024);
    Task& p = w.entity(0);
    p.vlag = 100;
    eevdf::place_entity(w.rq, p, SLICE, 0);
    // V = 1024 x 300 / 3072 = 100; lag = 100 x (3072 + 1024) / 3072 = 133.33..; v = -33.33..
    EXPECT_NEAR(p.vruntime, 100.0 - 400.0 / 3.0, 1e-9);
}

TEST(PlaceEntity, InitialHalfSliceEmptyQueueAndRelativeDeadline) {
    TwoOnRq w;
    Task& p = w.entity(0);
    p.vlag = 0;
    eevdf::place_entity(w.rq, p, SLICE, eevdf::ENQUEUE_INITIAL);
    // A new task: v = V = 1200, half a request: 1200 + 1.5 ms.
    EXPECT_DOUBLE_EQ(p.vruntime, 1200.0);
    EXPECT_DOUBLE_EQ(p.deadline, 1200.0 + 1.5e6);
    // A migrated task with a relative deadline of 2000 keeps it: 750 + 2000.
    Task& m = w.entity(0);
    m.vlag = 300;
    m.deadline = 2000;
    m.rel_deadline = true;
    eevdf::place_entity(w.rq, m, SLICE, 0);
    EXPECT_DOUBLE_EQ(m.vruntime, 750.0);
    EXPECT_DOUBLE_EQ(m.deadline, 2750.0);
    EXPECT_FALSE(m.rel_deadline);
    // An empty runqueue has nothing to lag behind: v = min_vruntime.
    World e;
    e.rq.min_vruntime = 5000;
    Task& q = e.entity(0);
    q.vlag = 300;
    eevdf::place_entity(e.rq, q, SLICE, 0);
    EXPECT_DOUBLE_EQ(q.vruntime, 5000.0);
    EXPECT_DOUBLE_EQ(q.deadline, 5000.0 + 3e6);
}

TEST(UpdateDeadline, NewRequestFromCurrentVruntime) {
    Task t;
    t.vruntime = 8e6;
    t.deadline = 9e6;
    EXPECT_FALSE(eevdf::update_deadline(t, SLICE));  // 8 ms < 9 ms: request still running
    EXPECT_DOUBLE_EQ(t.deadline, 9e6);
    // At the tick after the deadline (v = 10 ms) the next request runs to 10 + 3 = 13 ms: the
    // 1 ms overrun is not carried over.
    t.vruntime = 10e6;
    EXPECT_TRUE(eevdf::update_deadline(t, SLICE));
    EXPECT_DOUBLE_EQ(t.deadline, 13e6);
    EXPECT_EQ(t.slice, SLICE);
    // A task of twice the weight has a virtual request half as long: 10 + 1.5 ms.
    t.weight = 2048;
    t.deadline = 10e6;
    EXPECT_TRUE(eevdf::update_deadline(t, SLICE));
    EXPECT_DOUBLE_EQ(t.deadline, 11.5e6);
}

TEST(UpdateEntityLag, ClampedToTwoSlicesOrATick) {
    // A at 0, B at 20 ms: V = 10 ms; raw lags +10 ms and -10 ms.
    World w;
    Task& a = w.curr(0);
    Task& b = w.queued(20e6);
    a.slice = b.slice = SLICE;
    // Limit max(2 x 3 ms, 4 ms tick) = 6 ms.
    eevdf::update_entity_lag(w.rq, a);
    eevdf::update_entity_lag(w.rq, b);
    EXPECT_DOUBLE_EQ(a.vlag, 6e6);
    EXPECT_DOUBLE_EQ(b.vlag, -6e6);
    // With a 1 ms slice the tick (HZ 250: 4 ms) is the larger bound.
    a.slice = NSEC_PER_MSEC;
    eevdf::update_entity_lag(w.rq, a);
    EXPECT_DOUBLE_EQ(a.vlag, 4e6);
    // Unclamped inside the bound: B at 2 ms gives V = 1 ms, lag of A = 1 ms.
    b.vruntime = 2e6;
    eevdf::update_entity_lag(w.rq, a);
    EXPECT_DOUBLE_EQ(a.vlag, 1e6);
}

}  // namespace
}  // namespace numasim
