// SettledTicks: a run of settled ticks with the deadline and min_vruntime in hand, on tiny-2n
// (4 CPUs: tunable factor 3, base_slice 2.25 ms), each worked by hand.
#include "sched/settled_ticks.h"

#include <gtest/gtest.h>

#include "kernel/system.h"
#include "machine/presets.h"

namespace numasim {
namespace {

constexpr Nanos kSlice = 2250 * NSEC_PER_USEC;  // base_slice on 4 CPUs

struct World {
    explicit World(SchedClass c) : sys(load_preset("tiny-2n"), knobs(c), 1) {
        // One task of weight 2048 alone on CPU 0, in a request that ends at 12 ms of vruntime.
        t.weight = 2 * NICE_0_LOAD;
        t.vruntime = 10e6;
        t.deadline = 12e6;
        t.slice = 1;
        rq().curr = &t;
        rq().nr_running = 1;
        rq().min_vruntime = 9e6;
    }
    static NumaBalancingKnobs knobs(SchedClass c) {
        NumaBalancingKnobs k;
        k.numa_balancing = 0;
        k.sched_class = c;
        return k;
    }
    Rq& rq() { return sys.rqs[0]; }
    System sys;
    Task t;
};

// Ticks at 4, 8 and 12 ms with the vruntime at 11, 12 and 13 ms: the second uses the request
// up (12 is not below 12) and starts the next at 12 + 2.25 x 1024 / 2048 = 13.125 ms; the
// third is inside it. min_vruntime follows the vruntime. Nothing moves before store().
TEST(SettledTicks, EevdfRenewsAUsedUpRequestAndStoresAtTheEnd) {
    World w(SchedClass::Eevdf);
    SettledTicks ticks(w.sys, w.rq());
    ticks.tick(11e6, 4 * NSEC_PER_MSEC);
    ticks.tick(12e6, 8 * NSEC_PER_MSEC);
    ticks.tick(13e6, 12 * NSEC_PER_MSEC);
    EXPECT_EQ(w.t.deadline, 12e6);
    EXPECT_EQ(w.rq().min_vruntime, 9e6);
    ticks.store();
    EXPECT_EQ(w.t.deadline, 13.125e6);
    EXPECT_EQ(w.t.slice, kSlice);
    EXPECT_EQ(w.t.avg.last_update_time, 12 * NSEC_PER_MSEC);
    EXPECT_EQ(w.rq().min_vruntime, 13e6);
    EXPECT_FALSE(w.rq().need_resched);  // alone: nobody to hand the CPU to
}

// With company counted on the runqueue a renewed request asks for a reschedule, as
// update_curr() does.
TEST(SettledTicks, ARenewalWithCompanyAsksForAReschedule) {
    World w(SchedClass::Eevdf);
    w.rq().nr_running = 2;
    SettledTicks ticks(w.sys, w.rq());
    ticks.tick(11e6, 4 * NSEC_PER_MSEC);
    ticks.store();
    EXPECT_FALSE(w.rq().need_resched);
    ticks.tick(12.5e6, 8 * NSEC_PER_MSEC);
    ticks.store();
    EXPECT_TRUE(w.rq().need_resched);
    EXPECT_EQ(w.t.deadline, 13.625e6);
}

// CFS has no requests: only min_vruntime moves (never back) and the PELT update's time.
TEST(SettledTicks, CfsMovesMinVruntimeOnly) {
    World w(SchedClass::Cfs);
    w.rq().min_vruntime = 20e6;
    SettledTicks ticks(w.sys, w.rq());
    ticks.tick(13e6, 4 * NSEC_PER_MSEC);
    ticks.store();
    EXPECT_EQ(w.rq().min_vruntime, 20e6);
    ticks.tick(21e6, 8 * NSEC_PER_MSEC);
    ticks.store();
    EXPECT_EQ(w.rq().min_vruntime, 21e6);
    EXPECT_EQ(w.t.deadline, 12e6);
    EXPECT_EQ(w.t.slice, 1);
    EXPECT_EQ(w.t.avg.last_update_time, 8 * NSEC_PER_MSEC);
}

// No tick, nothing stored.
TEST(SettledTicks, NoTickStoresNothing) {
    World w(SchedClass::Eevdf);
    w.t.avg.last_update_time = 3;
    SettledTicks(w.sys, w.rq()).store();
    EXPECT_EQ(w.t.avg.last_update_time, 3);
    EXPECT_EQ(w.rq().min_vruntime, 9e6);
}

}  // namespace
}  // namespace numasim
