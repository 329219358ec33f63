// Latency accounting on whole runs (kernel/latency.h): a known sequence of hinting faults fills
// the buckets it must, a run of like faults records what faulting page by page records, and
// recording changes nothing of the run.
#include "kernel/latency.h"

#include <gtest/gtest.h>

#include <vector>

#include "cost/constants.h"
#include "engine/engine.h"
#include "kernel/system.h"
#include "machine/presets.h"
#include "numab/profile.h"
#include "same_outcome.h"

namespace numasim {
namespace {

// Two threads on node 0 sweeping 64 MiB first-touched there (two, because the scanner leaves a
// single-threaded task's pages on its own node alone): every hinting fault is local and
// migrates nothing.
constexpr const char* kLocalSweep = R"([[workload]]
type = "streams"
[[workload.process]]
name = "local"
threads = 2
[[workload.process.region]]
name = "buffer"
size = "64MiB"
first_touch = "node:0"
[[workload.process.thread]]
count = 2
phases = [
  { affinity = "node:0", streams = [ { region = "buffer" } ], rate_gbs = 4.0, work = "64GiB" },
]
)";

// Two threads that write the other node's memory: faults that migrate pages, with TLB
// shootdowns between the threads' CPUs and NUMA moves.
constexpr const char* kCrossed = R"([[workload]]
type = "streams"
[[workload.process]]
name = "crossed"
threads = 2
[[workload.process.region]]
name = "a"
size = "32MiB"
first_touch = "node:0"
[[workload.process.region]]
name = "b"
size = "32MiB"
first_touch = "node:1"
[[workload.process.thread]]
phases = [
  { affinity = "node:1", streams = [ { region = "a", write_fraction = 1.0 } ], rate_gbs = 4.0, work = "64GiB" },
]
[[workload.process.thread]]
phases = [
  { affinity = "node:0", streams = [ { region = "b", write_fraction = 1.0 } ], rate_gbs = 4.0, work = "64GiB" },
]
)";

struct Outcome {
    std::vector<LatencyHists> hists;  // per task
    std::vector<uint64_t> hint_faults, counters, pages;
    std::vector<double> kernel;
    std::vector<int64_t> times;  // per task: utime, stime
};

Outcome run(const char* toml, bool latency, bool fault_runs, Nanos duration = 3 * NSEC_PER_SEC) {
    System sys(load_preset("tiny-2n"), load_profile("v6.6"), 7);
    LatencyRecorder rec;
    if (latency) sys.latency = &rec;
    const auto workloads = sametest::setup_workloads(sys, toml);
    Engine eng(sys);
    eng.set_fault_runs(fault_runs);
    eng.run(duration);
    Outcome o;
    for (const auto& t : sys.tasks) {
        const LatencyHists* h = rec.of(t->index);
        o.hists.push_back(h ? *h : LatencyHists{});
        o.hint_faults.push_back(t->numa_hint_faults);
        o.times.push_back(t->utime);
        o.times.push_back(t->stime);
    }
    o.counters = sametest::counters(sys);
    o.pages = sametest::pages(sys);
    o.kernel = sametest::kernel_costs(sys);
    return o;
}

void expect_same_hists(const Outcome& a, const Outcome& b) {
    ASSERT_EQ(a.hists.size(), b.hists.size());
    for (size_t t = 0; t < a.hists.size(); ++t)
        for (size_t k = 0; k < kLatencyKinds; ++k) {
            EXPECT_EQ(a.hists[t].sum_ns[k], b.hists[t].sum_ns[k]) << t << " " << k;
            for (int s = 0; s < Log2Hist::kSlots; ++s) {
                EXPECT_EQ(a.hists[t].usecs[k].slot(s), b.hists[t].usecs[k].slot(s));
                EXPECT_EQ(a.hists[t].msecs[k].slot(s), b.hists[t].msecs[k].slot(s));
            }
        }
}

TEST(LatencyRun, LocalHintFaultsFillTheTwoMicrosecondBucket) {
    // A local fault that migrates nothing costs HINT_FAULT_CYCLES (5000) at 2.5 GHz = 2000 ns:
    // 2 us, the "2 -> 3" bucket, once per fault the task counted.
    const Outcome o = run(kLocalSweep, true, true);
    const auto k = static_cast<size_t>(LatencyKind::HintFault);
    uint64_t faults = 0, recorded = 0, in_two = 0, sum = 0;
    for (size_t t = 0; t < o.hists.size(); ++t) {
        faults += o.hint_faults[t];
        recorded += o.hists[t].usecs[k].count();
        in_two += o.hists[t].usecs[k].slot(2);
        sum += o.hists[t].sum_ns[k];
    }
    ASSERT_GT(faults, 1000u);
    EXPECT_EQ(recorded, faults);
    EXPECT_EQ(in_two, faults);
    EXPECT_EQ(sum, 2000 * faults);
}

TEST(LatencyRun, FaultRunsRecordWhatPageByPageRecords) {
    for (const char* toml : {kLocalSweep, kCrossed}) {
        const Outcome runs = run(toml, true, true);
        const Outcome pages = run(toml, true, false);
        expect_same_hists(runs, pages);
    }
}

TEST(LatencyRun, MigratingFaultsAndMovesAreRecorded) {
    const Outcome o = run(kCrossed, true, true);
    uint64_t faults = 0, recorded = 0, above_two = 0, moves = 0, ipis = 0;
    for (size_t t = 0; t < o.hists.size(); ++t) {
        const LatencyHists& h = o.hists[t];
        const Log2Hist& f = h.usecs[static_cast<size_t>(LatencyKind::HintFault)];
        faults += o.hint_faults[t];
        recorded += f.count();
        above_two += f.count() - f.slot(1) - f.slot(2);  // a fault that migrated: copy and more
        moves += h.usecs[static_cast<size_t>(LatencyKind::NumaMoveRunq)].count();
        ipis += h.usecs[static_cast<size_t>(LatencyKind::TlbIpi)].count();
    }
    EXPECT_EQ(recorded, faults);
    EXPECT_GT(above_two, 0u);
    EXPECT_GT(ipis, 0u);
    EXPECT_EQ(moves, 0u);  // pinned by affinity: no NUMA move can take them
}

TEST(LatencyRun, RecordingChangesNothing) {
    for (const char* toml : {kLocalSweep, kCrossed}) {
        const Outcome on = run(toml, true, true);
        const Outcome off = run(toml, false, true);
        EXPECT_EQ(on.counters, off.counters);
        EXPECT_EQ(on.pages, off.pages);
        EXPECT_EQ(on.kernel, off.kernel);
        EXPECT_EQ(on.times, off.times);
        EXPECT_EQ(on.hint_faults, off.hint_faults);
    }
}

TEST(LatencyRun, SameSeedSameHistograms) {
    expect_same_hists(run(kCrossed, true, true), run(kCrossed, true, true));
}

}  // namespace
}  // namespace numasim
