// The cost model against hand-computed figures of the presets:
//   t_cpu  = 64 / rate - L_local / MLP                  (CPU work per 64-byte line)
//   t_line = t_cpu + sum(share * (hit * L_llc + (1 - hit) * L_node * mult) / MLP)
// tiny-2n: L_local 90 ns, L_remote 140 ns, MLP (line fill buffers) 10, LLC 16 MiB at 20 ns,
// DRAM 60 GB/s per node, link 20.8 GB/s, 2.5 GHz.
#include "cost/cost_model.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "cost/constants.h"
#include "engine/process.h"
#include "kernel/system.h"
#include "machine/presets.h"

namespace numasim {
namespace {

NumaBalancingKnobs off() {
    NumaBalancingKnobs k;
    k.numa_balancing = 0;
    return k;
}

// A task as the cost model sees it: the CPU it runs on and its access mix.
struct Runner {
    int cpu = 0;
    std::vector<AccessStream> streams;
    AccessMix mix;
};

struct CostWorld {
    explicit CostWorld(const std::string& preset) : sys(load_preset(preset), off(), 1) {}

    // A region of `mb` MiB whose pages are all present on `nid` (totals set directly).
    Region& region_on(double mb, int nid) {
        Mm& mm = mm_create(sys);
        Vma& v = do_mmap(sys, mm, static_cast<uint64_t>(mb * (1 << 20)), VM_READ | VM_WRITE, "r");
        Region& r = add_region(sys, v, 0, v.nr_pages(), "r");
        r.node_pages[nid] = r.count;
        r.present = r.count;
        return r;
    }

    // A task running `region` on `cpu` with a sweep (or other pattern) at `rate` GB/s.
    Runner& run_on(int cpu, Region& r, double rate, Pattern pat = Pattern::Sweep, double mlp = 0) {
        runners.push_back(std::make_unique<Runner>());
        Runner& p = *runners.back();
        p.cpu = cpu;
        p.streams.push_back(AccessStream{&r, pat, 1.0, 0.0});
        p.mix = {p.streams, rate, mlp};
        return p;
    }
    // The task on `cpu` stops running.
    void stop(int cpu) {
        std::erase_if(runners, [cpu](const auto& r) { return r->cpu == cpu; });
    }
    void update() {
        std::vector<const AccessMix*> running(sys.nr_cpus(), nullptr);
        for (const auto& r : runners)
            running[r->cpu] = &r->mix;
        sys.cost.update(running);
    }

    double line_ns(const Runner& p) const {
        return sys.cost.ns_per_byte(p.mix, p.cpu) * cost::CACHE_LINE_BYTES;
    }

    System sys;
    std::vector<std::unique_ptr<Runner>> runners;
};

TEST(CostModel, LatencyTableFromThePreset) {
    CostWorld w("tiny-2n");
    EXPECT_DOUBLE_EQ(w.sys.cost.latency_ns(0, 0), 90.0);
    EXPECT_DOUBLE_EQ(w.sys.cost.latency_ns(0, 1), 140.0);
    EXPECT_DOUBLE_EQ(w.sys.cost.latency_ns(1, 0), 140.0);
    EXPECT_DOUBLE_EQ(w.sys.cost.cycles_ns(5000), 2000.0);  // 5000 cycles at 2.5 GHz
    EXPECT_DOUBLE_EQ(w.sys.cost.llc_bytes(), 16.0 * (1 << 20));
    // copy_ns: one core streams 10 lines per latency, a copy at half of it.
    // Local: 640 B / 90 ns = 7.111 GB/s, halved: 4096 B take 1152 ns.
    EXPECT_NEAR(w.sys.cost.copy_ns(4096, 0, 0), 1152.0, 1e-9);
    // refill_ns: the full one-way rate: 640 B / 140 ns; 1 MiB takes 1048576 * 140 / 640 ns.
    EXPECT_NEAR(w.sys.cost.refill_ns(1 << 20, 1, 0), 1048576.0 * 140 / 640, 1e-6);
}

TEST(CostModel, RemoteRegionRunsAtTheRemoteRate) {
    CostWorld w("tiny-2n");
    Region& r = w.region_on(64, 0);   // 64 MiB sweep: larger than the LLC, never hits
    Runner& p = w.run_on(2, r, 1.0);  // CPU 2 is on node 1
    w.update();
    // t_cpu = 64 / 1.0 - 90 / 10 = 55 ns; remote stall 140 / 10 = 14 ns: 69 ns per line.
    const double t_cpu = 64.0 / 1.0 - 90.0 / 10;
    const double nm = w.sys.cost.node_multiplier(0), lm = w.sys.cost.link_multiplier(1, 0);
    // The task's own 0.93 GB/s loads node 0 to 1.5 % and the link to 4.5 %: the loaded-latency
    // curve adds well under 1 %.
    EXPECT_GE(nm, 1.0);
    EXPECT_LT(nm, 1.002);
    EXPECT_GE(lm, 1.0);
    EXPECT_LT(lm, 1.005);
    EXPECT_NEAR(w.line_ns(p), t_cpu + 140.0 * nm * lm / 10, 1e-9);
    const double rate = 64.0 / w.line_ns(p);  // bytes per ns = GB/s
    EXPECT_NEAR(rate, 64.0 / (t_cpu + 140.0 / 10), 0.01 * 64.0 / 69.0);
    EXPECT_NEAR(w.sys.cost.node_utilisation(0), rate / 60.0, 1e-3);
}

TEST(CostModel, LocalRegionRunsAtThePhaseRate) {
    CostWorld w("tiny-2n");
    Region& r = w.region_on(64, 1);
    Runner& p = w.run_on(2, r, 1.0);
    w.update();
    // 55 + 90 / 10 = 64 ns per line: exactly the phase's 1 GB/s, up to the node's small load.
    const double nm = w.sys.cost.node_multiplier(1);
    EXPECT_NEAR(w.line_ns(p), 55.0 + 9.0 * nm, 1e-9);
    EXPECT_NEAR(64.0 / w.line_ns(p), 1.0, 0.002);
    EXPECT_DOUBLE_EQ(w.sys.cost.link_multiplier(1, 0), 1.0);  // no remote traffic
}

TEST(CostModel, MixedPlacementWeightsLatencyByPages) {
    CostWorld w("tiny-2n");
    Region& r = w.region_on(64, 0);
    r.node_pages[0] = r.count / 4;  // a quarter on node 0 (remote for CPU 2)
    r.node_pages[1] = r.count - r.count / 4;
    Runner& p = w.run_on(2, r, 1.0);
    w.update();
    const double nm0 = w.sys.cost.node_multiplier(0), nm1 = w.sys.cost.node_multiplier(1);
    const double lm = w.sys.cost.link_multiplier(1, 0);
    // 55 + (0.25 * 140 * nm0 * lm + 0.75 * 90 * nm1) / 10 = 55 + (35 + 67.5) / 10 unloaded.
    EXPECT_NEAR(w.line_ns(p), 55.0 + (0.25 * 140 * nm0 * lm + 0.75 * 90 * nm1) / 10, 1e-9);
    EXPECT_NEAR(w.line_ns(p), 65.25, 0.05);
}

TEST(CostModel, LlcResidentRegionRunsAtLlcLatency) {
    CostWorld w("tiny-2n");
    Region& r = w.region_on(4, 0);  // 4 MiB: fits in the 16 MiB LLC
    Runner& p = w.run_on(2, r, 1.0);
    w.update();
    // All hits: 55 + 20 / 10 = 57 ns per line, wherever the pages are; no DRAM demand, so the
    // multipliers stay exactly 1.
    EXPECT_DOUBLE_EQ(w.line_ns(p), 57.0);
    EXPECT_DOUBLE_EQ(w.sys.cost.node_multiplier(0), 1.0);
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
    const double nm = w.sys.cost.node_multiplier(1);
    // A sweep larger than its share misses every time: 55 + 9 * nm.
    EXPECT_NEAR(w.line_ns(pa), 55.0 + 9.0 * nm, 1e-9);
    // Random access hits in proportion: 0.8 * 20 + 0.2 * 90 * nm, over MLP 10.
    EXPECT_NEAR(w.line_ns(pb), 55.0 + (0.8 * 20 + 0.2 * 90 * nm) / 10, 1e-9);
    // Alone, either would fit (10 MiB < 16 MiB).
    w.stop(3);
    w.update();
    EXPECT_DOUBLE_EQ(w.line_ns(pa), 57.0);
}

TEST(CostModel, SmtSiblingSlowsCpuWork) {
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
    // Sibling busy: t_cpu * busy / speedup = 56.9167 * 2 / 1.25 = 91.0667; + 1.75 = 92.8167.
    Runner& pb = w.run_on(40, b, 1.0);
    w.update();
    EXPECT_NEAR(w.line_ns(pa), t_cpu * 2 / 1.25 + 1.75, 1e-9);
    EXPECT_NEAR(w.line_ns(pb), 92.8167, 1e-4);
    // A task on another core is not slowed.
    Region& c = w.region_on(1, 0);
    Runner& pc = w.run_on(1, c, 1.0);
    w.update();
    EXPECT_NEAR(w.line_ns(pc), t_cpu + 1.75, 1e-9);
}

TEST(CostModel, BandwidthContentionRaisesTheNodeMultiplier) {
    CostWorld w("tiny-2n");
    // Four streams from node 0's memory with MLP 50 at 30 GB/s: local t_line = 64/30 = 2.133 ns
    // (30 GB/s each), remote 0.333 + 140/50 = 3.133 ns (20.4 GB/s each): ~101 GB/s of demand
    // on a node that sustains 60 GB/s.
    std::vector<Runner*> ts;
    for (int cpu = 0; cpu < 4; ++cpu)
        ts.push_back(&w.run_on(cpu, w.region_on(64, 0), 30.0, Pattern::Sweep, 50));
    const double uncontended = 64.0 / 30;  // CPU 0, local: 0.333 + 90 / 50 ns per line
    w.update();
    EXPECT_GT(w.sys.cost.node_multiplier(0), 1.5);
    EXPECT_DOUBLE_EQ(w.sys.cost.node_multiplier(1), 1.0);  // nothing reads node 1
    EXPECT_GT(w.sys.cost.link_multiplier(1, 0), 1.1);      // 41 GB/s over a 20.8 GB/s link
    EXPECT_DOUBLE_EQ(w.sys.cost.link_multiplier(0, 1), 1.0);
    EXPECT_GT(w.line_ns(*ts[0]), uncontended * 1.2);
    // A single light stream does not.
    CostWorld light("tiny-2n");
    light.run_on(0, light.region_on(64, 0), 0.5);
    light.update();
    EXPECT_LT(light.sys.cost.node_multiplier(0), 1.001);
}

TEST(CostModel, NoStreamsMeansPureCpuRate) {
    CostWorld w("tiny-2n");
    AccessMix none;
    none.rate_gbs = 2.0;
    EXPECT_DOUBLE_EQ(w.sys.cost.ns_per_byte(none, 0), 0.5);
}

}  // namespace
}  // namespace numasim
