// HotSpot's safepoint handshake around a young collection (OpenJDK 17: runtime/vmThread.cpp,
// runtime/safepoint.cpp, os/linux/waitBarrier_linux.cpp, gc/shared/workgroup.cpp,
// gc/parallel/psScavenge.cpp). The order of the steps is in hotspot_safepoint.h.
#include "workload/hotspot_safepoint.h"

#include <algorithm>

namespace numasim {

namespace {

// Each step of the handshake (taking a lock, a condvar or semaphore call, a state store) is one
// burst of this much CPU: the model's shortest phase, as make_wait_phase() uses. No published
// per-step figure; the steps are microseconds against collections of milliseconds.
constexpr Nanos SAFEPOINT_STEP_CPU = NSEC_PER_USEC;
// safepoint.cpp back_off(): os::naked_short_nanosleep(10 us) while less than a millisecond
// (NANOSECS_PER_MILLISEC) has passed since the safepoint was armed, os::naked_short_sleep(1 ms)
// after that.
constexpr Nanos SAFEPOINT_FINE_BACK_OFF = 10 * NSEC_PER_USEC;
constexpr Nanos SAFEPOINT_FINE_PERIOD = NSEC_PER_MSEC;
constexpr Nanos SAFEPOINT_COARSE_BACK_OFF = NSEC_PER_MSEC;

}  // namespace

Nanos safepoint_back_off(Nanos waited) {
    return waited < SAFEPOINT_FINE_PERIOD ? SAFEPOINT_FINE_BACK_OFF : SAFEPOINT_COARSE_BACK_OFF;
}

void HotspotSafepoint::step(Phase& ph) {
    ph.cpu_time = SAFEPOINT_STEP_CPU;
    // The wakes a step posts happen at its own time, not at the next tick.
    ph.exact_end = true;
}

void HotspotSafepoint::java_thread_started(Task& t) {
    live_.push_back(&t);
}

void HotspotSafepoint::java_thread_exits(Task& t) {
    live_.erase(std::remove(live_.begin(), live_.end(), &t), live_.end());
}

bool HotspotSafepoint::all_safe() const {
    // The requester waits on VMOperation_lock (_thread_blocked), the others on the barrier.
    return blocked_.size() + (requester_ ? 1 : 0) >= live_.size();
}

bool HotspotSafepoint::wait_for_clocks(Nanos now, Phase& ph) const {
    // The simulated CPUs' clocks differ by up to the gap between two events, so a thread may
    // have begun to wait at a later clock than the VM thread's now. A futex wake from before
    // its wait would be lost (Engine::futex_wake), where in HotSpot the waiter would have found
    // the futex word changed: the VM thread lets its clock pass the waiter's first.
    if (now > last_wait_) return false;
    step(ph);
    ph.sleep_after = last_wait_ - now + 1;
    return true;
}

bool HotspotSafepoint::java_poll(Task& t, Nanos now, bool eden_full, Phase& ph) {
    if (state_ == State::Idle) {
        if (!eden_full || !vm_) return false;
        // VMThread::execute(): install the operation, notify_all VMOperation_lock, wait.
        state_ = State::Requested;
        requester_ = &t;
        last_wait_ = std::max(last_wait_, now);
        step(ph);
        ph.futex_wake = {vm_};
        ph.futex_wait = true;
        return true;
    }
    // The poll is armed, or about to be: SafepointSynchronize::block() waits on the barrier.
    blocked_.push_back(&t);
    last_wait_ = std::max(last_wait_, now);
    step(ph);
    ph.futex_wait = true;
    return true;
}

bool HotspotSafepoint::vm_thread_step(Nanos now, bool exiting, Phase& ph) {
    switch (state_) {
        case State::Idle:
            // wait_for_operation(); woken with nothing to run only by the VM's exit.
            if (exiting) return false;
            step(ph);
            ph.futex_wait = true;
            return true;
        case State::Requested:
            // SafepointSynchronize::begin(): arm the poll, then look at every thread.
            state_ = State::Synchronizing;
            sync_start_ = now;
            [[fallthrough]];
        case State::Synchronizing: {
            step(ph);
            if (!all_safe()) {
                ph.sleep_after = safepoint_back_off(now - sync_start_);
                return true;
            }
            if (wait_for_clocks(now, ph)) return true;
            // PSScavenge::invoke_no_policy(): WorkGang::run_task(ScavengeRootsTask), one start
            // semaphore post per active worker, each waking the longest waiter.
            const int n =
                std::min(std::max(1, hooks_.active_workers()), static_cast<int>(idle_.size()));
            state_ = State::Operating;
            not_finished_ = n;
            task_ = hooks_.worker_task(n);
            for (int i = 0; i < n; ++i) {
                Worker& w = workers_[static_cast<size_t>(idle_.front())];
                idle_.pop_front();
                w.idle = false;
                w.dispatched = true;
                ph.futex_wake.push_back(w.task);
            }
            // The end semaphore's wait; with no worker to wait for, the next step ends at once.
            ph.futex_wait = n > 0;
            return true;
        }
        case State::Operating:
            if (not_finished_ > 0) {  // not the last worker's post: wait on
                step(ph);
                ph.futex_wait = true;
                return true;
            }
            if (wait_for_clocks(now, ph)) return true;
            // SafepointSynchronize::end(): disarm, waking the barrier's waiters in the order they
            // blocked; then wait_for_operation()'s notify_all wakes the requester.
            step(ph);
            ph.futex_wake = blocked_;
            if (requester_) ph.futex_wake.push_back(requester_);
            blocked_.clear();
            requester_ = nullptr;
            state_ = State::Idle;
            hooks_.collected(now);
            ph.futex_wait = !exiting;
            return true;
    }
    return false;
}

bool HotspotSafepoint::worker_step(Task& t, int id, Nanos now, bool exiting, Phase& ph) {
    if (static_cast<size_t>(id) >= workers_.size()) workers_.resize(static_cast<size_t>(id) + 1);
    Worker& w = workers_[static_cast<size_t>(id)];
    w.task = &t;
    if (w.dispatched) {  // worker_wait_for_task() returned: run the task
        w.dispatched = false;
        w.working = true;
        ph = task_;
        return true;
    }
    step(ph);
    if (w.working) {
        // worker_done_with_task(): the last one posts the end semaphore.
        w.working = false;
        if (--not_finished_ == 0 && vm_) ph.futex_wake = {vm_};
    } else if (exiting) {
        if (w.idle) idle_.erase(std::find(idle_.begin(), idle_.end(), id));
        return false;
    }
    if (!w.idle) {
        w.idle = true;
        idle_.push_back(id);
        last_wait_ = std::max(last_wait_, now);
    }
    ph.futex_wait = !exiting;
    return true;
}

}  // namespace numasim
