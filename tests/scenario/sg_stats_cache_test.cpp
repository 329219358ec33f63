// The sched-group sums cache (sched/sg_stats_cache.h) changes no scheduling decision: the same
// workload run with and without it ends in the same state, task by task and counter by counter,
// for the balancer of v5.5+ and the one before it. The runs check every invariant at the end,
// which includes every valid cache entry against its recomputed sums.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "engine/engine.h"
#include "kernel/invariants.h"
#include "kernel/system.h"
#include "machine/presets.h"
#include "numab/profile.h"
#include "same_outcome.h"

namespace numasim {
namespace {

// Two JVMs of 8 warehouses each, with their GC and service threads, on the 48 CPUs of a
// 2-socket Haswell (SMT, MC and NUMA levels): threads sleep and wake all the time, so CPUs go
// idle and balance (newidle) at every level, and busy ones balance at their intervals.
constexpr const char* kSpecjbb =
    "[[workload]]\ntype='specjbb2005'\nlayout='per_socket'\nwarehouses=8\nheap='128MiB'\n"
    "ramp_up='100ms'\nduration='1s'\n";

struct Outcome {
    std::vector<uint64_t> counters;
    std::vector<std::vector<int64_t>> tasks;  // per task: cpu, state, switches, runtime, ...
    uint64_t hits = 0, misses = 0;
};

Outcome run(const std::string& profile, bool cache) {
    System sys(load_preset("haswell-2s"), load_profile(profile), 3);
    const auto workloads = sametest::setup_workloads(sys, kSpecjbb);
    Engine eng(sys);
    eng.set_sg_stats_cache(cache);
    eng.set_check_invariants(true);
    eng.run(msecs_to_ns(1200));
    Outcome o;
    o.counters = sametest::counters(sys);
    for (const auto& p : sys.tasks)
        o.tasks.push_back({p->cpu, static_cast<int64_t>(p->state), static_cast<int64_t>(p->nvcsw),
                           static_cast<int64_t>(p->nivcsw), p->sum_exec_runtime,
                           static_cast<int64_t>(p->nr_migrations), p->numa_preferred_nid});
    o.hits = sys.sg_cache.hits();
    o.misses = sys.sg_cache.misses();
    return o;
}

class SgStatsCacheTest : public testing::TestWithParam<std::string> {};

TEST_P(SgStatsCacheTest, SameDecisionsAsRecomputing) {
    const Outcome with = run(GetParam(), true);
    const Outcome without = run(GetParam(), false);
    // The cache was used, and used again between changes; off, it was never touched.
    EXPECT_GT(with.hits, 0u);
    EXPECT_GT(with.misses, 0u);
    EXPECT_EQ(without.hits + without.misses, 0u);
    // Tasks moved between CPUs, so the balancer had decisions to make.
    int64_t migrations = 0;
    for (const auto& t : with.tasks)
        migrations += t[5];
    EXPECT_GT(migrations, 0);
    EXPECT_EQ(with.counters, without.counters);
    EXPECT_EQ(with.tasks, without.tasks);
}

INSTANTIATE_TEST_SUITE_P(Balancers, SgStatsCacheTest, testing::Values("v6.12", "v4.19"));

}  // namespace
}  // namespace numasim
