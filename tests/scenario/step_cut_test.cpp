// Steps end at costly hinting faults (engine/step_cut.h, docs/model.md "Steps end at costly
// faults"): the clock of a walk by hand, and on whole runs that a task no longer decides a second
// of migrations at one instant, that other tasks' migrations come in between its own, that a cut
// random or chunk walk goes on after the page it stopped at, and that fault runs and deferred
// ticks still change nothing.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "cost/constants.h"
#include "engine/engine.h"
#include "kernel/system.h"
#include "kernel/tracer.h"
#include "machine/presets.h"
#include "numab/profile.h"
#include "same_outcome.h"

namespace numasim {
namespace {

// A 4 ms step over 10 touches of pages 100..109, one every 400 ns of user time.
StepClock ten_touches(Nanos kernel) {
    StepClock c{.limit = 4000000, .used = 4000000, .kernel = kernel};
    c.range(100, 0, 10);
    return c;
}

TEST(StepClock, TouchesShareTheStepsUserTime) {
    const StepClock c = ten_touches(0);
    EXPECT_EQ(c.user_at(100), 400000);  // the first touch ends a tenth into the step
    EXPECT_EQ(c.user_at(104), 2000000);
    EXPECT_EQ(c.user_at(109), 4000000);
    // The wrapped part of a sweep goes on counting from the first part's touches.
    StepClock w = c;
    w.range(0, 6, 10);  // pages 0..3 are touches 6..9
    EXPECT_EQ(w.user_at(0), 2800000);
    EXPECT_EQ(w.user_at(3), 4000000);
}

TEST(StepClock, CutWhereUserAndKernelTimeReachTheEvent) {
    // No kernel time: only the last touch reaches the event, and nothing comes after it.
    EXPECT_FALSE(ten_touches(0).past(108, 0));
    EXPECT_TRUE(ten_touches(0).past(109, 0));
    // 3 ms of faults: touch 0 ends at 3.4 ms, touch 2 at 4.2 ms, past the 4 ms event.
    EXPECT_FALSE(ten_touches(3000000).past(100, 0));
    EXPECT_FALSE(ten_touches(3000000).past(101, 0));  // 0.8 + 3 = 3.8 ms
    EXPECT_TRUE(ten_touches(3000000).past(102, 0));
    // `extra` is kernel time not yet counted (a fault run's pages before page j).
    EXPECT_TRUE(ten_touches(3000000).past(101, 200000));
    // A walk that goes on has no user time of its own: its faults alone reach the event.
    StepClock on{.limit = 1000000, .used = 0, .kernel = 999999};
    on.range(0, 0, 0);
    EXPECT_EQ(on.user_at(5), 0);
    EXPECT_FALSE(on.past(5, 0));
    EXPECT_TRUE(on.past(5, 1));
}

// Henry Willard's shared .data test scaled down (examples/cowsum.toml): 16 processes sum the
// 977 pages of one file mapping for 3 s, without the skip of shared copy-on-write pages, so every
// page each child faults on may migrate and each migration walks 16 mappings.
constexpr const char* kCowsum =
    "[[workload]]\ntype='cowsum'\nprocesses=16\nseconds=3\nmode='data'\n";

// mm_migrate_pages events: who migrated how many pages when.
struct MigrateLog : TraceSink {
    struct Burst {
        Nanos ts;
        int pid;
        uint64_t pages;
    };
    std::vector<Burst> bursts;  // one per (task, instant), in time order
    void event(const TraceEvent& e) override {
        if (e.id != TraceEventId::mm_migrate_pages || !e.current) return;
        const auto n = static_cast<uint64_t>(e.n[0]);
        if (!bursts.empty() && bursts.back().ts == e.ts && bursts.back().pid == e.current->pid)
            bursts.back().pages += n;
        else
            bursts.push_back({e.ts, e.current->pid, n});
    }
};

struct CowsumRun {
    MigrateLog log;
    uint64_t cuts = 0;
    uint64_t migrated = 0;
};

void run_cowsum(CowsumRun& out) {
    NumaBalancingKnobs knobs = load_profile("v4.19");
    knobs.skip_shared_cow = false;
    System sys(load_preset("haswell-2s"), knobs, 5);
    const auto workloads = sametest::setup_workloads(sys, kCowsum);
    sys.tracer.attach(&out.log, trace_bit(TraceEventId::mm_migrate_pages), sys.nr_cpus());
    Engine eng(sys);
    eng.set_check_invariants(true);
    eng.run(msecs_to_ns(3000));
    out.cuts = eng.step_cuts();
    out.migrated = sys.counters[Vm::numa_pages_migrated];
}

TEST(StepCut, NoTaskDecidesMoreThanAnIntervalOfMigrationsAtOneInstant) {
    CowsumRun r;
    run_cowsum(r);
    ASSERT_GT(r.migrated, 100u);
    EXPECT_GT(r.cuts, 0u);
    // A burst (one task, one instant) of k pages was not cut before its last fault, so the
    // kernel time of its first k - 1 migrations stayed below one tick. Each walks 16 mappings:
    // at least the fixed work of a migration and one rmap step for each other mapping
    // (cost/constants.h), 24 us, so k - 1 < 4 ms / 24 us. The engine that decided a whole
    // step's faults at its start made bursts of 971 and 973 pages here.
    const double per_page = cost::kNominal.MIGRATE_FOLIO_OVERHEAD_NS.value +
                            15 * cost::kNominal.MIGRATE_PER_MAPPING_NS.value;
    const auto bound = static_cast<uint64_t>(static_cast<double>(TICK_NSEC) / per_page) + 1;
    uint64_t largest = 0;
    for (const auto& b : r.log.bursts)
        largest = std::max(largest, b.pages);
    EXPECT_LE(largest, bound);
}

TEST(StepCut, OtherTasksMigrateBetweenOneTasksMigrations) {
    CowsumRun r;
    run_cowsum(r);
    // The task that migrated most: between its first and last burst, other tasks' bursts come
    // in (at one instant the engine decided them all together, with nothing in between).
    std::map<int, uint64_t> by_task;
    for (const auto& b : r.log.bursts)
        by_task[b.pid] += b.pages;
    ASSERT_FALSE(by_task.empty());
    const int busiest = std::max_element(by_task.begin(), by_task.end(), [](auto& a, auto& b) {
                            return a.second < b.second;
                        })->first;
    size_t first = r.log.bursts.size(), last = 0;
    for (size_t i = 0; i < r.log.bursts.size(); ++i)
        if (r.log.bursts[i].pid == busiest) {
            first = std::min(first, i);
            last = i;
        }
    int own = 0, others = 0;
    for (size_t i = first; i <= last; ++i)
        (r.log.bursts[i].pid == busiest ? own : others) += 1;
    EXPECT_GT(own, 1);
    EXPECT_GT(others, 0);
}

TEST(StepCut, SameOutcomeWithAndWithoutFaultRuns) {
    // The cut lands on the same page whether a run of like pages is taken at once or page by
    // page (the run is halved to find it).
    auto once = [](bool runs) {
        NumaBalancingKnobs knobs = load_profile("v4.19");
        knobs.skip_shared_cow = false;
        System sys(load_preset("haswell-2s"), knobs, 5);
        const auto workloads = sametest::setup_workloads(sys, kCowsum);
        Engine eng(sys);
        eng.set_fault_runs(runs);
        eng.run(msecs_to_ns(1500));
        return std::pair{sametest::counters(sys), std::pair{sametest::pages(sys), eng.step_cuts()}};
    };
    const auto with = once(true), without = once(false);
    EXPECT_GT(with.second.second, 0u);
    EXPECT_EQ(with.first, without.first);
    EXPECT_EQ(with.second, without.second);
}

// One thread walks one region at random, page by page or in chunks, and the scanner makes the
// whole region PROT_NONE at each pass: a step's walk meets thousands of hinting faults, their
// kernel time reaches the event, and the walk is cut. A walk visits its pages in address order,
// so the cut walk, going on from the page after the cut, takes its next hinting fault higher up;
// one that started over would take it anywhere in the region, below the cut as often as not.
// Counts the cuts and those whose next hinting fault lies above the page the walk was cut at
// (9 in 10 at least: a cut near the region's end may leave no page to fault on above it, and
// the next fault is then a new walk's).
struct Resumes {
    uint64_t cuts = 0;
    uint64_t above = 0;
};

Resumes cut_walks(const char* toml) {
    System sys(load_preset("haswell-2s"), load_profile("v6.6"), 5);
    const auto workloads = sametest::setup_workloads(sys, toml);
    Engine eng(sys);
    eng.set_fault_runs(false);  // each page of a chunk is its own fault
    struct Fault {
        int pid;
        const Vma* vma;
        uint64_t idx;
        uint64_t cuts;  // walks cut before this fault
    };
    std::vector<Fault> seen;
    eng.set_hinting_fault_observer([&](const Task& p, const Vma& v, uint64_t idx) {
        seen.push_back({p.pid, &v, idx, eng.step_cuts()});
    });
    eng.run(msecs_to_ns(3000));
    EXPECT_EQ(sys.counters[Vm::numa_hint_faults], seen.size());
    Resumes r;
    std::map<int, const Fault*> last;  // per task: its fault before
    for (const Fault& f : seen) {
        const Fault*& before = last[f.pid];
        // A cut follows a hinting fault and ends that task's walk: with one walking thread, the
        // count changes between two of its faults only where its own walk was cut.
        if (before && f.cuts != before->cuts) {
            EXPECT_EQ(f.cuts, before->cuts + 1);
            ++r.cuts;
            if (f.vma == before->vma && f.idx > before->idx) ++r.above;
        }
        before = &f;
    }
    return r;
}

TEST(StepCut, CutRandomWalkGoesOnAfterThePageItStoppedAt) {
    const Resumes r = cut_walks(
        "[[workload]]\ntype='pmbench'\nduration=3\nmapsize='64MiB'\nsetsize='64MiB'\n"
        "pattern='uniform'\njobs=1\n");
    ASSERT_GE(r.cuts, 10u);
    EXPECT_GE(r.above * 10, r.cuts * 9);
}

TEST(StepCut, CutChunkWalkGoesOnAfterThePageItStoppedAt) {
    // perf bench numa's random walk in 8 KiB chunks (workload/perf_bench_numa.cpp).
    const Resumes r =
        cut_walks("[[workload]]\ntype='perf-bench-numa'\nnr_proc=1\nnr_threads=1\nmb_proc=64\n");
    ASSERT_GE(r.cuts, 10u);
    EXPECT_GE(r.above * 10, r.cuts * 9);
}

}  // namespace
}  // namespace numasim
