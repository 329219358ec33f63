// Deferred ticks (engine/engine.h): a settled CPU is left alone while it stays settled, and what
// it holds back is played later in the order the events would have played it.
//
// Settled means: one task, alone on its runqueue and running, with no kernel, stall or blocked
// time owed, whose PELT averages came out of the last tick's update bit for bit unchanged, whose
// rate note still stands (no solve, sharing or placement change since it was taken) and whose
// streams touch only regions where nothing can fault. Advancing such a CPU is then one plain
// user step per event at the noted rate, and its tick changes only the PELT update's time, the
// EEVDF deadline and min_vruntime (SettledTicks) as long as no scan period falls due
// and no idle CPU is to be kicked. Its periodic balancing reads nothing it holds back, so it
// runs in place when due. Each event checks what others may change without looking (the rate
// note, QuietStamp, the deadlines, the NO_HZ state) at the place where the CPU would have been
// advanced or ticked; the first check that fails plays the held-back steps and the CPU goes on
// as usual. Whatever changes the CPU's runqueue or charges its task a debt (the scheduler, TLB
// shootdowns, migration waits, fault-lock waits) calls System::catch_up_cpu first; catch_up()
// checks that nothing did so behind its back.

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <type_traits>

#include "engine/account_exec.h"
#include "engine/engine.h"
#include "engine/sweep_move.h"
#include "engine/task_traffic.h"
#include "kernel/latency.h"
#include "kernel/system.h"
#include "mm/vma.h"
#include "mm/vmscan.h"
#include "sched/fair.h"
#include "sched/nohz.h"
#include "sched/settled_ticks.h"

namespace numasim {

namespace {

// Events logged before the log is trimmed to the oldest one a deferred CPU still holds back.
constexpr size_t kEventLogTrim = size_t{1} << 14;

}  // namespace

void Engine::log_event(Nanos t, bool tick) {
    ++event_no_;
    if (nr_deferred_ == 0) {
        event_time_.clear();
        event_tick_.clear();
        event_base_ = event_no_;
    } else if (event_time_.size() >= kEventLogTrim) {
        uint64_t oldest = event_no_;
        for (const Deferred& d : deferred_)
            if (d.task) oldest = std::min(oldest, d.first);
        const auto drop = static_cast<std::ptrdiff_t>(oldest - event_base_);
        event_time_.erase(event_time_.begin(), event_time_.begin() + drop);
        event_tick_.erase(event_tick_.begin(), event_tick_.begin() + drop);
        event_base_ = oldest;
    }
    event_time_.push_back(t);
    event_tick_.push_back(tick ? 1 : 0);
}

void Engine::try_deferring(int cpu) {
    Rq& rq = sys_.rqs[static_cast<size_t>(cpu)];
    Task* p = rq.curr;
    if (!p || p->kthread() || rq.nohz_flags || rq.clock != sys_.now || rq.kthread_debt ||
        p->kernel_debt || p->stall_debt || p->blocked_debt || p->numa_work_pending)
        return;
    const size_t i = static_cast<size_t>(p->index);
    if (i >= runs_.size() || !runs_[i]) return;  // not advanced since it was picked
    const TaskRun& run = *runs_[i];
    // A walk cut at a costly fault goes on with faults: its CPU is not settled.
    if (!run.has_phase || run.walk.pending || !sys_.cost.note_stands(run.rate_note, cpu)) return;
    for (const AccessStream& s : run.phase.streams)
        if (!stream_quiet(s)) return;
    // Worth it only if at least the next tick can be held back.
    const Nanos tick_until = settled_tick_until(sys_, cpu);
    const Nanos last = last_advance(cpu);
    if (tick_until <= sys_.now + TICK_NSEC || last < sys_.now + TICK_NSEC) return;

    Deferred& d = deferred_[static_cast<size_t>(cpu)];
    d.task = p;
    d.first = event_no_ + 1;
    d.through = d.ticks_through = event_no_;
    d.clock0 = rq.clock;
    d.last = last;
    d.tick_until = tick_until;
    d.next_balance = rq.next_balance;
    d.scan_deadline = task_tick_numa_deadline(sys_, *p);
    d.quiet_epoch = QuietStamp::epoch;
    d.nohz_kicks = sys_.knobs.nohz && !sys_.sched.domains[static_cast<size_t>(cpu)].empty();
    d.note = run.rate_note;
    // What the cost model is told of it at each tick it holds back (Engine::tick skips it).
    running_[static_cast<size_t>(cpu)] = CpuRunning{p->touches, p->index, 1.0, run.phase_seq};
    rq.ticks_deferred = true;
    ++nr_deferred_;
}

Nanos Engine::last_advance(int cpu) const {
    // The last time its phase is sure to go on to: before its CPU time runs out, and before
    // its bytes do by a margin far above the rounding of their step-by-step sum.
    const Rq& rq = sys_.rqs[static_cast<size_t>(cpu)];
    const TaskRun& run = *runs_[static_cast<size_t>(rq.curr->index)];
    const Phase& ph = run.phase;
    double last = static_cast<double>(std::numeric_limits<Nanos>::max() / 2);
    if (ph.cpu_time > 0) last = static_cast<double>(ph.cpu_time - run.phase_cpu - 1);
    if (ph.work_bytes > 0)
        last = std::min(
            last,
            (ph.work_bytes - run.phase_bytes - 1) * run.rate_note.ns_per_byte / (1 + 1e-9) - 1);
    return last < 0 ? rq.clock - 1 : rq.clock + static_cast<Nanos>(last);
}

bool Engine::advance_settled(int cpu, Nanos t) {
    // Its task, runqueue and debts change only through System::catch_up_cpu, which ends the
    // deferring first; what is left to check is what others may change without looking.
    Deferred& d = deferred_[static_cast<size_t>(cpu)];
    if (t > d.last || !sys_.cost.note_stands(d.note, cpu)) return false;
    if (QuietStamp::epoch != d.quiet_epoch) {
        for (const AccessStream& s : runs_[static_cast<size_t>(d.task->index)]->phase.streams)
            if (!stream_quiet(s)) return false;
        d.quiet_epoch = QuietStamp::epoch;
    }
    return true;
}

bool Engine::tick_settled(int cpu) const {
    const Deferred& d = deferred_[static_cast<size_t>(cpu)];
    return sys_.now < d.tick_until &&
           (!d.nohz_kicks || sys_.nohz.nr_cpus == 0 || nohz_kick_flags(sys_, cpu) == 0);
}

void Engine::catch_up(int cpu) {
    Deferred& d = deferred_[static_cast<size_t>(cpu)];
    if (!d.task) return;
    const Deferred held = d;
    d.task = nullptr;
    Rq& rq = sys_.rqs[static_cast<size_t>(cpu)];
    rq.ticks_deferred = false;
    --nr_deferred_;
    Task& p = *held.task;
    TaskRun& run = *runs_[static_cast<size_t>(p.index)];
    // What the checks take on trust: nothing charged it a debt, took its task, moved its
    // balance or scan deadlines without catching it up first, and no region turned where
    // touching faults without moving QuietStamp.
    bool quiet = true;
    for (const AccessStream& s : run.phase.streams)
        quiet = quiet && stream_quiet(s);
    if (rq.kthread_debt || p.kernel_debt || p.stall_debt || p.blocked_debt || rq.curr != &p ||
        !rq.queued.empty() || p.state != TaskState::Running ||
        rq.next_balance != held.next_balance ||
        task_tick_numa_deadline(sys_, p) != held.scan_deadline ||
        (!quiet && held.quiet_epoch == QuietStamp::epoch))
        throw std::logic_error("deferred ticks: a deferred CPU changed without catching it up");
    // The held-back events played again: replay_plain() when nothing records more than the task
    // and its CPU, else step for step, in two copies: with latency accounting, and without it,
    // where the loop is the same as if there were none.
    if (!sys_.latency && !sys_.perf_mem_recording && !sys_.note_region_accesses()) {
        replay_plain(held, p, run, cpu);
        return;
    }
    SettledTicks ticks(sys_, rq);
    const auto play = [&](auto latency) {
        // Latency accounting's remote-access stall, looked up once for the whole catch-up: the
        // steps add to it and the ticks record it (SettledTicks leaves that to us).
        // Its rate is the held note's, whose remote part the task's run keeps (the task is not
        // advanced, nor its note taken again, before it is caught up).
        LatencyRecorder::RemoteStall* stall = nullptr;
        if constexpr (latency) stall = &sys_.latency->remote_of(p);
        for (uint64_t k = held.first; k <= held.through; ++k) {
            const size_t i = static_cast<size_t>(k - event_base_);
            const Nanos t = event_time_[i];
            // advance_cpu() at this event: user steps at the noted rate, and the sweeps' cursors
            // (the regions were quiet, so touch_streams() did nothing else).
            while (rq.clock < t) {
                bool ends = false;
                const double bytes = user_step(p, run, cpu, t - rq.clock, held.note.ns_per_byte,
                                               held.note.miss_per_byte, ends);
                if constexpr (latency) stall->pending_ns += bytes * run.remote_per_byte;
                if (ends)
                    throw std::logic_error("deferred ticks: a phase ended in a held-back step");
                if (sys_.perf_mem_recording) note_task_traffic(p, run.phase.streams, bytes);
                for (size_t j = 0; j < run.phase.streams.size(); ++j) {
                    const AccessStream& s = run.phase.streams[j];
                    if (sys_.note_region_accesses()) note_stream_accesses(s, bytes);
                    uint64_t start = 0;
                    if (s.pattern == Pattern::Sweep)
                        sweep_cursor(run, j, s, bytes * s.share, start);
                }
            }
            if (!event_tick_[i] || k > held.ticks_through) continue;
            // tick() at this event: the settled scheduler_tick() and what the cost model was
            // told.
            ticks.tick(p.vruntime, t);
            if constexpr (latency) sys_.latency->tick(p, *stall);
            run.utime_seen = p.utime;
            run.stime_seen = p.stime;
        }
    };
    if (sys_.latency)
        play(std::true_type{});
    else
        play(std::false_type{});
    ticks.store();
}

void Engine::replay_plain(const Deferred& held, Task& p, TaskRun& run, int cpu) {
    Rq& rq = sys_.rqs[static_cast<size_t>(cpu)];
    const Phase& ph = run.phase;
    const double work_bytes = ph.work_bytes;
    const Nanos cpu_time = ph.cpu_time;
    const Nanos phase_cpu = run.phase_cpu;
    const double npb = held.note.ns_per_byte;
    const double miss_per_byte = held.note.miss_per_byte;
    SettledTicks settled(sys_, rq);
    held_sweeps_.clear();
    for (size_t j = 0; j < ph.streams.size(); ++j) {
        const AccessStream& s = ph.streams[j];
        if (s.pattern != Pattern::Sweep) continue;
        const PageGeometry& g = s.region->vma->pages;
        held_sweeps_.push_back(HeldSweep{.stream = j,
                                         .share = s.share,
                                         .inv_size = g.inverse_size(),
                                         .size = static_cast<double>(g.size()),
                                         .count = s.region->count,
                                         .carry = run.sweep_carry[j],
                                         .pos = run.sweep_pos[j]});
    }
    // The sums user_step() adds to, in hand; each is added to in the order it would be.
    Nanos clock = rq.clock;
    Nanos ran = 0;  // CPU time of the steps: utime, sum_exec_runtime, busy_time, phase_cpu
    Nanos ran_at_tick = -1;
    double vruntime = p.vruntime;
    double phase_bytes = run.phase_bytes;
    double total_bytes = p.total_bytes;
    double total_ops = p.total_ops;
    double carry = llc_miss_carry_[static_cast<size_t>(cpu)];
    uint64_t misses = 0;
    // A step of `avail` ns: its bytes and CPU time depend on nothing else while the note stands,
    // and most held events are ticks a TICK_NSEC apart, so they are derived again only when the
    // interval changes (user_step()'s arithmetic).
    Nanos avail_seen = 0;
    double bytes = 0, ops = 0, misses_f = 0, vdelta = 0;
    Nanos used = 0;
    const Nanos* const times = event_time_.data();
    const uint8_t* const ticks = event_tick_.data();
    for (uint64_t k = held.first; k <= held.through; ++k) {
        const size_t i = static_cast<size_t>(k - event_base_);
        const Nanos t = times[i];
        while (clock < t) {
            const Nanos avail = t - clock;
            if (avail != avail_seen) {
                avail_seen = avail;
                bytes = static_cast<double>(avail) / npb;
                used = std::clamp<Nanos>(static_cast<Nanos>(std::ceil(bytes * npb)), 1, avail);
                ops = bytes * ph.ops_per_byte;
                misses_f = bytes * miss_per_byte;
                vdelta = exec_vruntime(p, used);
                for (HeldSweep& h : held_sweeps_)
                    h.sb = bytes * h.share;
            }
            // user_step() would end the phase here: the checks that deferred it were wrong.
            if ((work_bytes > 0 && phase_bytes + bytes >= work_bytes) ||
                (cpu_time > 0 && phase_cpu + ran + used >= cpu_time))
                throw std::logic_error("deferred ticks: a phase ended in a held-back step");
            clock += used;
            ran += used;
            vruntime += vdelta;
            phase_bytes += bytes;
            total_bytes += bytes;
            total_ops += ops;
            carry += misses_f;
            const auto whole = static_cast<int64_t>(carry);
            misses += static_cast<uint64_t>(whole);
            carry -= static_cast<double>(whole);
            for (HeldSweep& h : held_sweeps_) {
                uint64_t start = 0;
                sweep_move(h.carry, h.pos, h.sb, h.inv_size, h.size, h.count, start);
            }
        }
        if (!ticks[i] || k > held.ticks_through) continue;
        // tick() at this event: the settled scheduler_tick().
        settled.tick(vruntime, t);
        ran_at_tick = ran;
    }
    settled.store();
    // What user_step() and the sweeps' cursors would have left.
    if (ran > 0) {
        p.utime += ran;
        p.sum_exec_runtime += ran;
        rq.busy_time += ran;
        p.exec_start = clock;
        run.phase_cpu += ran;
    }
    rq.clock = clock;
    p.vruntime = vruntime;
    run.phase_bytes = phase_bytes;
    p.total_bytes = total_bytes;
    p.total_ops = total_ops;
    llc_miss_carry_[static_cast<size_t>(cpu)] = carry;
    sys_.counters.llc_misses += misses;
    for (const HeldSweep& h : held_sweeps_) {
        run.sweep_carry[h.stream] = h.carry;
        run.sweep_pos[h.stream] = h.pos;
    }
    // What tick() told the cost model at the last tick.
    if (ran_at_tick >= 0) {
        run.utime_seen = p.utime - (ran - ran_at_tick);
        run.stime_seen = p.stime;
    }
}

void Engine::catch_up_all() {
    if (nr_deferred_ == 0) return;
    for (int c = 0; c < sys_.nr_cpus(); ++c)
        catch_up(c);
}

}  // namespace numasim
