// The oracle's figures from hand-made boot logs and runs (no boot).
#include "experiment/oracle_figures.h"

#include <gtest/gtest.h>

#include "kernel/latency.h"
#include "machine/presets.h"

namespace numasim {
namespace {

const OracleFigure& figure(const std::vector<OracleFigure>& f, const std::string& name) {
    for (const auto& x : f)
        if (x.name == name) return x;
    throw std::runtime_error("no figure " + name);
}

OracleBoot boot(int64_t migrated, const std::vector<std::pair<int, int>>& task_nodes) {
    OracleBoot b;
    b.log.vmstat_before = {{"numa_pages_migrated", 10}, {"numa_pte_updates", 0}};
    b.log.vmstat_after = {{"numa_pages_migrated", 10 + migrated}, {"numa_pte_updates", 5}};
    for (auto [node, preferred] : task_nodes)
        b.log.tasks.push_back({{"node", std::to_string(node)},
                               {"numa_preferred_nid", std::to_string(preferred)},
                               {"nr_migrations", "2"},
                               {"numa_pages_migrated", "7"}});
    b.log.regions.push_back(
        {{"process", "p"}, {"name", "buf"}, {"when", "end"}, {"N0", "100"}, {"N1", "28"}});
    b.log.regions.push_back(
        {{"process", "p"}, {"name", "buf"}, {"when", "first_touch"}, {"N0", "128"}, {"N1", "0"}});
    return b;
}

ProcTask task(int node, int preferred, uint64_t nr_migrations, uint64_t migrated, double bytes) {
    ProcTask t;
    t.node = node;
    t.numa_preferred_nid = preferred;
    t.nr_migrations = nr_migrations;
    t.numa_pages_migrated = migrated;
    t.bytes = bytes;
    return t;
}

RunResult run(uint64_t migrated) {
    RunResult r;
    r.counters[Vm::numa_pages_migrated] = migrated;
    // A worker, and a parent that only waited (a microsecond's bytes): only the worker counts.
    r.tasks.push_back(task(1, 1, 3, 5, 1e9));
    r.tasks.push_back(task(0, -1, 1, 0, 1000.0));
    // Two instances' private buffers add up; two mappings of one shared object count once.
    r.regions.push_back({1, "p.0", "buf", 0, {64, 0}});
    r.regions.push_back({2, "p.1", "buf", 1, {0, 64}});
    r.regions.push_back({3, "q", "shm", 2, {10, 0}});
    r.regions.push_back({4, "q", "shm", 2, {30, 2}});
    return r;
}

TEST(OracleFigures, VmstatDeltasTasksAndPages) {
    const Topology m = load_preset("tiny-2n");
    const auto f = oracle_figures({boot(131072, {{1, 1}, {0, 0}}), boot(100000, {{1, 1}, {1, -1}})},
                                  {run(131072)}, m);
    EXPECT_EQ(figure(f, "numa_pages_migrated").real, (std::vector<double>{131072, 100000}));
    EXPECT_EQ(figure(f, "numa_pages_migrated").model, (std::vector<double>{131072}));
    EXPECT_EQ(figure(f, "numa_pte_updates").real, (std::vector<double>{5, 5}));
    EXPECT_EQ(figure(f, "numa_pte_updates").model, (std::vector<double>{0}));
    EXPECT_EQ(figure(f, "tasks: se.nr_migrations").real, (std::vector<double>{4, 4}));
    EXPECT_EQ(figure(f, "tasks: se.nr_migrations").model, (std::vector<double>{3}));
    EXPECT_EQ(figure(f, "tasks ending on node 1").real, (std::vector<double>{1, 2}));
    EXPECT_EQ(figure(f, "tasks ending on node 0").model, (std::vector<double>{0}));
    EXPECT_EQ(figure(f, "tasks preferring no node").real, (std::vector<double>{0, 1}));
    // Only the end-of-run region lines count.
    EXPECT_EQ(figure(f, "p/buf N0").real, (std::vector<double>{100, 100}));
    EXPECT_EQ(figure(f, "p/buf N0").model, (std::vector<double>{64}));
    EXPECT_EQ(figure(f, "p/buf N1").model, (std::vector<double>{64}));
    // A region the guest does not report (the model's own mappings) is left out.
    EXPECT_THROW(figure(f, "q/shm N0"), std::runtime_error);
    // Without boots, the model's regions all count (a shared object once).
    const auto model_only = oracle_figures({}, {run(0)}, m);
    EXPECT_EQ(figure(model_only, "q/shm N0").model, (std::vector<double>{30}));
    EXPECT_EQ(figure(model_only, "q/shm N1").model, (std::vector<double>{2}));
}

// A tiered guest (Topology::hmat) adds the tiering counters and the allocations by zone; the
// model has pgalloc_normal only (every simulated page is in ZONE_NORMAL).
TEST(OracleFigures, TieringCountersOnATieredGuest) {
    Topology m = load_preset("tiny-2n");
    EXPECT_THROW(figure(oracle_figures({boot(1, {})}, {run(1)}, m), "pgpromote_success"),
                 std::runtime_error);
    m.hmat = true;
    OracleBoot b = boot(1, {});
    b.log.vmstat_before.insert(
        {{"pgpromote_success", 5}, {"pgdemote_kswapd", 0}, {"pgalloc_dma32", 100}});
    b.log.vmstat_after.insert(
        {{"pgpromote_success", 4005}, {"pgdemote_kswapd", 300}, {"pgalloc_dma32", 900}});
    RunResult r = run(1);
    r.counters.pgpromote_success = {3000, 0};
    r.counters.pgpromote_candidate = {3100, 0};
    r.counters.pgdemote_kswapd = 250;
    r.counters[Vm::pgalloc] = 700;
    const auto f = oracle_figures({b}, {r}, m);
    EXPECT_EQ(figure(f, "pgpromote_success").real, std::vector<double>{4000});
    EXPECT_EQ(figure(f, "pgpromote_success").model, std::vector<double>{3000});
    EXPECT_EQ(figure(f, "pgpromote_candidate").model, std::vector<double>{3100});
    EXPECT_EQ(figure(f, "pgdemote_kswapd").real, std::vector<double>{300});
    EXPECT_EQ(figure(f, "pgdemote_kswapd").model, std::vector<double>{250});
    EXPECT_EQ(figure(f, "pgdemote_direct").model, std::vector<double>{0});
    EXPECT_EQ(figure(f, "pgalloc_dma32").real, std::vector<double>{800});
    EXPECT_EQ(figure(f, "pgalloc_dma32").model, std::vector<double>{0});
    EXPECT_EQ(figure(f, "pgalloc_normal").model, std::vector<double>{700});
}

TEST(OracleFigures, CallRatesPerTaskFromProbesAndHistograms) {
    const Topology m = load_preset("tiny-2n");
    // The guest: two workload threads over 20 s, with 10 and 30 task_numa_work calls (30 and
    // 90 a minute) and 400 and 0 hinting faults (a thread absent from an armed event's counts
    // made no call); thread 1 is not the workload's.
    OracleBoot b = boot(0, {{0, 0}, {1, 1}});
    b.log.tasks[0]["pid"] = "69";  // the process; the probes count per thread
    b.log.tasks[0]["tid"] = "70";
    b.log.tasks[1]["pid"] = "69";
    b.log.tasks[1]["tid"] = "71";
    b.log.elapsed_s = 20;
    b.log.probe_hits["task_numa_work"] = {{70, 10}, {71, 30}, {1, 1000}};
    b.log.probe_hits["task_numa_fault"] = {{70, 400}};
    // The model: one worker over 10 s with 5 calls (two returned early, events of 0), 30 a
    // minute, and 300 faults; the waiting parent's histogram does not count.
    RunResult r = run(0);
    r.elapsed = 10 * NSEC_PER_SEC;
    r.tasks[0].pid = 100;
    r.tasks[1].pid = 101;
    LatencyHists worker, parent;
    worker.add(LatencyKind::NumaWork, 0, 2);
    worker.add(LatencyKind::NumaWork, 40000, 3);
    worker.add(LatencyKind::HintFault, 2000, 300);
    parent.add(LatencyKind::NumaWork, 0, 50);
    r.latency = {{100, 100, "w", worker}, {101, 101, "p", parent}};
    const auto f = oracle_figures({b}, {r}, m);
    EXPECT_EQ(figure(f, "tasks: task_numa_work calls/min").real, std::vector<double>{120.0});
    EXPECT_EQ(figure(f, "tasks: task_numa_work calls/min").model, std::vector<double>{30.0});
    EXPECT_EQ(figure(f, "median task: task_numa_work calls/min").real, std::vector<double>{60.0});
    EXPECT_EQ(figure(f, "median task: task_numa_work calls/min").model, std::vector<double>{30.0});
    EXPECT_EQ(figure(f, "tasks: hinting faults/s").real, std::vector<double>{20.0});
    EXPECT_EQ(figure(f, "tasks: hinting faults/s").model, std::vector<double>{30.0});
    EXPECT_EQ(figure(f, "median task: hinting faults/s").real, std::vector<double>{10.0});
}

TEST(OracleFigures, NoCallRatesWithoutArmedProbes) {
    const Topology m = load_preset("tiny-2n");
    const auto f = oracle_figures({boot(0, {{0, 0}})}, {run(0)}, m);
    for (const auto& x : f)
        EXPECT_EQ(x.name.find("calls/min"), std::string::npos) << x.name;
}

}  // namespace
}  // namespace numasim
