// Latency accounting (`run --latency`, docs/latency.md): for each task, every stretch of time
// that NUMA balancing takes from it, as the model charges it, in bcc-style log2 histograms. The
// engine and the kernel paths call record() where they charge such a stretch, only when a
// recorder is attached (System::latency); without one nothing is recorded and nothing costs.
// Each call is O(1), and a batch of n like events (a fault run, repeated TLB flushes) is one call.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "sched/task.h"
#include "sim/clock.h"
#include "sim/log2_hist.h"

namespace numasim {

enum class LatencyKind {
    NumaWork,       // task_numa_work() run as task work on the return to user space
    HintFault,      // do_numa_page() / do_huge_pmd_numa_page(), with the migration it started
    MigrationWait,  // sleeping on another task's migration entry, and that fault's kernel time
    TlbIpi,         // a TLB-shootdown interrupt from another CPU's PTE change or migration
    NumaMoveRunq,   // runqueue wait after a NUMA move (migrate_task_to, migrate_swap)
    RemoteStall,    // per tick of running: the wait of memory accesses beyond local ones'
    DirectReclaim,  // an allocation's direct reclaim (try_to_free_pages), as bcc's drsnoop times it
};
inline constexpr size_t kLatencyKinds = 7;

// The name of each kind in reports and JSON (the kernel function where there is one).
std::string_view latency_kind_name(LatencyKind k);

// One task's histograms: the same events bucketed in microseconds and in milliseconds (as
// bcc's tools do with -u / -m: the value divided, then bucketed), and their sum in ns.
struct LatencyHists {
    std::array<Log2Hist, kLatencyKinds> usecs, msecs;
    std::array<uint64_t, kLatencyKinds> sum_ns{};

    // n events of `ns` each (a negative time counts as 0).
    void add(LatencyKind k, Nanos ns, uint64_t n) {
        add_run(k, ns, n, static_cast<uint64_t>(ns > 0 ? ns : 0) * n);
    }
    // n events in the same bucket as `ns` in both units, whose times add up to sum_ns.
    void add_run(LatencyKind k, Nanos ns, uint64_t n, uint64_t sum) {
        const auto i = static_cast<size_t>(k);
        const auto v = static_cast<uint64_t>(ns > 0 ? ns : 0);
        usecs[i].add(v / NSEC_PER_USEC, n);
        msecs[i].add(v / NSEC_PER_MSEC, n);
        sum_ns[i] += sum;
    }
    // n events of v ns each, whose slots in the two units the caller knows.
    void add_to_slots(LatencyKind k, int us_slot, int ms_slot, uint64_t v, uint64_t n) {
        const auto i = static_cast<size_t>(k);
        usecs[i].add_to_slot(us_slot, n);
        msecs[i].add_to_slot(ms_slot, n);
        sum_ns[i] += v * n;
    }
    void merge(const LatencyHists& o);
    bool empty() const;
};

class LatencyRecorder {
  public:
    // n events of `ns` each charged to p. The slots of the last time recorded are kept: the
    // charges of one migration to its waiters, and every TLB-shootdown IPI, are mostly alike.
    void record(const Task& p, LatencyKind k, Nanos ns, uint64_t n = 1) {
        const auto v = static_cast<uint64_t>(ns > 0 ? ns : 0);
        if (v != last_.v) [[unlikely]]
            last_ = {v, Log2Hist::slot_of(v / NSEC_PER_USEC), Log2Hist::slot_of(v / NSEC_PER_MSEC)};
        hists_of(p).add_to_slots(k, last_.us_slot, last_.ms_slot, v, n);
    }
    // A task's remote-access stall since its last tick, and its run of ticks whose stall was
    // the same whole number of microseconds (hence in the same buckets): recorded as one
    // addition when the run ends or the histograms are read, since at a settled CPU's ticks
    // one like tick follows another.
    struct RemoteStall {
        double pending_ns = 0;
        // The run's microsecond in ns: its ticks are run_lo + 0..999 ns, all in run_lo's buckets
        // (a millisecond is whole microseconds). 32 bytes in all, so that indexing is a shift.
        uint64_t run_lo = 0;
        uint64_t run_n = 0, run_sum = 0;
    };
    // `ns` of p's user time went to remote-access stall (CostModel::demand_remote_per_byte):
    // kept until p's next tick, which records it as one event.
    void remote_stall(const Task& p, double ns) { remote_of(p).pending_ns += ns; }
    // p's remote-access stall, for a caller that adds to it step by step (a deferred CPU's
    // catch-up) and calls tick(p, r) at each tick. The reference holds until remote_stall()
    // or remote_of() is called for another task.
    RemoteStall& remote_of(const Task& p) {
        const size_t i = index(p);
        if (i >= remote_.size()) [[unlikely]]
            remote_.resize(i + 1);
        return remote_[i];
    }
    // A scheduler tick found p running: the remote-access stall since its last such tick is one
    // event (of 0 if it had none; a task that has made no user progress records nothing).
    void tick(const Task& p) {
        const size_t i = index(p);
        if (i < remote_.size()) tick(p, remote_[i]);
    }
    // The same with p's remote_of(p), looked up once by the caller. Inline where the tick
    // extends the run, as it does at nearly every tick of a settled CPU.
    void tick(const Task& p, RemoteStall& r) {
        const auto ns = static_cast<uint64_t>(static_cast<Nanos>(r.pending_ns));
        r.pending_ns = 0;
        // ns / 1000 == run_lo / 1000, in one unsigned comparison.
        if (r.run_n && ns - r.run_lo < static_cast<uint64_t>(NSEC_PER_USEC)) [[likely]] {
            ++r.run_n;
            r.run_sum += ns;
            return;
        }
        start_run(index(p), ns);
    }
    // p was moved for NUMA placement and is now on the runqueue of p.cpu, whose clock is
    // `clock`: a wait of 0 if it already runs there, else one that ends when it is picked.
    void numa_moved(const Task& p, bool running, Nanos clock);
    // p was picked to run at `clock` on its CPU: ends the wait of a NUMA move.
    void picked(const Task& p, Nanos clock) {
        const size_t i = index(p);
        if (i < moved_at_.size() && moved_at_[i] >= 0) end_wait(p, clock);
    }
    // The histograms of the task with index i (Task::index): nullptr if neither it nor a task
    // of a higher index has recorded anything, else empty if it has not.
    const LatencyHists* of(int i) const;

  private:
    static size_t index(const Task& p) { return static_cast<size_t>(p.index); }
    LatencyHists& hists_of(const Task& p) {
        const size_t i = index(p);
        if (i >= hists_.size()) hists_.resize(i + 1);
        return hists_[i];
    }
    void end_wait(const Task& p, Nanos clock);
    // Ends task i's run of like remote-stall ticks and starts one of a tick of `ns`.
    void start_run(size_t i, uint64_t ns);
    // Adds task i's run of like remote-stall ticks to its histograms.
    void flush_remote(size_t i) const;

    // The last time record() took, and its slots in microseconds and in milliseconds.
    struct Slots {
        uint64_t v = 0;
        int us_slot = 1, ms_slot = 1;  // slot_of(0)
    } last_;
    // Mutable: of() adds the runs still held before it hands the histograms out.
    mutable std::vector<LatencyHists> hists_;
    std::vector<Nanos> moved_at_;  // per task: the runqueue clock of its NUMA move, -1: none
    mutable std::vector<RemoteStall> remote_;  // per task
};

}  // namespace numasim
