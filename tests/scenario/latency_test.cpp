// Latency accounting on whole runs (kernel/latency.h): a known sequence of hinting faults fills
// the buckets it must, a run of like faults records what faulting page by page records, a task
// whose memory is all remote records the stall the cost model implies at every tick, and
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

// One thread pinned to node 0 sweeping 64 MiB that sits on node 1: every LLC miss is remote
// until NUMA balancing migrates the pages to node 0.
constexpr const char* kRemoteSweep = R"([[workload]]
type = "streams"
[[workload.process]]
name = "remote"
[[workload.process.region]]
name = "buffer"
size = "64MiB"
first_touch = "node:1"
[[workload.process.thread]]
phases = [
  { affinity = "node:0", streams = [ { region = "buffer" } ], rate_gbs = 4.0, work = "640GiB" },
]
)";

struct Outcome {
    std::vector<LatencyHists> hists;  // per task
    std::vector<uint64_t> hint_faults, counters, pages;
    std::vector<double> kernel;
    std::vector<int64_t> times;  // per task: utime, stime
};

struct RunOptions {
    bool balancing = true;
    bool deferred_ticks = true;
};

Outcome run(const char* toml, bool latency, bool fault_runs, Nanos duration = 3 * NSEC_PER_SEC,
            RunOptions opt = {}) {
    NumaBalancingKnobs knobs = load_profile("v6.6");
    if (!opt.balancing) knobs.numa_balancing = 0;
    System sys(load_preset("tiny-2n"), knobs, 7);
    LatencyRecorder rec;
    if (latency) sys.latency = &rec;
    const auto workloads = sametest::setup_workloads(sys, toml);
    Engine eng(sys);
    eng.set_fault_runs(fault_runs);
    eng.set_deferred_ticks(opt.deferred_ticks);
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

// The remote-access stall histogram merged over the run's tasks.
Log2Hist remote_stall(const Outcome& o, uint64_t* sum_ns = nullptr) {
    const auto k = static_cast<size_t>(LatencyKind::RemoteStall);
    Log2Hist h;
    for (const LatencyHists& t : o.hists) {
        h.merge(t.usecs[k]);
        if (sum_ns) *sum_ns += t.sum_ns[k];
    }
    return h;
}

TEST(LatencyRun, AllRemoteSweepStallsWhatTheLatencyDifferenceImplies) {
    // tiny-2n: 90 ns local, 140 ns remote, 10 line fill buffers. At 4 GB/s alone and local a
    // 64-byte line takes 16 ns, of which 90 / 10 = 9 ns memory stall and 7 ns CPU work. With
    // the line on node 1 it takes 7 + 140 / 10 = 21 ns idle, 5 ns of it beyond the local
    // access. The task then moves 64 / 21.13 = 3.03 GB/s, which queues (LOADED_LATENCY_KNEE
    // 0.1 times the latency a resource adds, Q = knee * rho / (1 - rho)) on the link, 5 ns *
    // 0.146 / 0.854 = 0.85 ns (20.8 GB/s), and on node 1's DRAM, 9 ns * 0.0505 / 0.9495 =
    // 0.48 ns (60 GB/s), each over the 10 line fill buffers. Only the link's is remote stall:
    // 5.085 ns of a 21.133 ns line. The 64 MiB sweep misses the 16 MiB LLC on every line, so a
    // tick of running (4 ms at HZ = 250) holds 4000 us * 5.085 / 21.133 = 962.5 us of it: the
    // 512 -> 1023 bucket. Without balancing nothing moves the pages.
    const Outcome o = run(kRemoteSweep, true, true, 2 * NSEC_PER_SEC, {.balancing = false});
    uint64_t sum = 0;
    const Log2Hist h = remote_stall(o, &sum);
    const uint64_t ticks = 2 * NSEC_PER_SEC / TICK_NSEC - 1;  // ticks before the end
    EXPECT_EQ(h.count(), ticks);
    // All but the first ticks, which the first touch of the 16384 pages takes in the kernel.
    EXPECT_GE(h.slot(10), ticks - 10);
    EXPECT_EQ(h.slot(10) + h.slot(1), ticks);
    const double per_tick_us = static_cast<double>(sum) / 1000.0 / static_cast<double>(h.slot(10));
    EXPECT_NEAR(per_tick_us, 962.5, 1.0);
    EXPECT_EQ(h.percentile(50), 1023u);
}

TEST(LatencyRun, BalancingMovesTheRemoteStallDown) {
    // With balancing on, the first scan pass (after numa_scan_delay, 1 s) marks the buffer
    // and the hinting faults migrate it to node 0: the ticks after it stall on nothing.
    const Outcome off = run(kRemoteSweep, true, true, 3 * NSEC_PER_SEC, {.balancing = false});
    const Outcome on = run(kRemoteSweep, true, true, 3 * NSEC_PER_SEC);
    uint64_t sum_off = 0, sum_on = 0;
    const Log2Hist h_off = remote_stall(off, &sum_off), h_on = remote_stall(on, &sum_on);
    EXPECT_EQ(h_off.percentile(50), 1023u);
    EXPECT_EQ(h_on.percentile(50), 1u);
    EXPECT_LT(sum_on * 2, sum_off);
    EXPECT_GT(h_on.slot(1), h_on.count() / 2);
}

TEST(LatencyRun, DeferredTicksRecordWhatTickingRecords) {
    for (const char* toml : {kRemoteSweep, kLocalSweep}) {
        const Outcome deferred = run(toml, true, true);
        const Outcome ticked = run(toml, true, true, 3 * NSEC_PER_SEC, {.deferred_ticks = false});
        expect_same_hists(deferred, ticked);
    }
}

TEST(LatencyRun, SameSeedSameHistograms) {
    expect_same_hists(run(kCrossed, true, true), run(kCrossed, true, true));
}

}  // namespace
}  // namespace numasim
