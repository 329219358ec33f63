// The ibs policy (docs/placement-policies.md, "ibs"): sampled accesses instead of PTE scanning.
// Worked by hand: a step's samples cost an NMI and a sample's handling each; placement runs
// every access_faults_threshold samples and adapts the sample period as the posting says. In a
// scenario, memory first touched on node 0 and used from node 1 moves to node 1 with no PTE
// made PROT_NONE, and runs repeat bit for bit.
#include <gtest/gtest.h>

#include <vector>

#include "config/input_error.h"
#include "engine/engine.h"
#include "experiment/run.h"
#include "experiment/scenario.h"
#include "kernel/system.h"
#include "mm/vma.h"
#include "support/policy_run.h"
#include "workload/workload.h"

namespace numasim {
namespace {

// tiny-2n (CPUs 0-1 node 0, 2-3 node 1). The main thread, bound to node 0, writes 128 MiB
// (32768 base pages); its one worker, on node 1, then writes random lines of it at 4 GB/s.
std::string scenario(const std::string& policy, const std::string& extra = "") {
    return R"(
[scenario]
machine = "tiny-2n"
duration = "4s"
policy = ")" +
           policy + R"("
)" + extra +
           R"(
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
phases = [ { affinity = "node:1", streams = [ { region = "data", pattern = "random", write_fraction = 1.0 } ], rate_gbs = 4.0, cpu_time = "100ms" } ]
)";
}

// A run of the ibs scenario set up, not yet run.
struct IbsRun : test::PolicyRun {
    explicit IbsRun(const std::string& text) : PolicyRun(text, "ibs.toml") {}
};

TEST(Ibs, EachSampleCostsAnNmiAndItsHandling) {
    IbsRun s(scenario("ibs", "[policy.ibs]\naccess_faults_delay_ms = 0\nnmi_ns = 700\n"));
    const PlacementPolicy& pol = *s.sc.placement;
    ASSERT_TRUE(pol.has(PlacementPolicy::kNumaScan));
    ASSERT_TRUE(pol.has(PlacementPolicy::kNumaPlacement));
    Task& t = *s.sys.tasks.front();
    ASSERT_TRUE(t.mm);
    // 35,000 misses at the default period of 10,000: three samples; no stream says where they
    // went, so each costs only its NMI (700 ns) and its handling (5000 cycles).
    const std::vector<AccessStream> none;
    const std::vector<uint64_t> pos;
    const double each = 700 + s.sys.cost.cycles_ns(5000);
    EXPECT_DOUBLE_EQ(pol.numa_scan(s.sys, t, UserStep{0, 1e6, 35000, none, pos}), 3 * each);
    // The half sample left over completes with the next step's 5,000 misses.
    EXPECT_DOUBLE_EQ(pol.numa_scan(s.sys, t, UserStep{0, 1e6, 5000, none, pos}), each);
    EXPECT_DOUBLE_EQ(pol.numa_scan(s.sys, t, UserStep{0, 1e6, 9000, none, pos}), 0.0);
}

TEST(Ibs, NothingIsSampledBeforeTheAddressSpacesDelay) {
    IbsRun s(scenario("ibs"));  // access_faults_delay_ms = 1000
    Task& t = *s.sys.tasks.front();
    const std::vector<AccessStream> none;
    const std::vector<uint64_t> pos;
    EXPECT_EQ(s.sc.placement->numa_scan(s.sys, t, UserStep{0, 1e6, 1e6, none, pos}), 0.0);
    s.sys.now = NSEC_PER_SEC;  // the delay has passed: 100 samples
    EXPECT_GT(s.sc.placement->numa_scan(s.sys, t, UserStep{0, 1e6, 1e6, none, pos}), 0.0);
}

TEST(Ibs, PlacementEveryThresholdSamplesAndThePeriodAdaptsAsPosted) {
    IbsRun s(scenario("ibs", "[policy.ibs]\naccess_faults_threshold = 4\n"));
    const PlacementPolicy& pol = *s.sc.placement;
    Task& t = *s.sys.tasks.front();
    // A pass at every fourth call; early life lasts 4 x 4 calls.
    for (int i = 1; i <= 16; ++i) {
        EXPECT_TRUE(pol.numa_early_life(s.sys, t)) << i;
        EXPECT_EQ(pol.numa_placement_due(s.sys, t), i % 4 == 0) << i;
    }
    EXPECT_FALSE(pol.numa_early_life(s.sys, t));
    EXPECT_EQ(pol.numa_retry_period_ms(s.sys, t), 10000u);
    // 90 local and 10 remote faults, all private: ps_ratio 10 >= 7, so the period grows by
    // (10 - 7) slots of 10000 / 10: 13000.
    t.numa_faults_locality[0] = 10;
    t.numa_faults_locality[1] = 90;
    t.numa_faults_locality[2] = 0;
    pol.numa_placement_done(s.sys, t, 0, 100);
    EXPECT_EQ(pol.numa_retry_period_ms(s.sys, t), 13000u);
    EXPECT_EQ(t.numa_faults_locality[1], 0u);  // reset after an adjustment
    // 2 local, 8 remote, 5 shared, 5 private: both ratios below 7; the larger (5) is 2 slots
    // short: 13000 - 2 * 1300 = 10400.
    t.numa_faults_locality[0] = 8;
    t.numa_faults_locality[1] = 2;
    pol.numa_placement_done(s.sys, t, 5, 5);
    EXPECT_EQ(pol.numa_retry_period_ms(s.sys, t), 10400u);
    // A failed migration doubles it, up to sample_period_max (20000).
    t.numa_faults_locality[2] = 1;
    pol.numa_placement_done(s.sys, t, 5, 5);
    EXPECT_EQ(pol.numa_retry_period_ms(s.sys, t), 20000u);
}

TEST(Ibs, MemoryUsedFromTheOtherNodeMovesThereWithNoPteMadeProtNone) {
    const Scenario sc = load_scenario_text(scenario("ibs"), "ibs.toml");
    const RunResult r = run_once(sc, sc.seed, nullptr, RunLabel{});
    EXPECT_EQ(r.counters[Vm::numa_pte_updates], 0u);
    EXPECT_EQ(r.counters[Vm::numa_huge_pte_updates], 0u);
    // Every sample is counted as a hinting fault, as the posting's kernel counts them.
    EXPECT_GT(r.counters[Vm::numa_hint_faults], 1000u);
    // Samples on node-0 pages from node 1, early in the worker's life, migrate their page.
    EXPECT_GT(r.counters[Vm::numa_pages_migrated], 1000u);
    EXPECT_LE(r.counters[Vm::numa_pages_migrated], r.counters[Vm::numa_hint_faults]);
    // The same run again: the same counts.
    const RunResult again = run_once(sc, sc.seed, nullptr, RunLabel{});
    EXPECT_EQ(again.counters[Vm::numa_hint_faults], r.counters[Vm::numa_hint_faults]);
    EXPECT_EQ(again.counters[Vm::numa_pages_migrated], r.counters[Vm::numa_pages_migrated]);
    // Mainline takes its hinting faults on PTEs it made PROT_NONE.
    const Scenario ml = load_scenario_text(scenario("mainline"), "ml.toml");
    EXPECT_GT(run_once(ml, ml.seed, nullptr, RunLabel{}).counters[Vm::numa_pte_updates], 0u);
}

TEST(Ibs, BadParametersNameTheirKey) {
    EXPECT_THROW(IbsRun(scenario("ibs", "[policy.ibs]\nsample_period_def = 0\n")), InputError);
    EXPECT_THROW(IbsRun(scenario("ibs", "[policy.ibs]\nsample_period_min = 30000\n")), InputError);
    EXPECT_THROW(IbsRun(scenario("ibs", "[policy.ibs]\nnmi_ns = -1\n")), InputError);
    EXPECT_THROW(IbsRun(scenario("ibs", "[policy.ibs]\nperiod = 1\n")), InputError);
    try {
        IbsRun(scenario("ibs", "[policy.ibs]\nsample_period_min = 30000\n"));
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("sample_period_min"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace numasim
