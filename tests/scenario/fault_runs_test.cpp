// Fault runs (Engine::set_fault_runs, docs/model.md "Fault runs"), of hinting faults and of first
// touches, change no outcome: the same workload run with runs and page by page ends in the same
// state, counter by counter, task by task and page by page, with the same kernel time and
// fault-lock waits. The workloads sweep memory that threads share (groups form, pages migrate,
// tags differ page to page) and, in streams, also touch it at random, write it after fork and
// bind it to a node.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "engine/engine.h"
#include "kernel/system.h"
#include "machine/presets.h"
#include "numab/profile.h"
#include "same_outcome.h"

namespace numasim {
namespace {

struct Case {
    const char* name;
    const char* machine;
    const char* profile;
    Nanos duration;
    const char* toml;                     // [[workload]] tables
    bool runs_expected;                   // sweeps over like pages
    bool migrated_runs_expected = false;  // ... that migrate together
    bool skip_shared_cow = true;          // false: shared copy-on-write pages migrate too
};

// perf bench numa mem -p 2 -t 4 -P 128: threads of a process walk its memory at random in 8 KiB
// chunks (the default: a chunk's like pages take a run), or sweep it together
// (--no-data_rand_walk).
constexpr const char* kPerfBench =
    "[[workload]]\ntype='perf-bench-numa'\nnr_proc=2\nnr_threads=4\nmb_proc=128\n";
constexpr const char* kPerfBenchSweep =
    "[[workload]]\ntype='perf-bench-numa'\nnr_proc=2\nnr_threads=4\nmb_proc=128\n"
    "data_rand_walk=false\n";

// schbench as mmtests' NUMA config runs it (a message thread per node, CPUs/nodes workers
// each): threads that wake each other over futexes, with exact phase ends.
constexpr const char* kSchbench =
    "[[workload]]\ntype='schbench'\nmessage_threads=2\nthreads=24\nruntime='3s'\n";

// Henry Willard's shared .data test (examples/cowsum.toml) scaled down: 16 processes sweep the
// copy-on-write pages of one file mapping, so every migration walks 16 mappers (and flushes the
// TLBs of those whose PTEs are accessible) and charges the mappers that touch the page meanwhile.
constexpr const char* kCowsum =
    "[[workload]]\ntype='cowsum'\nprocesses=16\nseconds=3\nmode='data'\n";

// examples/streams.toml: file and THP regions, hot-set and random streams, write sweeps under a
// bind policy, then an affinity change that makes every page remote.
constexpr const char* kStreams = R"([[workload]]
type = "streams"
[[workload.process]]
name = "server"
count = 2
threads = 2
[[workload.process.region]]
name = "table"
size = "16MiB"
kind = "file"
[[workload.process.region]]
name = "sessions"
size = "32MiB"
kind = "private"
thp = true
[[workload.process.thread]]
loop = true
[[workload.process.thread.phases]]
rate_gbs = 2.0
cpu_time = "200ms"
[[workload.process.thread.phases.streams]]
region = "sessions"
pattern = "hotset"
share = 3
write_fraction = 0.3
hot_fraction = 0.2
hot_share = 0.8
per_thread = true
[[workload.process.thread.phases.streams]]
region = "table"
pattern = "random"
share = 1
[[workload.process.thread.phases]]
sleep = "50ms"
[[workload.process]]
name = "batch"
threads = 2
[[workload.process.region]]
name = "buffer"
size = "64MiB"
first_touch = "node:0"
[[workload.process.thread]]
count = 2
phases = [
  { streams = [ { region = "buffer", write_fraction = 1.0, per_thread = true } ], rate_gbs = 4.0, work = "256MiB", repeat = 8 },
  { affinity = "node:1", streams = [ { region = "buffer", per_thread = true } ], rate_gbs = 4.0, work = "256MiB", repeat = 8 },
]
)";

struct Outcome {
    std::vector<uint64_t> counters;
    std::vector<std::vector<int64_t>> tasks;
    std::vector<uint64_t> pages;  // per VMA page: present, PROT_NONE and the frame's 8 bytes
    std::vector<double> kernel;   // cost stats
    uint64_t faults_noted = 0;
    uint64_t run_pages = 0;
    uint64_t migrated_run_pages = 0;
    uint64_t first_touch_run_pages = 0;
};

Outcome run(const Case& c, bool runs) {
    NumaBalancingKnobs knobs = load_profile(c.profile);
    knobs.skip_shared_cow = c.skip_shared_cow;
    System sys(load_preset(c.machine), knobs, 5);
    const auto workloads = sametest::setup_workloads(sys, c.toml);
    Engine eng(sys);
    eng.set_fault_runs(runs);
    eng.set_check_invariants(true);
    eng.run(c.duration);
    Outcome o;
    o.counters = sametest::counters(sys);
    for (const auto& p : sys.tasks) {
        std::vector<int64_t> t = {p->cpu,
                                  static_cast<int64_t>(p->state),
                                  p->sum_exec_runtime,
                                  p->stime,
                                  p->utime,
                                  static_cast<int64_t>(p->nr_faults),
                                  static_cast<int64_t>(p->numa_hint_faults),
                                  static_cast<int64_t>(p->numa_pages_migrated),
                                  p->numa_preferred_nid,
                                  p->numa_scan_seq};
        for (unsigned long f : p->numa_faults)
            t.push_back(static_cast<int64_t>(f));
        o.tasks.push_back(t);
    }
    o.pages = sametest::pages(sys);
    o.kernel = sametest::kernel_costs(sys);
    o.faults_noted = sys.fault_locks.faults_noted();
    o.run_pages = eng.fault_run_pages();
    o.migrated_run_pages = eng.migrated_run_pages();
    o.first_touch_run_pages = eng.first_touch_run_pages();
    return o;
}

class FaultRunsTest : public testing::TestWithParam<Case> {};

TEST_P(FaultRunsTest, SameOutcomeAsPageByPage) {
    const Outcome with = run(GetParam(), true);
    const Outcome without = run(GetParam(), false);
    // Hinting faults happened, so there were runs to take.
    EXPECT_GT(with.counters[static_cast<size_t>(Vm::numa_hint_faults)], 1000u);
    EXPECT_EQ(without.run_pages, 0u);
    // Every workload sweeps memory it has not touched yet (its initialisation).
    EXPECT_GT(with.first_touch_run_pages, 0u);
    EXPECT_EQ(without.first_touch_run_pages, 0u);
    if (GetParam().runs_expected) {
        EXPECT_GT(with.run_pages, 0u);
    }
    if (GetParam().migrated_runs_expected) {
        EXPECT_GT(with.migrated_run_pages, 1000u);
        EXPECT_GT(with.kernel[2], 0.0);  // pages migrated under other mappers' feet
    }
    EXPECT_EQ(with.counters, without.counters);
    EXPECT_EQ(with.tasks, without.tasks);
    EXPECT_EQ(with.pages, without.pages);
    for (size_t i = 0; i < with.kernel.size(); ++i)  // bit for bit
        EXPECT_EQ(with.kernel[i], without.kernel[i]) << sametest::kKernelCosts[i];
    EXPECT_EQ(with.faults_noted, without.faults_noted);
}

INSTANTIATE_TEST_SUITE_P(
    Workloads, FaultRunsTest,
    testing::Values(
        Case{"PerfBenchV612", "haswell-2s", "v6.12", msecs_to_ns(3000), kPerfBench, true},
        Case{"PerfBenchSweepV612", "haswell-2s", "v6.12", msecs_to_ns(3000), kPerfBenchSweep, true},
        Case{"PerfBenchSweepV419", "haswell-2s", "v4.19", msecs_to_ns(3000), kPerfBenchSweep, true},
        Case{"Streams", "tiny-2n", "v6.12", msecs_to_ns(3000), kStreams, false},
        Case{"SchbenchV612", "haswell-2s", "v6.12", msecs_to_ns(3000), kSchbench, false},
        Case{"CowsumSharedCowV612", "haswell-2s", "v6.12", msecs_to_ns(3000), kCowsum, true, true,
             false},
        Case{"CowsumSharedCowV419", "haswell-2s", "v4.19", msecs_to_ns(3000), kCowsum, true, true,
             false}),
    [](const testing::TestParamInfo<Case>& i) { return std::string(i.param.name); });

}  // namespace
}  // namespace numasim
