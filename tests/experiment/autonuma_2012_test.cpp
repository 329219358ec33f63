// The autonuma-2012 policy (docs/placement-policies.md, "autonuma-2012"): v3.8's migrate-on-fault
// with the two-stage filter, by hand, and in a scenario memory first touched on node 0 and used
// from node 1 moves there while no task gets a preferred node or is moved for NUMA (mainline,
// on the same scenario, does both).
#include <gtest/gtest.h>

#include <vector>

#include "config/input_error.h"
#include "engine/engine.h"
#include "experiment/scenario.h"
#include "kernel/system.h"
#include "machine/presets.h"
#include "mm/cpupid.h"
#include "policy/registry.h"
#include "support/policy_run.h"
#include "workload/workload.h"

namespace numasim {
namespace {

// tiny-2n (CPUs 0-1 node 0, 2-3 node 1). The main thread, bound to node 0, writes 128 MiB; its
// one worker, on node 1 but free to move, then writes random lines of it.
std::string scenario(const std::string& policy) {
    return R"(
[scenario]
machine = "tiny-2n"
duration = "6s"
policy = ")" +
           policy + R"("
[[workload]]
type = "streams"
[[workload.process]]
name = "p"
threads = 1
[[workload.process.region]]
name = "data"
size = "128MiB"
[workload.process.main]
before = [ { affinity = "node:0", policy = "bind", nodes = [0], streams = [ { region = "data", write_fraction = 1.0 } ], rate_gbs = 10.0, work = "128MiB" }, { affinity = "all", policy = "default" } ]
[[workload.process.thread]]
loop = true
phases = [ { affinity = "node:1", streams = [ { region = "data", pattern = "random", write_fraction = 1.0 } ], rate_gbs = 4.0, cpu_time = "100ms" }, { affinity = "all", cpu_time = "100ms" } ]
)";
}

// The scenario run for its whole duration.
struct PolicyRun : test::PolicyRun {
    explicit PolicyRun(const std::string& text) : test::PolicyRun(text, "a.toml") { run(); }
};

// page_xchg_last_nid(): a fault from CPU 2 (node 1) on a node-0 page migrates it to node 1 only
// if the fault before came from node 1 too; not after one from node 0, nor on a page never
// faulted, nor where the memory policy does not allow node 1.
TEST(Autonuma2012, TheTwoStageFilterMigratesOnTheSecondFaultFromANode) {
    const Topology m = load_preset("tiny-2n");
    const auto pol = find_policy("autonuma-2012")->factory(nullptr, m);
    EXPECT_TRUE(pol->has(PlacementPolicy::kNumaFault));
    EXPECT_TRUE(pol->has(PlacementPolicy::kNumaPlacement));
    EXPECT_FALSE(pol->has(PlacementPolicy::kNumaScan));
    PolicyRun r(scenario("mainline"));
    Task& t = *r.sys.tasks.front();
    NumaFaultInfo f{};
    f.page_nid = 0;
    f.cpu = 2;
    f.allowed_nodes = 0x3;
    f.last_cpupid = cpu_pid_to_cpupid(3, 7);  // node 1, another task: still node 1
    EXPECT_EQ(pol->numa_fault(r.sys, t, f), 1);
    f.last_cpupid = cpu_pid_to_cpupid(1, 7);  // node 0
    EXPECT_EQ(pol->numa_fault(r.sys, t, f), NUMA_NO_NODE);
    f.last_cpupid = CPUPID_UNSET;
    EXPECT_EQ(pol->numa_fault(r.sys, t, f), NUMA_NO_NODE);
    f.last_cpupid = cpu_pid_to_cpupid(2, 7);
    f.allowed_nodes = 0x1;
    EXPECT_EQ(pol->numa_fault(r.sys, t, f), NUMA_NO_NODE);
    EXPECT_FALSE(pol->numa_placement_due(r.sys, t));
}

TEST(Autonuma2012, PagesFollowTheFaultsAndNoTaskIsPlaced) {
    PolicyRun a(scenario("autonuma-2012"));
    EXPECT_GT(a.sys.counters[Vm::numa_hint_faults], 0u);
    EXPECT_GT(a.sys.counters[Vm::numa_pages_migrated], 1000u);
    for (const auto& t : a.sys.tasks) {
        EXPECT_EQ(t->numa_preferred_nid, NUMA_NO_NODE) << t->comm;
        EXPECT_EQ(t->numa_task_migrations, 0u) << t->comm;
    }
    // The kernel's own loop on the same run prefers a node for the worker.
    PolicyRun m(scenario("mainline"));
    int preferred = 0;
    for (const auto& t : m.sys.tasks)
        preferred += t->numa_preferred_nid != NUMA_NO_NODE;
    EXPECT_GT(preferred, 0);
}

TEST(Autonuma2012, ItsTableTakesNoKeys) {
    try {
        load_scenario_text(scenario("autonuma-2012") + "[policy.autonuma-2012]\nrate = 1\n",
                           "a.toml");
        FAIL();
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("rate"), std::string::npos);
    }
}

}  // namespace
}  // namespace numasim
