#include "engine/engine.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include <fmt/format.h>

#include "engine/account_exec.h"
#include "engine/process.h"
#include "engine/run_of.h"
#include "kernel/invariants.h"
#include "kernel/latency.h"
#include "kernel/system.h"
#include "mm/fault.h"
#include "mm/huge_clear.h"
#include "mm/khugepaged.h"
#include "mm/page.h"
#include "mm/pghot.h"
#include "mm/vmscan.h"
#include "numab/numab.h"
#include "sched/fair.h"
#include "sched/load_balance.h"
#include "sched/nohz.h"

namespace numasim {

Engine::Engine(System& sys)
    : sys_(sys),
      deferred_(static_cast<size_t>(sys.nr_cpus())),
      llc_miss_carry_(static_cast<size_t>(sys.nr_cpus()), 0.0),
      check_invariants_(check_invariants_by_default()) {
    if (const PlacementPolicy* pol = sys.placement_policy;
        pol && pol->has(PlacementPolicy::kNumaScan))
        scan_policy_ = pol;
    sys_.events.push(TICK_NSEC, EV_TICK);
}

std::optional<std::string> Engine::find_invariant_violation() const {
    if (auto f = numasim::find_invariant_violation(sys_)) return f;
    // The shortcuts of a settled machine (cost/cost_model.h): the solve an update kept, and each
    // running task's rate note, against what solving and deriving again gives now.
    if (auto f = sys_.cost.find_stale_solve(sys_.now)) return f;
    for (const Rq& rq : sys_.rqs) {
        const Task* t = rq.curr;
        const size_t i = t ? static_cast<size_t>(t->index) : 0;
        if (!t || t->kthread() || !t->touches || i >= runs_.size() || !runs_[i]) continue;
        if (auto f = sys_.cost.find_stale_note(runs_[i]->rate_note, *t->touches, rq.cpu))
            return fmt::format("task {} ({}): {}", t->pid, t->comm, *f);
    }
    return std::nullopt;
}

void Engine::check_invariants(const std::string& when) const {
    if (auto f = find_invariant_violation())
        throw InvariantViolation(
            fmt::format("invariant violated {} (t = {} ns): {}", when, sys_.now, *f));
}

TaskRun& Engine::new_run(const Task& p) {
    const size_t i = static_cast<size_t>(p.index);
    if (i >= runs_.size()) runs_.resize(sys_.tasks.size());
    runs_[i] = std::make_unique<TaskRun>();
    return *runs_[i];
}

const Phase* Engine::phase(const Task& p) const {
    const size_t i = static_cast<size_t>(p.index);
    if (i >= runs_.size() || !runs_[i] || !runs_[i]->has_phase) return nullptr;
    return &runs_[i]->phase;
}

int Engine::live_tasks() const {
    return static_cast<int>(sys_.tasks.size() - sys_.nr_exited_tasks);
}

void Engine::add_sampler(Sampler& s) {
    samplers_.push_back({&s, s.interval(), -1});
}

void Engine::run_samplers(bool last) {
    for (SamplerSlot& slot : samplers_) {
        if (last ? slot.last == sys_.now : sys_.now < slot.next) continue;
        catch_up_all();  // a sample reads every CPU
        slot.sampler->sample(sys_);
        slot.last = sys_.now;
        while (slot.next <= sys_.now)
            slot.next += slot.sampler->interval();
    }
}

Nanos Engine::run(Nanos end) {
    // The group-sums cache lives for this run only: between runs anyone may change runqueues.
    struct CacheScope {
        SgStatsCache& cache;
        ~CacheScope() { cache.disable(); }
    } cache_scope{sys_.sg_cache};
    if (sg_stats_cache_) sys_.sg_cache.enable(sys_.sched);
    // What changes a runqueue plays the ticks its CPU holds back first; between runs none is.
    struct DeferScope {
        System& sys;
        ~DeferScope() { sys.play_deferred_ticks = nullptr; }
    } defer_scope{sys_};
    sys_.play_deferred_ticks = [this](int cpu) { catch_up(cpu); };
    sys_.events.push(end, EV_STOP);
    // CPUs with nothing to run are in their idle loop from the start: with NO_HZ their ticks
    // stop at once (an idle CPU calls schedule() only when work arrives).
    for (int c = 0; c < sys_.nr_cpus(); ++c)
        if (idle_cpu(sys_, c)) nohz_balance_enter_idle(sys_, c);
    Nanos last_exit = 0;
    while (!sys_.events.empty()) {
        // Every CPU has been simulated up to the previous event: nothing can fire earlier now.
        sys_.tracer.flush();
        const Event e = sys_.events.pop();
        prev_event_ = sys_.now;
        sys_.now = e.when;
        log_event(e.when, e.kind == EV_TICK);
        // Start the CPU walk at a random CPU each time so that no CPU always sees shared pages
        // first (on real hardware the order in which CPUs touch a page is a race).
        const int n = sys_.nr_cpus();
        int c = static_cast<int>(sys_.rng_sched.below(static_cast<uint64_t>(n)));
        for (int i = 0; i < n; ++i, c = c + 1 == n ? 0 : c + 1) {
            if (deferred_[static_cast<size_t>(c)].task) {
                if (advance_settled(c, e.when)) {
                    deferred_[static_cast<size_t>(c)].through = event_no_;
                    continue;
                }
                catch_up(c);
            }
            advance_cpu(c, e.when);
        }
        if (e.kind == EV_STOP) break;
        if (live_tasks() == 0) {
            for (const auto& t : sys_.tasks)
                last_exit = std::max(last_exit, t->exit_time);
            sys_.now = last_exit;
            break;
        }
        if (e.kind == EV_TICK) {
            tick();
            sys_.events.push(e.when + TICK_NSEC, EV_TICK);
            if (!samplers_.empty()) run_samplers(false);
        } else if (e.kind == EV_WAKEUP) {
            Task& p = *sys_.tasks[e.a];
            if (p.state == TaskState::Sleeping && static_cast<int64_t>(p.wake_generation) == e.b)
                try_to_wake_up(sys_, p, std::exchange(run_of(p).wake_from, Waker{}));
        } else if (e.kind == EV_KSWAPD_WAKEUP) {
            kswapd_wake_event(sys_, static_cast<int>(e.a), e.b);
        }
        keep_exact_ends();
    }
    catch_up_all();
    sys_.tracer.flush();
    run_samplers(true);
    sys_.tracer.flush();
    if (check_invariants_) check_invariants("at the end of the run");
    return sys_.now;
}

void Engine::tick() {
    ++ticks_;
    // khugepaged's pass, if one is due, moves every CPU's LRU add batch (mm/khugepaged.h).
    khugepaged_tick(sys_);
    // pghot's kmigrated passes, if some are due (mm/pghot.h): they move pages that any CPU may
    // be touching, so every CPU plays what it holds back first.
    if (kmigrated_due(sys_)) {
        catch_up_all();
        kmigrated_tick(sys_);
    }
    // A user-space daemon's pass, if one is due (PlacementPolicy::kAgent): it reads the whole
    // machine, so every CPU plays what it holds back first.
    if (const PlacementPolicy* pol = sys_.placement_policy;
        pol && pol->has(PlacementPolicy::kAgent) && sys_.now >= sys_.agent_wake) {
        catch_up_all();
        sys_.agent_wake = sys_.now + std::max<Nanos>(1, pol->agent(sys_));
    }
    const int n = sys_.nr_cpus();
    for (int c = 0; c < n; ++c) {
        // A deferred CPU is busy, so its tick runs (or is held back).
        if (Deferred& d = deferred_[static_cast<size_t>(c)]; d.task && tick_settled(c)) {
            d.ticks_through = event_no_;
            ++deferred_cpu_ticks_;
            // trigger_load_balance(): its balancing reads no held-back state, so it runs here
            // and now; whatever it moves onto or off the CPU catches it up first.
            if (sys_.now >= d.next_balance) {
                rebalance_domains(sys_, c, CpuIdleType::NotIdle);
                if (d.task) d.next_balance = sys_.rqs[c].next_balance;
            }
            if (d.task) continue;  // its task has no scan work pending: none fell due
        } else {
            if (d.task) {
                catch_up(c);
            } else if (tick_nohz_tick_stopped_cpu(sys_, c)) {
                continue;  // NO_HZ: an idle CPU whose tick is stopped gets no tick at all
            }
            scheduler_tick(sys_, c);
        }
        Rq& rq = sys_.rqs[c];
        if (rq.curr && rq.curr->numa_work_pending) {
            // task_numa_work runs from task_work on the way back to user mode.
            task_work_run(sys_, *rq.curr);
        }
    }
    // The idle load balancer kicked by a busy CPU's tick takes its IPI right after the tick.
    for (int c = 0; c < n; ++c)
        if (sys_.rqs[c].nohz_flags) nohz_csd_func(sys_, c);
    // An idle CPU's idle loop does not call schedule() at a tick: it switches only when asked to
    // (a wakeup or a pull set need_resched) or when work waits on its queue. Its balancing is
    // the periodic idle balance of its own tick, or the idle load balancer's with NO_HZ.
    for (int c = 0; c < n; ++c) {
        const Rq& rq = sys_.rqs[c];
        if (rq.need_resched || (!rq.curr && !rq.queued.empty())) schedule(sys_, c);
    }
    // The faults of the interval that ended met on their locks (mm/fault_locks.h).
    sys_.fault_locks.settle(sys_);
    // The cost model sees what each CPU's current task touches, how much of its last tick it
    // spent in user mode, and an identity for it; nothing else of it.
    running_.resize(static_cast<size_t>(n));
    running_id_.resize(static_cast<size_t>(n));
    bool same_running = true;
    running_changed_.clear();
    for (int c = 0; c < n; ++c) {
        // A deferred CPU's entry was set when its deferring started: a whole tick of user work
        // of the same task, as a plain advance would have counted it, under the same identity.
        if (deferred_[static_cast<size_t>(c)].task) continue;
        const Task* t = sys_.rqs[c].curr;
        RunningId id;
        running_[c] = CpuRunning{};
        // kswapd's memory traffic is in its batches' price: to the cost model its CPU is idle.
        if (t && !t->kthread()) {
            TaskRun& r = run_of(*t);
            const double du = static_cast<double>(t->utime - r.utime_seen);
            const double ds = static_cast<double>(t->stime - r.stime_seen);
            r.utime_seen = t->utime;
            r.stime_seen = t->stime;
            running_[c] =
                CpuRunning{t->touches, t->index, du + ds > 0 ? du / (du + ds) : 1.0, r.phase_seq};
            id = RunningId{t->index, t->touches, r.phase_seq};
        }
        if (!(running_id_[c] == id)) {
            same_running = false;
            running_id_[c] = id;
            running_changed_.push_back(c);
        }
    }
    const uint64_t kept_before = sys_.cost.solves_kept();
    sys_.cost.update(running_, sys_.now, same_running, running_changed_);
    // After the tick's scan work and the faults of the interval before it.
    if (check_invariants_ && cadence_.due(sys_, ticks_)) {
        catch_up_all();
        check_invariants("after tick " + std::to_string(ticks_));
    }
    // Deferring pays only on a machine that has settled: the solve kept and no page placed
    // anywhere since the last tick (otherwise the rate notes it needs fall at once).
    const bool settled =
        sys_.cost.solves_kept() != kept_before && PlacementStamp::epoch == epoch_at_last_tick_;
    epoch_at_last_tick_ = PlacementStamp::epoch;
    // A policy that watches every step of user work (kNumaScan) needs the steps a tick long.
    if (deferred_ticks_ && settled && !scan_policy_)
        for (int c = 0; c < n; ++c)
            if (!deferred_[static_cast<size_t>(c)].task) try_deferring(c);
}

void Engine::apply_phase_setup(Task& p) {
    TaskRun& run = run_of(p);
    const Phase& ph = run.phase;
    if (ph.set_mempolicy) {
        p.mempolicy = *ph.set_mempolicy;
        p.has_mempolicy = ph.set_mempolicy->mode != MpolMode::Default;
    }
    if (ph.set_affinity || ph.clear_affinity) {
        if (ph.clear_affinity)
            p.allow_all(sys_.nr_cpus());
        else
            p.allow_only(*ph.set_affinity);
        if (!p.allowed(p.cpu))
            move_task(sys_, p, find_idlest_cpu(sys_, p, p.cpu, SdFlag::kAnyDomain));
    }
    if (ph.exec) {
        // sched_exec(): an exec is the cheapest moment to move, nothing is cached yet.
        const int dst = find_idlest_cpu(sys_, p, p.cpu, SdFlag::kBalanceExec);
        if (dst != p.cpu) move_task(sys_, p, dst);
    }
    if (ph.exact_end) exact_ends_ = true;
    if (ph.futex_wait) run.futex_wait_from = sys_.rqs[p.cpu].clock;
    for (Task* q : ph.futex_wake)
        futex_wake(p, *q);
    run.sweep_pos.assign(ph.streams.size(), 0);
    run.sweep_carry.assign(ph.streams.size(), 0.0);
    for (size_t i = 0; i < ph.streams.size(); ++i)
        if (ph.streams[i].start_at_thread_offset)
            run.sweep_pos[i] =
                ph.streams[i].start_page % std::max<uint64_t>(1, ph.streams[i].region->count);
}

bool Engine::start_next_phase(Task& p) {
    const int cpu = p.cpu;
    TaskRun& run = run_of(p);
    p.touches = nullptr;
    run.phase = Phase{};
    if (!p.program || !p.program->next_phase(p, run.phase)) {
        do_exit(sys_, p);
        wake_joiners(p);
        schedule(sys_, cpu);
        return false;
    }
    run.has_phase = true;
    run.access = run.phase.access();
    run.rate_note = {};
    ++run.phase_seq;
    p.touches = &run.access;
    run.phase_bytes = 0;
    run.phase_cpu = 0;
    apply_phase_setup(p);
    return sys_.rqs[cpu].curr == &p;
}

void Engine::wake_joiners(Task& p) {
    // The exiting threads' CLONE_CHILD_CLEARTID futex wakes: a thread sleeping in
    // pthread_join() (a finished `join` phase) wakes once it is the last of its thread group,
    // woken by the exiting thread from its CPU.
    for (Task* q : p.mm->tasks) {
        if (q->tgid != p.tgid || q->state != TaskState::Sleeping) continue;
        TaskRun& r = run_of(*q);
        if (!r.phase.join || r.has_phase || other_threads_live(*q)) continue;
        r.wake_from = {.cpu = p.cpu, .task = &p};
        sys_.events.push(sys_.now, EV_WAKEUP, q->index, static_cast<int64_t>(q->wake_generation));
    }
}

void Engine::keep_exact_ends() {
    if (!exact_ends_) return;
    const int n = sys_.nr_cpus();
    exact_end_at_.resize(static_cast<size_t>(n), -1);
    for (int c = 0; c < n; ++c) {
        const Rq& rq = sys_.rqs[c];
        const Task* p = rq.curr;
        if (!p || p->kthread()) continue;
        TaskRun& run = run_of(*p);
        const Phase& ph = run.phase;
        if (!ph.exact_end) continue;
        // The debts are paid first, then the rest of the phase at its current rate.
        Nanos at = rq.clock + rq.kthread_debt + p->kernel_debt + p->stall_debt + p->blocked_debt;
        if (run.has_phase) {
            Nanos left = -1;
            if (ph.cpu_time > 0) left = ph.cpu_time - run.phase_cpu;
            if (ph.work_bytes > 0) {
                const double npb = sys_.cost.ns_per_byte(run.access, c);
                const auto b =
                    static_cast<Nanos>(std::ceil((ph.work_bytes - run.phase_bytes) * npb));
                left = left < 0 ? b : std::min(left, b);
            }
            if (left < 0) continue;  // no end to foresee
            at += std::max<Nanos>(left, 1);
        }
        // Just past the end, so that the next phase starts within the same advance.
        ++at;
        Nanos& queued = exact_end_at_[static_cast<size_t>(c)];
        if (queued > sys_.now && queued <= at) continue;  // an earlier one is queued
        queued = at;
        sys_.events.push(at, EV_PHASE_END, c);
    }
}

void Engine::futex_wake(Task& waker, Task& q) {
    if (q.state == TaskState::Dead) return;
    TaskRun& r = run_of(q);
    const Nanos at = sys_.rqs[waker.cpu].clock;
    if (!r.futex_sleeping) {
        r.futex_posted_at = std::max(r.futex_posted_at, at);
        return;
    }
    // A post from before the waiter's futex_wait phase began finds the futex still running:
    // the phase's start blocked it afterwards, so the post is lost (the CPUs are advanced one
    // after another, so the waiter may already sleep when this earlier post is handled).
    if (at < r.futex_wait_from) return;
    // The wakeup happens at the waker's time; the event loop delivers it in time order.
    r.futex_sleeping = false;
    r.wake_from = {.cpu = waker.cpu, .task = &waker};
    sys_.events.push(at, EV_WAKEUP, q.index, static_cast<int64_t>(q.wake_generation));
}

void Engine::finish_phase(Task& p) {
    TaskRun& run = run_of(p);
    run.has_phase = false;
    p.touches = nullptr;
    const int cpu = p.cpu;
    if (run.phase.join) {
        // pthread_join(): sleep until the other threads have exited; the last one's exit wakes
        // us (wake_joiners).
        if (!other_threads_live(p)) return;
        dequeue_sleeping_task(sys_, p);
        ++p.wake_generation;
        schedule(sys_, cpu);
        return;
    }
    if (run.phase.futex_wait) {
        if (run.futex_posted_at >= run.futex_wait_from) return;  // fwait(): posted, no sleep
        dequeue_sleeping_task(sys_, p);
        ++p.wake_generation;
        run.futex_sleeping = true;
        schedule(sys_, cpu);
        return;
    }
    if (run.phase.sleep_after <= 0) return;
    dequeue_sleeping_task(sys_, p);
    ++p.wake_generation;
    run.wake_from = {};
    sys_.events.push(sys_.rqs[cpu].clock + run.phase.sleep_after, EV_WAKEUP, p.index,
                     static_cast<int64_t>(p.wake_generation));
    schedule(sys_, cpu);
}

namespace {
// Steps without simulated time that one CPU may take at one instant: each starts a phase or
// moves or ends a task, so a million is far more than the tasks any machine could hold, while a
// program that never consumes time reaches it in well under a second.
constexpr int kMaxStepsWithoutTime = 1 << 20;
}  // namespace

void Engine::advance_cpu(int cpu, Nanos t) {
    Rq& rq = sys_.rqs[cpu];
    Nanos last_clock = rq.clock;
    int still = 0;
    while (rq.clock < t) {
        if (rq.clock != last_clock) {
            last_clock = rq.clock;
            still = 0;
        } else if (++still > kMaxStepsWithoutTime) {
            throw SimulationStalled(fmt::format(
                "simulated time stopped at {} ns on CPU {}: task {} ({}) takes step after step "
                "without using any time",
                rq.clock, cpu, rq.curr ? rq.curr->pid : -1, rq.curr ? rq.curr->comm : "idle"));
        }
        if (rq.kthread_debt > 0) {
            // A kernel thread runs first; the task here (if any) waits, its clock held.
            const Nanos k = std::min(rq.kthread_debt, t - rq.clock);
            rq.kthread_debt -= k;
            rq.clock += k;
            if (rq.curr) rq.curr->exec_start = rq.clock;
            continue;
        }
        Task* p = rq.curr;
        if (!p) {
            rq.clock = t;
            break;
        }
        const Nanos avail = t - rq.clock;
        if (p->kernel_debt > 0 || p->stall_debt > 0) {
            const bool kernel = p->kernel_debt > 0;
            Nanos& debt = kernel ? p->kernel_debt : p->stall_debt;
            const Nanos k = std::min(debt, avail);
            (kernel ? p->stime : p->utime) += k;
            // kswapd's system time is also reported by node.
            if (p->kthread()) [[unlikely]]
                sys_.counters.kswapd_stime_ns[static_cast<size_t>(p->kswapd_nid)] +=
                    static_cast<uint64_t>(k);
            debt -= k;
            rq.clock += k;
            account_exec(rq, *p, k, rq.clock);
            continue;
        }
        if (p->blocked_debt > 0) {
            // Asleep on a migration entry: time passes without CPU time. The task keeps the CPU
            // meanwhile (nothing else is picked for so short a sleep in the model).
            const Nanos k = std::min(p->blocked_debt, avail);
            p->blocked_debt -= k;
            rq.clock += k;
            p->exec_start = rq.clock;
            continue;
        }
        if (p->kthread()) [[unlikely]] {
            // kswapd's next batch (or its sleep): kernel time to pay, or the CPU left.
            kswapd_run(sys_, *p);
            continue;
        }
        TaskRun& run = run_of(*p);
        if (run.walk.pending) {
            // A walk cut at a costly hinting fault goes on now that its kernel time has passed.
            // Its user time was counted with its step, so its touches come at this clock.
            run.walk.pending = false;
            if (!run.has_phase) continue;
            step_ = StepClock{.limit = avail, .start = rq.clock};
            const WalkEnd e = touch_streams(*p, run);
            if (e == WalkEnd::Cut) {
                run.walk.pending = true;
                ++step_cuts_;
            } else if (run.walk.ends && run.has_phase) {
                finish_phase(*p);
            }
            continue;
        }
        if (!run.has_phase) {
            start_next_phase(*p);
            continue;
        }
        double miss_per_byte = 0;
        // The remote-access stall is derived only for latency accounting (docs/latency.md).
        const double npb =
            sys_.latency ? sys_.cost.ns_per_byte(run.access, cpu, &miss_per_byte, run.rate_note,
                                                 run.remote_per_byte)
                         : sys_.cost.ns_per_byte(run.access, cpu, &miss_per_byte, run.rate_note);
        bool ends = false;
        const Nanos start = rq.clock;
        const double bytes = user_step(*p, run, cpu, avail, npb, miss_per_byte, ends);
        if (sys_.latency) [[unlikely]]
            sys_.latency->remote_stall(*p, bytes * run.remote_per_byte);
        run.walk = StepWalk{.ends = ends, .bytes = bytes};
        step_ = StepClock{.limit = avail, .used = rq.clock - start, .start = start};
        const WalkEnd walked = touch_streams(*p, run);
        // A scan policy samples the whole step's accesses (it takes no hinting faults, so its
        // walks are never cut).
        if (scan_policy_) [[unlikely]]
            policy_scan_step(*p, run, cpu, bytes, bytes * miss_per_byte);
        if (walked == WalkEnd::Cut) {
            // The phase, if the step ended it, finishes once the rest of the walk is done.
            run.walk.pending = true;
            ++step_cuts_;
            continue;
        }
        if (ends && run.has_phase) finish_phase(*p);
    }
}

double Engine::user_step(Task& p, TaskRun& run, int cpu, Nanos avail, double npb,
                         double miss_per_byte, bool& ends) {
    Rq& rq = sys_.rqs[cpu];
    const Phase& ph = run.phase;
    double bytes = static_cast<double>(avail) / npb;
    ends = false;
    if (ph.work_bytes > 0 && run.phase_bytes + bytes >= ph.work_bytes) {
        bytes = ph.work_bytes - run.phase_bytes;
        ends = true;
    }
    Nanos used = std::clamp<Nanos>(static_cast<Nanos>(std::ceil(bytes * npb)), 1, avail);
    if (ph.cpu_time > 0 && run.phase_cpu + used >= ph.cpu_time) {
        used = std::max<Nanos>(1, ph.cpu_time - run.phase_cpu);
        used = std::min(used, avail);
        bytes = static_cast<double>(used) / npb;
        ends = true;
    }
    p.utime += used;
    rq.clock += used;
    account_exec(rq, p, used, rq.clock);
    run.phase_bytes += bytes;
    run.phase_cpu += used;
    p.total_bytes += bytes;
    p.total_ops += bytes * ph.ops_per_byte;
    // The carry is never negative, so truncation is the floor (and shorter than std::floor's
    // emulation without SSE4.1, on the chain every step waits for).
    double& carry = llc_miss_carry_[static_cast<size_t>(cpu)];
    carry += bytes * miss_per_byte;
    const auto whole = static_cast<int64_t>(carry);
    sys_.counters.llc_misses += static_cast<uint64_t>(whole);
    carry -= static_cast<double>(whole);
    return bytes;
}

void Engine::policy_scan_step(Task& p, const TaskRun& run, int cpu, double bytes,
                              double llc_misses) {
    const UserStep step{cpu, bytes, llc_misses, run.phase.streams, run.sweep_pos};
    p.kernel_debt += static_cast<Nanos>(scan_policy_->numa_scan(sys_, p, step));
}

bool Engine::handle_touch(Task& p, Vma& vma, uint64_t idx, bool write, uint64_t hi,
                          uint64_t& next) {
    const int cpu = p.cpu;
    double ns = 0;
    bool may_run = false;  // whether like pages after idx may repeat its hinting fault
    PageFrame before;      // idx's frame before that fault
    Nanos hint_ns = 0;     // what the hinting fault itself charged (latency accounting)
    bool hinting = false;  // idx took a hinting fault, whose kernel time the step's clock counts
    NumaFaultOutcome& outcome = fault_outcome_;
    const bool first_touch = !vma.present.test(idx);
    if (first_touch) {
        const uint64_t huge_before = sys_.counters[Vm::thp_fault_alloc];
        ns = handle_mm_fault(sys_, p, vma, idx, write);
        // Only a private anonymous huge page races this way (do_huge_pmd_anonymous_page); a
        // shared one goes through shmem, whose folio enters the page cache, where another
        // fault finds it.
        uint64_t first = 0;
        if (sys_.counters[Vm::thp_fault_alloc] != huge_before && !(vma.vm_flags & VM_SHARED) &&
            vma.pmd_mapped_at(idx, first))
            note_huge_clear(vma, first, p, step_.at(idx), static_cast<Nanos>(ns), prev_event_);
        step_.faults += static_cast<Nanos>(ns);
    } else if (vma.protnone.test(idx)) {
        may_run = fault_runs_ && numa_fault_run_possible(vma, idx, hi) &&
                  numa_fault_run_allowed(sys_, p, vma, idx, write);
        if (may_run) before = vma.frame(idx);
        ++sys_.counters[Vm::pgfault];
        ++p.nr_faults;
        ns = do_numa_page(sys_, p, vma, idx, write, may_run ? &outcome : nullptr);
        hint_ns = static_cast<Nanos>(ns);
        if (sys_.latency) sys_.latency->record(p, LatencyKind::HintFault, hint_ns);
        if (write && vma.present.test(idx) && !vma.protnone.test(idx))
            ns += do_wp_page(sys_, p, vma, idx);
        hinting = true;
        if (hinting_fault_observer_) [[unlikely]]
            hinting_fault_observer_(p, vma, idx);
    } else if (write) {
        ns = do_wp_page(sys_, p, vma, idx);
    }
    // do_user_addr_fault() took mmap_lock or the VMA's lock, the fault handler the PTE lock.
    if (ns > 0) sys_.fault_locks.note(sys_, p, vma, idx);
    p.kernel_debt += static_cast<Nanos>(ns);
    next = idx + 1;
    if (!(sys_.rqs[cpu].curr == &p && p.cpu == cpu && p.state == TaskState::Running)) return false;
    if (first_touch && fault_runs_ && hi > idx + 1) {
        // The absent pages after it that its first touch would treat alike (anon_fault_run).
        if (const uint64_t run = anon_fault_run(sys_, p, vma, idx, hi)) {
            const double each = repeat_anon_fault(sys_, p, vma, idx, run);
            sys_.fault_locks.note(sys_, p, vma, idx + 1, static_cast<uint32_t>(run));
            p.kernel_debt += static_cast<Nanos>(each) * static_cast<Nanos>(run);
            step_.faults += static_cast<Nanos>(each) * static_cast<Nanos>(run);
            next = idx + 1 + run;
            first_touch_run_pages_ += run;
        }
        return true;
    }
    if (!hinting) return true;
    // The step ends here if this fault's kernel time carries the touch past the interval.
    const auto each = static_cast<Nanos>(ns);
    step_.kernel += each;
    if (each > 0 && step_.past(idx, 0)) {
        step_.cut = true;
        return true;
    }
    // Scanned only after a repeatable fault, so that each page is looked at about once.
    uint64_t run = may_run && outcome.repeatable
                       ? std::min(numa_fault_run(vma, idx, hi, before), outcome.run_limit)
                       : 0;
    if (run && each > 0 && step_.past(idx + run, each * static_cast<Nanos>(run))) {
        // The run ends at its first page whose touch, after the run's kernel time before it,
        // is past the interval, as the page-by-page walk would stop there: the least m with
        // step_.past(idx + m, m * each), found by halving (the test only grows with m).
        uint64_t lo = 1, up = run;
        while (lo < up) {
            const uint64_t m = lo + (up - lo) / 2;
            if (step_.past(idx + m, each * static_cast<Nanos>(m)))
                up = m;
            else
                lo = m + 1;
        }
        run = lo;
        step_.cut = true;
    }
    if (run) {
        step_.kernel += each * static_cast<Nanos>(run);
        // The run's pages, each as the per-page path would have handled it right after idx: the
        // same decision, kernel time and lock words (numa_fault_run_allowed).
        sys_.counters[Vm::pgfault] += run;
        p.nr_faults += run;
        repeat_numa_fault(sys_, p, vma, idx, run, outcome);
        if (ns > 0) sys_.fault_locks.note(sys_, p, vma, idx + 1, static_cast<uint32_t>(run));
        p.kernel_debt += static_cast<Nanos>(ns) * static_cast<Nanos>(run);
        if (sys_.latency) sys_.latency->record(p, LatencyKind::HintFault, hint_ns, run);
        next = idx + 1 + run;
        fault_run_pages_ += run;
        if (outcome.migrated) migrated_run_pages_ += run;
    }
    return true;
}

}  // namespace numasim
