// Placement policies through a scenario (docs/placement-policies.md): a numactl binding puts
// pages and tasks where it says for the whole run; mainline, numactl and the kernel with its
// placement switches off differ as their descriptions say; bad input names the key.
#include <gtest/gtest.h>

#include <algorithm>

#include "config/input_error.h"
#include "engine/engine.h"
#include "engine/process.h"
#include "engine/sampler.h"
#include "experiment/run.h"
#include "experiment/scenario.h"
#include "kernel/system.h"
#include "mm/vma.h"
#include "support/policy_run.h"
#include "workload/workload.h"

namespace numasim {
namespace {

// Two instances of a two-thread process on tiny-2n (CPUs 0-1 node 0, 2-3 node 1), each thread
// sweeping its own half of a private 64 MiB region (16384 pages) that its threads first touch.
constexpr const char* kTwoProcesses = R"(
[scenario]
machine = "tiny-2n"
duration = "1s"
policy = "numactl"
[policy.numactl]
processes = ["--cpunodebind=1 --membind=1", "--cpunodebind=0 --interleave=all"]
[[workload]]
type = "streams"
[[workload.process]]
name = "p"
count = 2
threads = 2
[[workload.process.region]]
name = "data"
size = "64MiB"
[[workload.process.thread]]
count = 2
loop = true
phases = [ { streams = [ { region = "data", write_fraction = 1.0, per_thread = true } ], rate_gbs = 4.0, cpu_time = "100ms" } ]
)";

// Every task of process `tgid_rank` (0: the first started) on a CPU of `node` at every tick.
class CpusetCheck : public Sampler {
  public:
    Nanos interval() const override { return 1; }  // every tick
    void sample(const System& sys) override {
        for (const auto& t : sys.tasks) {
            if (t->exiting()) continue;
            const int rank = t->mm == sys.tasks.front()->mm ? 0 : 1;
            const int want = rank == 0 ? 1 : 0;  // the bindings' --cpunodebind
            if (sys.task_node(*t) != want) ++outside;
            ++samples;
        }
    }
    long samples = 0, outside = 0;
};

TEST(PlacementPolicy, NumactlBindingsHoldForTheWholeRun) {
    test::PolicyRun r(kTwoProcesses, "two.toml");
    System& sys = r.sys;
    Engine engine(sys);
    CpusetCheck check;
    engine.add_sampler(check);
    engine.run(r.sc.duration);
    EXPECT_GE(check.samples, 1000);  // four tasks at each of a second's 250 ticks
    EXPECT_EQ(check.outside, 0);

    ASSERT_EQ(sys.mms.size(), 2u);
    // Process 0, --membind=1: every page on node 1, and no hinting fault (MPOL_BIND without
    // MPOL_F_NUMA_BALANCING makes its VMAs unsuitable for NUMA balancing).
    // Process 1, --interleave=all: 8192 pages on each node.
    const int first = sys.tasks.front()->tgid;
    for (const auto& mm : sys.mms) {
        const bool bound = mm->tasks.front()->tgid == first;
        const Region* data = find_region(*mm, "data");
        ASSERT_NE(data, nullptr);
        ASSERT_EQ(data->present, 16384u);
        EXPECT_EQ(data->pages_on(0), bound ? 0u : 8192u);
        EXPECT_EQ(data->pages_on(1), bound ? 16384u : 8192u);
        for (const Task* t : mm->tasks) {
            EXPECT_EQ(t->numa_hint_faults, 0u) << t->comm;
            EXPECT_EQ(t->nr_cpus_allowed, 2);
        }
    }
}

// One process, memory first touched on node 0 by its main thread, then four threads (two per
// node under mainline) each writing its own quarter: NUMA01_THREADLOCAL's shape.
constexpr const char* kThreadLocal = R"(
[scenario]
machine = "tiny-2n"
duration = "12s"
[policy.numactl]
processes = ["--cpunodebind=0"]
[[workload]]
type = "streams"
[[workload.process]]
name = "tl"
threads = 4
[[workload.process.region]]
name = "buffer"
size = "512MiB"
first_touch = "node:0"
[[workload.process.thread]]
count = 4
phases = [ { streams = [ { region = "buffer", write_fraction = 1.0, per_thread = true } ], rate_gbs = 4.0, cpu_time = "10s" } ]
)";

RunResult run_with(const std::vector<std::string>& overrides) {
    ScenarioOverrides ov;
    for (const auto& o : overrides)
        ov.push_back(parse_override(o, "--param " + o));
    return run_once(load_scenario_text(kThreadLocal, "tl.toml", ov), 1);
}

TEST(PlacementPolicy, MainlineNumactlAndPlacementSwitchedOff) {
    const RunResult mainline = run_with({});
    const RunResult bound = run_with({"policy=numactl"});
    const RunResult off = run_with({"numa_preferred_nid=false", "numa_task_migrate=false",
                                    "numa_groups=false", "numa_scan_adapt=false"});
    // Mainline: the node-1 threads' quarters move to node 1, and tasks get a preferred node.
    EXPECT_GT(mainline.counters[Vm::numa_pages_migrated], 10000u);
    EXPECT_TRUE(std::any_of(mainline.tasks.begin(), mainline.tasks.end(),
                            [](const ProcTask& t) { return t.numa_preferred_nid >= 0; }));
    // numactl --cpunodebind=0: every thread runs on node 0, where the memory already is, so the
    // hinting faults are all local and nothing migrates.
    EXPECT_GT(bound.counters[Vm::numa_hint_faults], 0u);
    EXPECT_EQ(bound.counters[Vm::numa_hint_faults_local], bound.counters[Vm::numa_hint_faults]);
    EXPECT_EQ(bound.counters[Vm::numa_pages_migrated], 0u);
    for (const ProcTask& t : bound.tasks)
        EXPECT_EQ(t.node, 0) << t.comm;
    // The scheduler side off (AutoNUMA "account-only"): pages still migrate on fault toward
    // wherever the load balancer put the threads, but no task has a preferred node and none is
    // moved or swapped by NUMA balancing.
    EXPECT_GT(off.counters[Vm::numa_pages_migrated], 0u);
    EXPECT_EQ(off.counters.sched_move_numa + off.counters.sched_swap_numa, 0u);
    for (const ProcTask& t : off.tasks)
        EXPECT_EQ(t.numa_preferred_nid, -1) << t.comm;
}

std::string input_error(std::string_view text, const ScenarioOverrides& ov = {}) {
    try {
        load_scenario_text(text, "bad.toml", ov);
    } catch (const InputError& e) {
        return e.file() + ": " + e.where() + ": " + e.problem();
    }
    return "accepted";
}

TEST(PlacementPolicy, BadInputNamesTheKey) {
    const std::string base = "[scenario]\nmachine = \"tiny-2n\"\n[[workload]]\ntype = \"cowsum\"\n";
    EXPECT_EQ(input_error(base, {parse_override("policy=nosuch", "-V x:policy=nosuch")}),
              "-V x:policy=nosuch: scenario.policy: unknown policy 'nosuch' (known: "
              "autonuma-2012, ibs, mainline, numactl, numad)");
    EXPECT_EQ(input_error(base, {parse_override("policy=numactl", "-V b:policy=numactl")})
                  .rfind("-V b:policy=numactl: scenario.policy: policy numactl needs", 0),
              0u);
    const std::string line = input_error(base + "[policy.numactl]\nprocesses = [\"-N0 -m 0,2\"]\n");
    EXPECT_NE(line.find("policy.numactl.processes (line 6)"), std::string::npos) << line;
    EXPECT_NE(line.find("\"-N0 -m 0,2\": -m: <0,2> is invalid: node argument 2 is out of range"),
              std::string::npos)
        << line;
    EXPECT_NE(input_error(base + "[policy.nosuch]\nx = 1\n").find("unknown policy 'nosuch'"),
              std::string::npos);
    EXPECT_NE(input_error(base + "[policy.mainline]\nx = 1\n").find("unknown key"),
              std::string::npos);
}

}  // namespace
}  // namespace numasim
