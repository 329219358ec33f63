#include "kernel/latency.h"

#include <algorithm>

#include "sched/task.h"

namespace numasim {

std::string_view latency_kind_name(LatencyKind k) {
    switch (k) {
        case LatencyKind::NumaWork:
            return "task_numa_work";
        case LatencyKind::HintFault:
            return "numa_hint_fault";
        case LatencyKind::MigrationWait:
            return "migration_entry_wait";
        case LatencyKind::TlbIpi:
            return "tlb_shootdown_ipi";
        case LatencyKind::NumaMoveRunq:
            return "numa_move_runq";
        case LatencyKind::RemoteStall:
            return "remote_access_stall";
        case LatencyKind::DirectReclaim:
            return "direct_reclaim";
    }
    return "";
}

void LatencyHists::merge(const LatencyHists& o) {
    for (size_t i = 0; i < kLatencyKinds; ++i) {
        usecs[i].merge(o.usecs[i]);
        msecs[i].merge(o.msecs[i]);
        sum_ns[i] += o.sum_ns[i];
    }
}

bool LatencyHists::empty() const {
    return std::all_of(usecs.begin(), usecs.end(), [](const Log2Hist& h) { return !h.count(); });
}

void LatencyRecorder::numa_moved(const Task& p, bool running, Nanos clock) {
    if (running) {
        record(p, LatencyKind::NumaMoveRunq, 0);
        return;
    }
    const size_t i = index(p);
    if (i >= moved_at_.size()) moved_at_.resize(i + 1, -1);
    moved_at_[i] = clock;
}

void LatencyRecorder::end_wait(const Task& p, Nanos clock) {
    Nanos& at = moved_at_[index(p)];
    // A CPU's clock runs on between the events it is advanced to, so the wait is measured on
    // the clock of the runqueue it waited on; a later load-balancing move onto a CPU whose
    // clock is behind would make it negative, and counts as no wait.
    record(p, LatencyKind::NumaMoveRunq, std::max<Nanos>(clock - at, 0));
    at = -1;
}

void LatencyRecorder::start_run(size_t i, uint64_t ns) {
    flush_remote(i);
    RemoteStall& r = remote_[i];
    r.run_lo = ns - ns % static_cast<uint64_t>(NSEC_PER_USEC);
    r.run_n = 1;
    r.run_sum = ns;
}

void LatencyRecorder::flush_remote(size_t i) const {
    RemoteStall& r = remote_[i];
    if (!r.run_n) return;
    if (i >= hists_.size()) hists_.resize(i + 1);
    hists_[i].add_run(LatencyKind::RemoteStall, static_cast<Nanos>(r.run_lo), r.run_n, r.run_sum);
    r.run_n = 0;
}

const LatencyHists* LatencyRecorder::of(int i) const {
    const auto k = static_cast<size_t>(i);
    if (k < remote_.size()) flush_remote(k);
    return k < hists_.size() ? &hists_[k] : nullptr;
}

}  // namespace numasim
