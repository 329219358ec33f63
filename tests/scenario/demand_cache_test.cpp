// The cost model's kept demands (cost/cost_model.h: each CPU's memory demand, and the LLC and
// core sharing, derived again only when what they depend on changed), with the solves kept on a
// settled machine and the engine's rate notes that go with them, change no outcome: the
// same workload run with them and deriving everything at every use ends in the same state,
// counter by counter and task by task, down to the bytes each task moved. The runs check
// every invariant, which includes each running task's kept demand against its recomputation.
#include <gtest/gtest.h>

#include <bit>
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
    const char* toml;
};

struct Outcome {
    std::vector<uint64_t> counters;
    std::vector<std::vector<uint64_t>> tasks;
    uint64_t hits = 0, misses = 0, solves_kept = 0;
};

Outcome run(const Case& c, bool keep) {
    System sys(load_preset(c.machine), load_profile("v6.12"), 7);
    const auto workloads = sametest::setup_workloads(sys, c.toml);
    sys.cost.set_demand_cache(keep);
    Engine eng(sys);
    eng.set_check_invariants(true);
    eng.run(msecs_to_ns(2500));
    Outcome o;
    o.counters = sametest::counters(sys);
    for (const auto& p : sys.tasks)
        o.tasks.push_back({static_cast<uint64_t>(p->cpu), static_cast<uint64_t>(p->state),
                           static_cast<uint64_t>(p->sum_exec_runtime),
                           static_cast<uint64_t>(p->numa_pages_migrated),
                           std::bit_cast<uint64_t>(p->total_bytes),
                           std::bit_cast<uint64_t>(p->avg.util_avg)});
    o.hits = sys.cost.demand_hits();
    o.misses = sys.cost.demand_misses();
    o.solves_kept = sys.cost.solves_kept();
    return o;
}

class DemandCacheTest : public testing::TestWithParam<Case> {};

TEST_P(DemandCacheTest, SameOutcomeAsDerivingEveryTime) {
    const Outcome with = run(GetParam(), true);
    const Outcome without = run(GetParam(), false);
    // Kept demands served most uses, and pages moved under them.
    EXPECT_GT(with.hits, with.misses);
    EXPECT_GT(with.misses, 0u);
    EXPECT_EQ(without.hits + without.misses, 0u);
    // ... and once the machine settled, updates kept the solve they would have repeated.
    EXPECT_GT(with.solves_kept, 0u);
    EXPECT_EQ(without.solves_kept, 0u);
    EXPECT_GT(with.counters[static_cast<size_t>(Vm::numa_pages_migrated)], 0u);
    EXPECT_EQ(with.counters, without.counters);
    EXPECT_EQ(with.tasks, without.tasks);
}

INSTANTIATE_TEST_SUITE_P(
    Workloads, DemandCacheTest,
    testing::Values(
        // 2 processes x 4 threads walking their memory at random, on SMT siblings.
        Case{"PerfBench", "haswell-2s",
             "[[workload]]\ntype='perf-bench-numa'\nnr_proc=2\nnr_threads=4\nmb_proc=96\n"},
        // NUMA01_THREADLOCAL: each thread sweeps its slice of a buffer first touched on one
        // node, and the slices of the other node's threads migrate.
        Case{"Numa01ThreadLocal", "tiny-2n",
             "[[workload]]\ntype='autonumabench'\ntest='NUMA01_THREADLOCAL'\nsize='64MiB'\n"}),
    [](const testing::TestParamInfo<Case>& i) { return std::string(i.param.name); });

}  // namespace
}  // namespace numasim
