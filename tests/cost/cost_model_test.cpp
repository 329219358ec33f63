// The cost model against hand-computed figures of the presets:
//   t_cpu  = 64 / rate - L_local / MLP                  (CPU work per 64-byte line)
//   t_line = t_cpu + sum(share * (hit * L_llc + (1 - hit) * (L_node + Q_path)) / MLP)
// Q_path is the queueing delay of the node's DRAM and the links on the way (bandwidth_test.cpp
// checks the solve itself; cost_bandwidth_test.cpp the limits it enforces).
// tiny-2n: L_local 90 ns, L_remote 140 ns, MLP (line fill buffers) 10, LLC 16 MiB at 20 ns,
// DRAM 60 GB/s per node, link 20.8 GB/s, 2.5 GHz.
#include "cost/cost_model.h"

#include <gtest/gtest.h>

#include "cost/constants.h"
#include "cost_fixture.h"

namespace numasim {
namespace {

using costtest::CostWorld;
using costtest::Runner;

TEST(CostModel, LatencyTableFromThePreset) {
    CostWorld w("tiny-2n");
    EXPECT_DOUBLE_EQ(w.sys.cost.latency_ns(0, 0), 90.0);
    EXPECT_DOUBLE_EQ(w.sys.cost.latency_ns(0, 1), 140.0);
    EXPECT_DOUBLE_EQ(w.sys.cost.latency_ns(1, 0), 140.0);
    EXPECT_DOUBLE_EQ(w.sys.cost.cycles_ns(5000), 2000.0);  // 5000 cycles at 2.5 GHz
    // copy_ns: one core streams 10 lines per latency, a copy at half of it.
    // Local: 640 B / 90 ns = 7.111 GB/s, halved: 4096 B take 1152 ns.
    EXPECT_NEAR(w.sys.cost.copy_ns(4096, 0, 0), 1152.0, 1e-9);
    // Copying into node 1 from node 0 reads at 640 B / 140 ns, halved: 4096 B in 1792 ns.
    EXPECT_NEAR(w.sys.cost.copy_ns(4096, 0, 1), 1792.0, 1e-9);
}

TEST(CostModel, RemoteRegionRunsAtTheRemoteRate) {
    CostWorld w("tiny-2n");
    Region& r = w.region_on(64, 0);   // 64 MiB sweep: larger than the LLC, never hits
    Runner& p = w.run_on(2, r, 1.0);  // CPU 2 is on node 1
    w.update();
    // t_cpu = 64 / 1.0 - 90 / 10 = 55 ns; remote stall (140 + queueing) / 10.
    const double t_cpu = 64.0 - 90.0 / 10;
    const double q = w.sys.cost.path_delay_ns(1, 0);
    // The task's own 0.93 GB/s loads node 0 to 1.5 % and the link to 4.5 %: the queueing delay
    // (knee 9 ns and 5 ns) is well under a nanosecond.
    EXPECT_GT(q, 0.0);
    EXPECT_LT(q, 0.5);
    EXPECT_NEAR(w.line_ns(p), t_cpu + (140.0 + q) / 10, 1e-9);
    const double rate = 64.0 / w.line_ns(p);  // bytes per ns = GB/s
    EXPECT_NEAR(rate, 64.0 / (t_cpu + 140.0 / 10), 0.01 * 64.0 / 69.0);
    EXPECT_NEAR(w.sys.cost.node_utilisation(0), rate / 60.0, 1e-6);
    EXPECT_NEAR(w.sys.cost.link_load_gbs(0, 1), rate, 1e-6);  // data flows node 0 -> node 1
    EXPECT_DOUBLE_EQ(w.sys.cost.link_load_gbs(1, 0), 0.0);    // a read-only stream writes nothing
}

TEST(CostModel, LocalRegionRunsAtThePhaseRate) {
    CostWorld w("tiny-2n");
    Region& r = w.region_on(64, 1);
    Runner& p = w.run_on(2, r, 1.0);
    w.update();
    // 55 + 90 / 10 = 64 ns per line: exactly the phase's 1 GB/s, up to the node's small load.
    const double q = w.sys.cost.node_delay_ns(1);
    EXPECT_NEAR(w.line_ns(p), 55.0 + (90.0 + q) / 10, 1e-9);
    EXPECT_NEAR(64.0 / w.line_ns(p), 1.0, 0.002);
    EXPECT_DOUBLE_EQ(w.sys.cost.link_load_gbs(0, 1), 0.0);  // no remote traffic
}

TEST(CostModel, MixedPlacementWeightsLatencyByPages) {
    CostWorld w("tiny-2n");
    Region& r = w.region_on(64, 0);
    r.node_pages[0] = r.count / 4;  // a quarter on node 0 (remote for CPU 2)
    r.node_pages[1] = r.count - r.count / 4;
    Runner& p = w.run_on(2, r, 1.0);
    w.update();
    const double q0 = w.sys.cost.path_delay_ns(1, 0), q1 = w.sys.cost.path_delay_ns(1, 1);
    // 55 + (0.25 * 140 + 0.75 * 90) / 10 = 55 + (35 + 67.5) / 10 unloaded.
    EXPECT_NEAR(w.line_ns(p), 55.0 + (0.25 * (140 + q0) + 0.75 * (90 + q1)) / 10, 1e-9);
    EXPECT_NEAR(w.line_ns(p), 65.25, 0.05);
}

TEST(CostModel, LlcResidentRegionRunsAtLlcLatency) {
    CostWorld w("tiny-2n");
    Region& r = w.region_on(4, 0);  // 4 MiB: fits in the 16 MiB LLC
    Runner& p = w.run_on(2, r, 1.0);
    w.update();
    // All hits: 55 + 20 / 10 = 57 ns per line, wherever the pages are; no DRAM demand, so there
    // is no queueing anywhere.
    EXPECT_DOUBLE_EQ(w.line_ns(p), 57.0);
    EXPECT_DOUBLE_EQ(w.sys.cost.node_delay_ns(0), 0.0);
    EXPECT_DOUBLE_EQ(w.sys.cost.node_utilisation(0), 0.0);
}

TEST(CostModel, CoRunnersShareTheLlc) {
    CostWorld w("tiny-2n");
    // Two 10 MiB regions on the LLC of node 1 (CPUs 2 and 3): 20 MiB of footprint > 16 MiB,
    // each region keeps 16/20 of itself = 8 MiB cached.
    Region& a = w.region_on(10, 1);
    Region& b = w.region_on(10, 1);
    Runner& pa = w.run_on(2, a, 1.0, Pattern::Sweep);
    Runner& pb = w.run_on(3, b, 1.0, Pattern::Random);
    w.update();
    const double q = w.sys.cost.node_delay_ns(1);
    // A sweep larger than its share misses every time: 55 + (90 + q) / 10.
    EXPECT_NEAR(w.line_ns(pa), 55.0 + (90.0 + q) / 10, 1e-9);
    // Random access hits in proportion: 0.8 * 20 + 0.2 * (90 + q), over MLP 10.
    EXPECT_NEAR(w.line_ns(pb), 55.0 + (0.8 * 20 + 0.2 * (90 + q)) / 10, 1e-9);
    // Alone, either would fit (10 MiB < 16 MiB).
    w.stop(3);
    w.update();
    EXPECT_DOUBLE_EQ(w.line_ns(pa), 57.0);
}

TEST(CostModel, SmtSiblingsShareCpuWorkAndFillBuffers) {
    // cascadelake-2s: L_local 85 ns, MLP 12, LLC 27.5 MiB at 21 ns, smt_core_speedup 1.25.
    CostWorld w("cascadelake-2s");
    const auto sib = w.sys.topo.smt_siblings(0);
    ASSERT_EQ(sib.size(), 2u);
    ASSERT_EQ(sib[1], 40);  // siblings-last numbering
    Region& a = w.region_on(1, 0);
    Region& b = w.region_on(1, 0);
    Runner& pa = w.run_on(0, a, 1.0);
    w.update();
    // Alone: t_cpu = 64 - 85 / 12 = 56.9167; LLC hit 21 / 12 = 1.75: 58.6667 ns per line.
    const double t_cpu = 64.0 - 85.0 / 12;
    EXPECT_NEAR(w.line_ns(pa), t_cpu + 1.75, 1e-9);
    // Sibling busy: t_cpu * busy / speedup = 56.9167 * 2 / 1.25 = 91.0667, and the 12 fill
    // buffers are split, 6 each: the hit costs 21 / 6 = 3.5; 94.5667 ns per line.
    Runner& pb = w.run_on(40, b, 1.0);
    w.update();
    EXPECT_NEAR(w.line_ns(pa), t_cpu * 2 / 1.25 + 3.5, 1e-9);
    EXPECT_NEAR(w.line_ns(pb), 94.5667, 1e-4);
    // A task on another core is not slowed.
    Region& c = w.region_on(1, 0);
    Runner& pc = w.run_on(1, c, 1.0);
    w.update();
    EXPECT_NEAR(w.line_ns(pc), t_cpu + 1.75, 1e-9);
}

TEST(CostModel, NoStreamsMeansPureCpuRate) {
    CostWorld w("tiny-2n");
    AccessMix none;
    none.rate_gbs = 2.0;
    EXPECT_DOUBLE_EQ(w.sys.cost.ns_per_byte(none, 0), 0.5);
}

}  // namespace
}  // namespace numasim
