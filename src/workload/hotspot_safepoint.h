// HotSpot's stop-the-world handshake around a young collection, as OpenJDK 17 writes it, for one
// JVM: which thread wakes which, in which order, and who then sleeps. Every wake is a futex wake
// of another task (Phase::futex_wake), so it goes through the kernel's try_to_wake_up() and
// select_task_rq_fair(); the threads' own sleeps between steps are futex waits.
//
//  1. A Java thread whose TLAB refill finds eden full (ParallelScavengeHeap::mem_allocate, then
//     VMThread::execute()) installs the VM operation and wakes the VM thread
//     (VMThread::wait_until_executed(): notify_all on VMOperation_lock, a condvar broadcast),
//     then waits on the same lock until the operation has run.
//  2. The VM thread (VMThread::wait_for_operation()) wakes, arms the safepoint
//     (SafepointSynchronize::begin()) and waits for every Java thread to reach a poll, looking
//     again after a back_off(): 10 us nanosleeps for the first millisecond, then 1 ms sleeps.
//     A Java thread that reaches the poll (or fails its own allocation meanwhile) blocks on the
//     wait barrier (LinuxWaitBarrier::wait(), FUTEX_WAIT_PRIVATE).
//  3. The VM operation runs PSScavenge: WorkGang::run_task() posts the start semaphore once per
//     active worker (SemaphoreGangTaskDispatcher; a POSIX semaphore, each sem_post a FUTEX_WAKE
//     of one waiter, the longest waiting first) and waits on the end semaphore; the last worker
//     to finish posts it (worker_done_with_task()); each worker then waits on the start
//     semaphore again.
//  4. SafepointSynchronize::end() disarms the barrier: one FUTEX_WAKE of INT_MAX waiters, in the
//     order they blocked. The VM thread then goes back to wait_for_operation(), whose
//     notify_all wakes the requesting thread, and waits for the next operation.
#pragma once

#include <deque>
#include <functional>
#include <vector>

#include "engine/program.h"
#include "sim/clock.h"

namespace numasim {

struct Task;

// SafepointSynchronize's back_off(): how long the VM thread sleeps before it looks at the Java
// threads again, `waited` after it armed the safepoint.
Nanos safepoint_back_off(Nanos waited);

class HotspotSafepoint {
  public:
    enum class State { Idle, Requested, Synchronizing, Operating };

    struct Hooks {
        // WorkerPolicy::calc_active_workers() for this collection.
        std::function<int()> active_workers;
        // What each of `n` workers does in the scavenge (ScavengeRootsTask).
        std::function<Phase(int n)> worker_task;
        // The collection is over (called by the VM thread at SafepointSynchronize::end()).
        std::function<void(Nanos now)> collected;
    };

    explicit HotspotSafepoint(Hooks hooks) : hooks_(std::move(hooks)) {}

    void set_vm_thread(Task* t) { vm_ = t; }
    // A Java thread exists from its start until it exits; the VM thread waits for each of
    // them to be safe.
    void java_thread_started(Task& t);
    void java_thread_exits(Task& t);

    // A Java thread between two stretches of compiled code (a TLAB refill, a safepoint poll).
    // True when `ph` blocks it: it requests the collection (`eden_full`) or a VM operation is
    // pending or running.
    bool java_poll(Task& t, Nanos now, bool eden_full, Phase& ph);

    // The VM thread's and the GC workers' next steps; false: the thread exits. `exiting`: the
    // application has ended, and the VM thread and workers leave once they are idle.
    bool vm_thread_step(Nanos now, bool exiting, Phase& ph);
    bool worker_step(Task& w, int id, Nanos now, bool exiting, Phase& ph);

    State state() const { return state_; }
    int java_threads() const { return static_cast<int>(live_.size()); }

  private:
    struct Worker {
        Task* task = nullptr;
        bool idle = false;        // waiting on the start semaphore
        bool dispatched = false;  // a post of the start semaphore is for it
        bool working = false;
    };
    static void step(Phase& ph);
    bool all_safe() const;
    bool wait_for_clocks(Nanos now, Phase& ph) const;

    Hooks hooks_;
    Task* vm_ = nullptr;
    State state_ = State::Idle;
    std::vector<Task*> live_;     // Java threads, in the order they started
    Task* requester_ = nullptr;   // waits on VMOperation_lock
    std::vector<Task*> blocked_;  // on the wait barrier, in the order they blocked
    Nanos sync_start_ = 0;
    Nanos last_wait_ = 0;  // when the latest of the threads the VM thread wakes began to wait
    std::vector<Worker> workers_;
    std::deque<int> idle_;  // start-semaphore waiters, first come first woken
    Phase task_;            // the dispatched workers' scavenge work
    int not_finished_ = 0;
};

}  // namespace numasim
