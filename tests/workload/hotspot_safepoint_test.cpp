#include "workload/hotspot_safepoint.h"

#include <gtest/gtest.h>

#include "helpers.h"
#include "sched/task.h"
#include "workload/hotspot_jvm.h"

namespace numasim {
namespace {

using Wakes = std::vector<Task*>;

// One JVM's handshake, worked by hand: Java threads A, B, C; the VM thread V; workers W0 and W1,
// which reach the start semaphore in that order.
struct Handshake : ::testing::Test {
    Task a, b, c, v, w0, w1;
    int active = 2;
    std::vector<int> dispatched;  // the worker counts the scavenge was split into
    std::vector<Nanos> collected;
    HotspotSafepoint sp{{.active_workers = [this] { return active; },
                         .worker_task =
                             [this](int n) {
                                 dispatched.push_back(n);
                                 Phase ph;
                                 ph.work_bytes = 1000.0 / n;
                                 return ph;
                             },
                         .collected = [this](Nanos now) { collected.push_back(now); }}};

    void SetUp() override {
        sp.set_vm_thread(&v);
        for (Task* t : {&a, &b, &c})
            sp.java_thread_started(*t);
        Phase ph;
        ASSERT_TRUE(sp.worker_step(w0, 0, 0, false, ph));
        EXPECT_TRUE(ph.futex_wait);
        ph = {};
        ASSERT_TRUE(sp.worker_step(w1, 1, 0, false, ph));
        ph = {};
        ASSERT_TRUE(sp.vm_thread_step(0, false, ph));  // wait_for_operation()
        EXPECT_TRUE(ph.futex_wait);
        EXPECT_TRUE(ph.futex_wake.empty());
    }
};

TEST_F(Handshake, WakesFollowHotspotsOrder) {
    Phase ph;
    // A runs while eden has room: nothing happens.
    EXPECT_FALSE(sp.java_poll(a, 40 * NSEC_PER_USEC, false, ph));
    // A finds eden full: it wakes the VM thread and waits for the operation.
    EXPECT_TRUE(sp.java_poll(a, 50 * NSEC_PER_USEC, true, ph));
    EXPECT_EQ(ph.futex_wake, Wakes{&v});
    EXPECT_TRUE(ph.futex_wait);
    EXPECT_EQ(sp.state(), HotspotSafepoint::State::Requested);
    // B reaches a poll: it blocks on the barrier and wakes no one.
    ph = {};
    EXPECT_TRUE(sp.java_poll(b, 60 * NSEC_PER_USEC, false, ph));
    EXPECT_TRUE(ph.futex_wake.empty());
    EXPECT_TRUE(ph.futex_wait);
    // V arms the safepoint at 100 us; C still runs: V backs off 10 us, then, 2 ms later, 1 ms.
    ph = {};
    EXPECT_TRUE(sp.vm_thread_step(100 * NSEC_PER_USEC, false, ph));
    EXPECT_EQ(ph.sleep_after, 10 * NSEC_PER_USEC);
    EXPECT_TRUE(ph.futex_wake.empty());
    EXPECT_FALSE(ph.futex_wait);
    ph = {};
    EXPECT_TRUE(sp.vm_thread_step(2100 * NSEC_PER_USEC, false, ph));
    EXPECT_EQ(ph.sleep_after, NSEC_PER_MSEC);
    // C blocks; V finds every thread safe and posts the start semaphore twice: W0 then W1.
    ph = {};
    EXPECT_TRUE(sp.java_poll(c, 2500 * NSEC_PER_USEC, false, ph));
    ph = {};
    EXPECT_TRUE(sp.vm_thread_step(3100 * NSEC_PER_USEC, false, ph));
    EXPECT_EQ(ph.futex_wake, (Wakes{&w0, &w1}));
    EXPECT_TRUE(ph.futex_wait);
    EXPECT_EQ(dispatched, std::vector<int>{2});
    // Each worker runs half the scavenge.
    ph = {};
    EXPECT_TRUE(sp.worker_step(w1, 1, 3150 * NSEC_PER_USEC, false, ph));
    EXPECT_DOUBLE_EQ(ph.work_bytes, 500.0);
    EXPECT_FALSE(ph.futex_wait);
    ph = {};
    EXPECT_TRUE(sp.worker_step(w0, 0, 3150 * NSEC_PER_USEC, false, ph));
    // A wake of V before the last worker is done: V waits on.
    ph = {};
    EXPECT_TRUE(sp.vm_thread_step(3200 * NSEC_PER_USEC, false, ph));
    EXPECT_TRUE(ph.futex_wait);
    EXPECT_TRUE(ph.futex_wake.empty());
    // W1 finishes first and waits; W0 is the last and posts the end semaphore.
    ph = {};
    EXPECT_TRUE(sp.worker_step(w1, 1, 5 * NSEC_PER_MSEC, false, ph));
    EXPECT_TRUE(ph.futex_wake.empty());
    EXPECT_TRUE(ph.futex_wait);
    ph = {};
    EXPECT_TRUE(sp.worker_step(w0, 0, 6 * NSEC_PER_MSEC, false, ph));
    EXPECT_EQ(ph.futex_wake, Wakes{&v});
    EXPECT_TRUE(ph.futex_wait);
    // V ends the safepoint: the barrier wakes B and C in the order they blocked, then
    // wait_for_operation() wakes A; V waits for the next operation.
    ph = {};
    EXPECT_TRUE(sp.vm_thread_step(9 * NSEC_PER_MSEC, false, ph));
    EXPECT_EQ(ph.futex_wake, (Wakes{&b, &c, &a}));
    EXPECT_TRUE(ph.futex_wait);
    EXPECT_EQ(collected, std::vector<Nanos>{9 * NSEC_PER_MSEC});
    EXPECT_EQ(sp.state(), HotspotSafepoint::State::Idle);
    // The next collection with one worker wakes W1, which waited first this time.
    active = 1;
    ph = {};
    EXPECT_TRUE(sp.java_poll(b, 15 * NSEC_PER_MSEC, true, ph));
    EXPECT_EQ(ph.futex_wake, Wakes{&v});
    for (Task* t : {&a, &c}) {
        ph = {};
        EXPECT_TRUE(sp.java_poll(*t, 16 * NSEC_PER_MSEC, false, ph));
    }
    ph = {};
    EXPECT_TRUE(sp.vm_thread_step(20 * NSEC_PER_MSEC, false, ph));
    EXPECT_EQ(ph.futex_wake, Wakes{&w1});
}

TEST_F(Handshake, ExitedThreadsDoNotHoldTheSafepoint) {
    Phase ph;
    EXPECT_TRUE(sp.java_poll(a, 10, true, ph));
    sp.java_thread_exits(b);
    ph = {};
    EXPECT_TRUE(sp.java_poll(c, 10, false, ph));
    ph = {};
    EXPECT_TRUE(sp.vm_thread_step(20, false, ph));
    EXPECT_EQ(ph.futex_wake, (Wakes{&w0, &w1}));
}

TEST_F(Handshake, IdleThreadsLeaveAtTheExit) {
    Phase ph;
    EXPECT_FALSE(sp.vm_thread_step(0, true, ph));
    EXPECT_FALSE(sp.worker_step(w0, 0, 0, true, ph));
    // W0 has left the start semaphore: a collection now wakes W1 only.
    ph = {};
    EXPECT_TRUE(sp.java_poll(a, 10, true, ph));
    for (Task* t : {&b, &c}) {
        ph = {};
        EXPECT_TRUE(sp.java_poll(*t, 10, false, ph));
    }
    ph = {};
    EXPECT_TRUE(sp.vm_thread_step(20, false, ph));
    EXPECT_EQ(ph.futex_wake, Wakes{&w1});
}

// C's CPU is ahead: C blocked at 500 ns, and the VM thread's clock reads 300 ns when it finds
// every thread safe. A wake at 300 ns would come before C's wait began, so the VM thread first
// sleeps 201 ns, then wakes the workers.
TEST_F(Handshake, VmThreadWaitsForTheLatestWaitersClock) {
    Phase ph;
    EXPECT_TRUE(sp.java_poll(a, 100, true, ph));
    ph = {};
    EXPECT_TRUE(sp.java_poll(b, 200, false, ph));
    ph = {};
    EXPECT_TRUE(sp.java_poll(c, 500, false, ph));
    ph = {};
    EXPECT_TRUE(sp.vm_thread_step(300, false, ph));
    EXPECT_TRUE(ph.futex_wake.empty());
    EXPECT_EQ(ph.sleep_after, 201);
    ph = {};
    EXPECT_TRUE(sp.vm_thread_step(501, false, ph));
    EXPECT_EQ(ph.futex_wake, (Wakes{&w0, &w1}));
}

TEST(HotspotSafepoint, BackOff) {
    EXPECT_EQ(safepoint_back_off(0), 10 * NSEC_PER_USEC);
    EXPECT_EQ(safepoint_back_off(999 * NSEC_PER_USEC), 10 * NSEC_PER_USEC);
    EXPECT_EQ(safepoint_back_off(NSEC_PER_MSEC), NSEC_PER_MSEC);
}

// HeapSizePerGCThread = 32 MiB * 13 / 10 = 43 620 760 bytes (aligned to 8).
TEST(HotspotSafepoint, ActiveWorkers) {
    constexpr uint64_t GiB = uint64_t{1} << 30, MiB = uint64_t{1} << 20;
    // 8 warehouses and main: 2 x 9 = 18 by Java threads; 1 GiB / 43 620 760 = 24 by heap.
    EXPECT_EQ(hotspot_active_gc_workers(33, 1, 9, GiB, false), 24);
    // Down to 4 (2 x 2 threads; 100 MiB gives 2): the mean of 24 and 4.
    EXPECT_EQ(hotspot_active_gc_workers(33, 24, 2, 100 * MiB, false), 14);
    // At most the pool; every worker when ParallelGCThreads was given.
    EXPECT_EQ(hotspot_active_gc_workers(8, 1, 9, GiB, false), 8);
    EXPECT_EQ(hotspot_active_gc_workers(33, 1, 1, MiB, true), 33);
    // A pool of one has a floor of one.
    EXPECT_EQ(hotspot_active_gc_workers(1, 1, 0, MiB, false), 1);
    EXPECT_EQ(hotspot_active_gc_workers(4, 1, 0, MiB, false), 2);
}

// In a run, the VM thread and the GC workers are woken by other threads, so their wakes go
// through select_task_rq_fair()'s wake_affine(); before the safepoint model they woke only from
// their own timers, which never reach it.
TEST(HotspotSafepoint, GcWakesTakeTheAffinePath) {
    auto r = test::run_workload("tiny-2n",
                                "[[workload]]\ntype='specjbb2005'\nlayout='single'\n"
                                "warehouses=4\nheap='96MiB'\nramp_up='100ms'\nduration='400ms'\n",
                                2);
    uint64_t gc_attempts = 0, vm_attempts = 0, java_attempts = 0;
    Nanos gc_time = 0;
    for (const auto& t : r.sys->tasks) {
        if (t->comm.rfind("GC Thread#", 0) == 0) {
            gc_attempts += t->nr_wakeups_affine_attempts;
            gc_time += t->utime + t->stime;
        }
        if (t->comm == "VM Thread") vm_attempts += t->nr_wakeups_affine_attempts;
        if (t->comm == "java") java_attempts += t->nr_wakeups_affine_attempts;
    }
    EXPECT_GT(gc_attempts, 0u);
    EXPECT_GT(vm_attempts, 0u);
    EXPECT_GT(java_attempts, 0u);
    EXPECT_GT(gc_time, NSEC_PER_MSEC);
}

}  // namespace
}  // namespace numasim
