// The event loop. Every CPU is simulated lazily: its running task makes progress at the cost
// model's rate until the time of the next event, and the pages of interest its streams touched
// meanwhile (not yet present, PROT_NONE, or shared and written) go through the fault paths.
// The global tick then runs scheduler_tick() and the NUMA scan work on every CPU whose tick is
// not stopped (NO_HZ idle, sched/nohz.h), and the idle load balancer a busy tick kicked.
//
// Deferred ticks (engine/deferred_ticks.cpp): a CPU whose one task has settled (its PELT
// averages at their fixed point, no debt, nothing to fault on, no scan due, no idle CPU to
// kick, the same memory rate) is neither advanced nor ticked while it stays so; its periodic
// balancing runs in place. What it holds back is played, step for step as the events would have
// played it, when something changes it (System::catch_up_cpu), when a check at an event finds it
// no longer settled, or before anything reads the whole machine (samplers, the invariant
// checker, the end of a run).
// Outputs are the same bit for bit as without deferring.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "cost/cost_model.h"
#include "engine/invariants.h"
#include "engine/program.h"
#include "engine/sampler.h"
#include "engine/step_cut.h"
#include "numab/numab.h"
#include "sched/select_task_rq.h"
#include "sim/clock.h"

namespace numasim {

struct System;
struct Task;
struct Vma;
class PlacementPolicy;

// What the engine keeps for each task it runs: the phase its program gave it and how far it got.
struct TaskRun {
    Phase phase;
    bool has_phase = false;
    double phase_bytes = 0;                // bytes done in the current phase
    Nanos phase_cpu = 0;                   // CPU time in the current phase
    std::vector<uint64_t> sweep_pos;       // per stream: next page of a sweep (region-relative)
    std::vector<double> sweep_carry;       // per stream: bytes short of the next page
    AccessMix access;                      // what the phase touches; Task::touches points here
    Nanos utime_seen = 0, stime_seen = 0;  // at the last tick it ran at (its user-mode share)
    CostModel::RateNote rate_note;         // its rate on its CPU; cleared with `access`
    double remote_per_byte = 0;            // of the noted rate, remote stall (--latency only)
    uint64_t phase_seq = 0;                // phases started: `access` changes with it
    // The latest futex_wake's time, and the start of its futex_wait phase: a wake posted at or
    // after that start ends the wait. Times, not a flag, because the engine advances the CPUs one
    // after another, so a waker's later wake may be handled before the waiter's earlier start.
    Nanos futex_posted_at = -1;
    Nanos futex_wait_from = 0;
    bool futex_sleeping = false;  // asleep in a futex_wait phase
    // Who wakes it at its pending EV_WAKEUP: another task's futex wake (its CPU and itself, at
    // the wake), or (cpu -1) its own timer.
    Waker wake_from;
    StepWalk walk;  // the last step's walk, if a costly hinting fault cut it
};

// A run whose simulated time stopped: some CPU took kMaxStepsWithoutTime steps (phases started,
// tasks moved or exited) at one instant. Input checks should make this unreachable; it is the
// guarantee that no input hangs the simulator.
class SimulationStalled : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

class Engine {
  public:
    explicit Engine(System& sys);
    // Runs until `end` or until no task is left; returns the time the run stopped.
    Nanos run(Nanos end);
    // Brings `cpu` up to time `t`.
    void advance_cpu(int cpu, Nanos t);
    uint64_t ticks() const { return ticks_; }
    // The phase `p` is in, or nullptr between phases.
    const Phase* phase(const Task& p) const;
    // Checks every cached total against the state (kernel/invariants.h) at the cadence of
    // InvariantCadence and when run() returns; a mismatch throws InvariantViolation. On by
    // default in builds configured with NUMASIM_CHECK_INVARIANTS.
    void set_check_invariants(bool on) { check_invariants_ = on; }
    // The first mismatch between a cached total and the state, or nullopt.
    std::optional<std::string> find_invariant_violation() const;
    // Whether run() keeps sched-group sums between balancing passes (sched/sg_stats_cache.h).
    // On by default; off only to check that the cache changes no decision.
    void set_sg_stats_cache(bool on) { sg_stats_cache_ = on; }
    // Whether a sweep handles a run of like PROT_NONE pages as one hinting-fault decision
    // repeated for each (numa_fault_run), and a run of absent pages as one first touch
    // repeated (anon_fault_run); docs/model.md "Fault runs". On by default; off (the scenario
    // key `fault_runs = false`) only to check that runs change no outcome.
    void set_fault_runs(bool on) { fault_runs_ = on; }
    // Whether run() defers the ticks of settled CPUs (above). On by default; off (the scenario
    // key `deferred_ticks = false`) only to check that deferring changes no outcome.
    void set_deferred_ticks(bool on) { deferred_ticks_ = on; }
    // CPU-ticks that were held back and played later (tests).
    uint64_t deferred_cpu_ticks() const { return deferred_cpu_ticks_; }
    // Hinting faults handled by repeating the decision of the page before them (tests).
    uint64_t fault_run_pages() const { return fault_run_pages_; }
    // Of those, pages that migrated as the run's first page did.
    uint64_t migrated_run_pages() const { return migrated_run_pages_; }
    // Walks cut after a costly hinting fault (engine/step_cut.h; tests).
    uint64_t step_cuts() const { return step_cuts_; }
    // Tells `f` of each page a walk takes a hinting fault on, in the order taken (tests: with
    // fault runs off, each page of a run is its own call).
    using HintingFaultObserver = std::function<void(const Task&, const Vma&, uint64_t idx)>;
    void set_hinting_fault_observer(HintingFaultObserver f) {
        hinting_fault_observer_ = std::move(f);
    }
    // First touches handled by repeating the fault of the page before them (tests).
    uint64_t first_touch_run_pages() const { return first_touch_run_pages_; }
    // First-touch faults on a huge page that lost the race to another thread's clear (tests).
    uint64_t huge_clear_losers() const { return huge_clear_losers_; }
    // Calls `s` at each tick at or after a multiple of its interval, and at the end of the run.
    void add_sampler(Sampler& s);

  private:
    TaskRun& run_of(const Task& p);
    TaskRun& new_run(const Task& p);  // run_of's first call for p
    void tick();
    bool start_next_phase(Task& p);
    void finish_phase(Task& p);
    // After p's exit: wakes the threads of its group waiting in pthread_join() for it.
    void wake_joiners(Task& p);
    // How a walk over a step's touches ended: all done, p left the CPU (the rest is dropped), or
    // cut after a costly hinting fault (engine/step_cut.h; the rest waits in run.walk).
    enum class WalkEnd { Done, Left, Cut };
    // Walks the streams of p's phase for run.walk.bytes of progress, from where run.walk says,
    // on the clock step_.
    WalkEnd touch_streams(Task& p, TaskRun& run);
    // Touches the pages of random stream s (in chunks of s.chunk_bytes) for `sb` bytes of
    // progress, going on from run.walk if it resumes there.
    WalkEnd touch_chunks(Task& p, TaskRun& run, const AccessStream& s, double sb);
    // Handles an access to page idx of vma (a fault if it needs one). A hinting fault there
    // may take the like pages after it up to `hi` (exclusive) with it; `next` is the first page
    // not handled. Returns false if p left the CPU; sets step_.cut where the walk must stop.
    bool handle_touch(Task& p, Vma& vma, uint64_t idx, bool write, uint64_t hi, uint64_t& next);
    // A sweep of p over pages [lo, hi) of vma, on the clock step_ (its range set): the huge pages
    // there whose winning clear by another thread was in flight when p's touch came fault for p
    // too and lose the race (mm/huge_clear.h). Returns false if p left the CPU.
    bool race_huge_clears(Task& p, Vma& vma, uint64_t lo, uint64_t hi);
    // After a step of user work of `bytes` with `llc_misses` (its streams walked), tells the
    // placement policy that watches memory accesses (kNumaScan) and charges p its kernel time.
    void policy_scan_step(Task& p, const TaskRun& run, int cpu, double bytes, double llc_misses);
    void apply_phase_setup(Task& p);
    // After each event: an EV_PHASE_END just after the predicted end of every running phase
    // with Phase::exact_end (or now, for a task that finished one and has not started the next).
    void keep_exact_ends();
    // FUTEX_WAKE of q by `waker` (Phase::futex_wake).
    void futex_wake(Task& waker, Task& q);
    // One step of p's user work on `cpu` of at most `avail` ns at `npb` ns per byte: accounted,
    // cut short where the phase's bytes or CPU time run out (`ends`). Returns the bytes done.
    // Latency accounting's remote-access stall of the step is left to the caller.
    double user_step(Task& p, TaskRun& run, int cpu, Nanos avail, double npb, double miss_per_byte,
                     bool& ends);
    // Moves sweep stream i's cursor by `sb` bytes; returns the pages it passed (0: none), the
    // first of them (region-relative) in `start`.
    uint64_t sweep_cursor(TaskRun& run, size_t i, const AccessStream& s, double sb,
                          uint64_t& start);
    // Whether touching stream s's region now could fault nowhere: every page present, none
    // PROT_NONE, no write that might find a page still shared after fork, and no huge page's
    // clear in flight in its mapping that another thread's touch could race.
    static bool stream_quiet(const AccessStream& s);

    // --- deferred ticks (engine/deferred_ticks.cpp) ---
    // Numbers the event about to be handled and logs its time, for the CPUs that defer it.
    void log_event(Nanos t, bool tick);
    // At the end of a tick: if `cpu` has settled, its deferring starts.
    void try_deferring(int cpu);
    // The last time the phase of `cpu`'s task is sure to go on to, advanced as it is now.
    Nanos last_advance(int cpu) const;
    // At an event's walk: whether advancing deferred `cpu` to `t` would be one plain user step
    // at its noted rate that ends no phase and faults on nothing.
    bool advance_settled(int cpu, Nanos t);
    // At a tick: whether deferred `cpu`'s scheduler_tick() would be a settled one (SettledTicks).
    bool tick_settled(int cpu) const;
    // Plays what `cpu` holds back and stops deferring it; catch_up_all() for every CPU.
    void catch_up(int cpu);
    void catch_up_all();
    // Throws InvariantViolation naming `when` (e.g. "after tick 120") and the simulated time.
    void check_invariants(const std::string& when) const;
    void run_samplers(bool last);

    System& sys_;
    // By Task::index, each on its own so that references survive growth.
    std::vector<std::unique_ptr<TaskRun>> runs_;
    std::vector<CpuRunning> running_;  // per CPU, for the cost model
    // Per CPU: what running_ held at the last update, by identity (the task, its mix and the
    // phase that set the mix), to tell the cost model when nothing changed.
    struct RunningId {
        int task = -1;
        const AccessMix* mix = nullptr;
        uint64_t phase_seq = 0;
        bool operator==(const RunningId&) const = default;
    };
    std::vector<RunningId> running_id_;
    std::vector<int> running_changed_;  // the CPUs whose RunningId changed at this tick
    // Per CPU: what it holds back while its ticks are deferred, and until when it may.
    struct Deferred {
        Task* task = nullptr;        // its one task; nullptr while not deferring
        uint64_t first = 0;          // the first event it was not advanced for
        uint64_t through = 0;        // the last event it was not advanced for (first - 1: none)
        uint64_t ticks_through = 0;  // the last event whose tick it did not take
        Nanos clock0 = 0;            // its clock when deferring started
        Nanos last = 0;              // the last time it may be advanced to (its phase goes on)
        Nanos tick_until = 0;        // its ticks are settled before this (settled_tick_until)
        uint64_t quiet_epoch = 0;    // QuietStamp::epoch when its regions were last found quiet
        Nanos next_balance = 0;      // rq->next_balance, whose balancing runs in place
        Nanos scan_deadline = 0;     // task_tick_numa_deadline(), which tick_until stands on
        bool nohz_kicks = false;     // its ticks may kick an idle load balancer
        CostModel::RateNote note;    // its task's rate note, which must stand throughout
    };
    // catch_up()'s play of the held-back events when nothing but the task and its CPU records
    // them (no latency accounting, perf mem or region-access notes): the same arithmetic in the
    // same order, with what no held step changes looked up once and the sums kept in hand.
    void replay_plain(const Deferred& held, Task& p, TaskRun& run, int cpu);
    std::vector<Deferred> deferred_;
    // replay_plain()'s sweep streams: the stream, its bytes per step and cursor in hand.
    struct HeldSweep {
        size_t stream = 0;
        double share = 0, inv_size = 0, size = 0;
        uint64_t count = 0;
        double sb = 0;  // the bytes of the step in hand x share
        double carry = 0;
        uint64_t pos = 0;
    };
    std::vector<HeldSweep> held_sweeps_;
    int nr_deferred_ = 0;
    // The times of the events since the oldest one a CPU holds back (event event_base_ first),
    // and whether each was a tick.
    std::vector<Nanos> event_time_;
    std::vector<uint8_t> event_tick_;
    uint64_t event_base_ = 0, event_no_ = 0;
    bool deferred_ticks_ = true;
    // The run's placement policy if it declares kNumaScan, else null.
    const PlacementPolicy* scan_policy_ = nullptr;
    uint64_t epoch_at_last_tick_ = 0;  // PlacementStamp::epoch after the last tick
    uint64_t deferred_cpu_ticks_ = 0;
    uint64_t ticks_ = 0;
    // Per CPU, as each CPU's PMU counts its own: fractional cache misses not yet counted.
    std::vector<double> llc_miss_carry_;
    bool exact_ends_ = false;          // some phase asked for Phase::exact_end
    std::vector<Nanos> exact_end_at_;  // per CPU: its queued EV_PHASE_END (-1: none)
    bool sg_stats_cache_ = true;
    bool fault_runs_ = true;
    uint64_t fault_run_pages_ = 0;
    uint64_t migrated_run_pages_ = 0;
    StepClock step_;  // the clock of the walk being made (engine/step_cut.h)
    uint64_t step_cuts_ = 0;
    HintingFaultObserver hinting_fault_observer_;
    // handle_touch's record of the last hinting fault, kept so that its lists keep capacity.
    NumaFaultOutcome fault_outcome_;
    uint64_t first_touch_run_pages_ = 0;
    uint64_t huge_clear_losers_ = 0;
    // The event before the one being played: every CPU has been simulated up to it, so no touch
    // still to be decided comes earlier (the horizon of mm/huge_clear.h's windows).
    Nanos prev_event_ = 0;
    bool check_invariants_;
    InvariantCadence cadence_;
    struct SamplerSlot {
        Sampler* sampler;
        Nanos next;  // the next sample is due at the first tick at or after this time
        Nanos last;  // when it last sampled (-1: never)
    };
    std::vector<SamplerSlot> samplers_;
    int live_tasks() const;
};

}  // namespace numasim
