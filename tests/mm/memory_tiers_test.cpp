// Memory tiers and demotion targets (mm/memory_tiers.h), worked by hand on small machines: the
// three examples of mm/memory-tiers.c's comment, DRAM + CXL, a DRAM-only machine, equal-distance
// targets, and the abstract distances mt_perf_to_adistance gives from HMAT figures.
#include "mm/memory_tiers.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "machine/machine_file.h"
#include "machine/presets.h"
#include "sched/task.h"

namespace numasim {
namespace {

using Nodes = std::vector<int>;

// `cpu_nodes` nodes with one CPU and 1 GiB of DRAM each, then the given [[memory_node]] tables;
// local DRAM at 100 ns and 100 GB/s.
Topology machine(int cpu_nodes, const std::string& memory_nodes, const std::string& distance,
                 bool hmat = false) {
    std::string text = "[machine]\nname = \"t\"\ndistance = " + distance + "\n";
    text += hmat ? "hmat = true\n" : "";
    for (int n = 0; n < cpu_nodes; ++n)
        text += "[[node]]\nmemory = \"1GiB\"\ncpus = [" + std::to_string(n) + "]\n";
    text += memory_nodes;
    text += R"(
[hardware]
latency_ns = { 10 = 100.0 }
dram_bandwidth_gbs = 100.0
link_bandwidth_gbs = 50.0
llc_mb = 8
llc_latency_ns = 15
line_fill_buffers = 10
smt_core_speedup = 1.0
cpu_ghz = 2.0
)";
    return load_machine_text(text, "t.toml");
}

std::string memory_node(const std::string& kind, double latency_ns, double bandwidth_gbs) {
    std::string s = "[[memory_node]]\nmemory = \"4GiB\"\nkind = \"" + kind + "\"\n";
    if (latency_ns > 0) s += "latency_ns = " + std::to_string(latency_ns) + "\n";
    if (bandwidth_gbs > 0) s += "bandwidth_gbs = " + std::to_string(bandwidth_gbs) + "\n";
    return s;
}

const std::string kPmem = memory_node("pmem", 300, 40);

Nodes tier_nodes(const MemoryTiers& mt, int id) {
    for (const MemoryTier& t : mt.tiers)
        if (t.id() == id) return t.nodes;
    return {};
}

Nodes preferred(const MemoryTiers& mt, int nid) {
    return mt.node_demotion[static_cast<size_t>(nid)].preferred;
}

TEST(MemoryTiers, KernelConstants) {
    EXPECT_EQ(MEMTIER_CHUNK_SIZE, 128);
    EXPECT_EQ(MEMTIER_ADISTANCE_DRAM, 576);          // memory_tier4
    EXPECT_EQ(MEMTIER_DEFAULT_DAX_ADISTANCE, 2880);  // memory_tier22
}

TEST(MemoryTiers, KernelOfRelease) {
    EXPECT_EQ(memtier_kernel_of_release("v4.18"), MemtierKernel::kNone);
    EXPECT_EQ(memtier_kernel_of_release("v4.19"), MemtierKernel::kNone);
    EXPECT_EQ(memtier_kernel_of_release("v6.0"), MemtierKernel::kNone);
    EXPECT_EQ(memtier_kernel_of_release("v6.1"), MemtierKernel::kFixed);
    EXPECT_EQ(memtier_kernel_of_release("v6.6"), MemtierKernel::kFixed);
    EXPECT_EQ(memtier_kernel_of_release("v6.12"), MemtierKernel::kHmat);
    EXPECT_EQ(memtier_kernel_of_release("v7.0"), MemtierKernel::kHmat);
    EXPECT_EQ(memtier_kernel_of_release("garbage"), MemtierKernel::kNone);
}

// memory-tiers.c, example 1: nodes 0 and 1 are CPU + DRAM, 2 and 3 PMEM (dax/kmem); each DRAM
// node demotes to the PMEM node nearest it.
TEST(MemoryTiers, TwoDramTwoPmem) {
    const Topology t =
        machine(2, kPmem + kPmem,
                "[[10, 20, 30, 40], [20, 10, 40, 30], [30, 40, 10, 40], [40, 30, 40, 10]]");
    const MemoryTiers mt = establish_memory_tiers(t, MemtierKernel::kFixed);
    ASSERT_EQ(mt.tiers.size(), 2u);
    EXPECT_EQ(tier_nodes(mt, 4), (Nodes{0, 1}));
    EXPECT_EQ(tier_nodes(mt, 22), (Nodes{2, 3}));
    EXPECT_EQ(mt.adistance, (std::vector<int>{576, 576, 2880, 2880}));
    EXPECT_EQ(preferred(mt, 0), (Nodes{2}));
    EXPECT_EQ(preferred(mt, 1), (Nodes{3}));
    EXPECT_TRUE(preferred(mt, 2).empty());
    EXPECT_TRUE(preferred(mt, 3).empty());
    EXPECT_EQ(mt.tiers[0].lower_tier_mask, (Nodes{2, 3}));  // the fallback
    EXPECT_TRUE(mt.tiers[1].lower_tier_mask.empty());
    EXPECT_EQ(mt.top_tier_adistance, 512 + 127);
    EXPECT_TRUE(mt.node_is_toptier(0));
    EXPECT_TRUE(mt.node_is_toptier(1));
    EXPECT_FALSE(mt.node_is_toptier(2));
    EXPECT_FALSE(mt.node_is_toptier(3));
    EXPECT_EQ(mt.next_demotion_node(0, 12345), 2);
    EXPECT_EQ(mt.next_demotion_node(2, 12345), NUMA_NO_NODE);
    EXPECT_EQ(memory_tiers_text(mt),
              "memory tiers: as v6.1 to v6.6 form them: dax/kmem nodes at "
              "MEMTIER_DEFAULT_DAX_ADISTANCE\n"
              "/sys/devices/virtual/memory_tiering/memory_tier4/nodelist: 0-1\n"
              "/sys/devices/virtual/memory_tiering/memory_tier22/nodelist: 2-3\n"
              "/sys/kernel/mm/numa/demotion_enabled: false\n"
              "Demotion targets for Node 0: preferred: 2, fallback: 2-3\n"
              "Demotion targets for Node 1: preferred: 3, fallback: 2-3\n"
              "Demotion targets for Node 2: null\n"
              "Demotion targets for Node 3: null\n"
              "node 0 adistance 576, memory_tier4, top tier\n"
              "node 1 adistance 576, memory_tier4, top tier\n"
              "node 2 adistance 2880, memory_tier22, slow tier\n"
              "node 3 adistance 2880, memory_tier22, slow tier\n");
}

// memory-tiers.c, example 2: a CPU-less node of plain DRAM (qemu's memdev node without cpus) is
// boot memory of the default DRAM type: one tier, no demotion.
TEST(MemoryTiers, CpuLessDramNodeJoinsTheDramTier) {
    const Topology t =
        machine(2, memory_node("dram", 0, 0), "[[10, 20, 30], [20, 10, 30], [30, 30, 10]]");
    for (MemtierKernel k : {MemtierKernel::kFixed, MemtierKernel::kHmat}) {
        const MemoryTiers mt = establish_memory_tiers(t, k);
        ASSERT_EQ(mt.tiers.size(), 1u);
        EXPECT_EQ(tier_nodes(mt, 4), (Nodes{0, 1, 2}));
        for (int n = 0; n < 3; ++n) {
            EXPECT_TRUE(preferred(mt, n).empty()) << n;
            EXPECT_TRUE(mt.node_is_toptier(n)) << n;
        }
    }
}

// The same node onlined through dax/kmem (a qemu NVDIMM reconfigured to system RAM) is slow.
TEST(MemoryTiers, KmemDramNodeIsALowerTier) {
    const std::string kmem_dram =
        "[[memory_node]]\nmemory = \"4GiB\"\nkind = \"dram\"\n"
        "online = \"kmem\"\n";
    const Topology t = machine(2, kmem_dram, "[[10, 20, 30], [20, 10, 30], [30, 30, 10]]");
    const MemoryTiers mt = establish_memory_tiers(t, MemtierKernel::kFixed);
    EXPECT_EQ(tier_nodes(mt, 22), (Nodes{2}));
    EXPECT_EQ(preferred(mt, 0), (Nodes{2}));
    EXPECT_EQ(preferred(mt, 1), (Nodes{2}));
}

TEST(MemoryTiers, DramOnlyMachineIsAllTopTier) {
    const Topology t = machine(2, "", "[[10, 21], [21, 10]]");
    const MemoryTiers mt = establish_memory_tiers(t, MemtierKernel::kFixed);
    ASSERT_EQ(mt.tiers.size(), 1u);
    EXPECT_EQ(tier_nodes(mt, 4), (Nodes{0, 1}));
    EXPECT_TRUE(preferred(mt, 0).empty());
    EXPECT_TRUE(preferred(mt, 1).empty());
    EXPECT_TRUE(mt.node_is_toptier(0) && mt.node_is_toptier(1));
    EXPECT_EQ(mt.next_demotion_node(0, 7), NUMA_NO_NODE);
}

TEST(MemoryTiers, DramPlusCxl) {
    const Topology t = machine(1, memory_node("cxl", 200, 25), "[[10, 14], [14, 10]]", true);
    // v6.1..v6.6: dax/kmem's fixed default.
    const MemoryTiers fixed = establish_memory_tiers(t, MemtierKernel::kFixed);
    EXPECT_EQ(tier_nodes(fixed, 22), (Nodes{1}));
    EXPECT_EQ(preferred(fixed, 0), (Nodes{1}));
    EXPECT_FALSE(fixed.node_is_toptier(1));
    // v6.12 with an HMAT: 576 * (200 + 200) / (100 + 100) = 1152, then * (100000 + 100000) /
    // (25000 + 25000) MB/s = 4608: memory_tier36.
    const MemoryTiers hmat = establish_memory_tiers(t, MemtierKernel::kHmat);
    EXPECT_EQ(hmat.adistance[1], 4608);
    EXPECT_EQ(tier_nodes(hmat, 36), (Nodes{1}));
    EXPECT_EQ(preferred(hmat, 0), (Nodes{1}));
    // Without an HMAT v6.12 keeps the default.
    const Topology no_hmat = machine(1, memory_node("cxl", 200, 25), "[[10, 14], [14, 10]]");
    EXPECT_EQ(establish_memory_tiers(no_hmat, MemtierKernel::kHmat).adistance[1], 2880);
}

// memory-tiers.c, example 3: node 0 CPU + DRAM, node 1 HBM, node 2 PMEM. With HMAT figures the
// HBM (boot memory, v6.10+) is faster than DRAM: 576 * 220 / 200 = 633, * 200000 / 800000 = 158
// (memory_tier1); the PMEM 576 * 600 / 200 = 1728, * 200000 / 80000 = 4320 (memory_tier33).
TEST(MemoryTiers, HbmDramPmemChain) {
    const Topology t = machine(1, memory_node("hbm", 110, 400) + kPmem,
                               "[[10, 20, 30], [20, 10, 40], [30, 40, 10]]", true);
    const MemoryTiers mt = establish_memory_tiers(t, MemtierKernel::kHmat);
    EXPECT_EQ(mt.adistance, (std::vector<int>{576, 158, 4320}));
    ASSERT_EQ(mt.tiers.size(), 3u);
    EXPECT_EQ(tier_nodes(mt, 1), (Nodes{1}));
    EXPECT_EQ(tier_nodes(mt, 4), (Nodes{0}));
    EXPECT_EQ(tier_nodes(mt, 33), (Nodes{2}));
    EXPECT_EQ(preferred(mt, 1), (Nodes{0}));
    EXPECT_EQ(preferred(mt, 0), (Nodes{2}));
    EXPECT_TRUE(preferred(mt, 2).empty());
    EXPECT_EQ(mt.tiers[0].lower_tier_mask, (Nodes{0, 2}));
    // The top tier ends with the slowest tier that has CPUs: DRAM's.
    EXPECT_TRUE(mt.node_is_toptier(1));
    EXPECT_TRUE(mt.node_is_toptier(0));
    EXPECT_FALSE(mt.node_is_toptier(2));
    // v6.1 puts the HBM (boot memory) in the DRAM tier.
    const MemoryTiers v61 = establish_memory_tiers(t, MemtierKernel::kFixed);
    EXPECT_EQ(tier_nodes(v61, 4), (Nodes{0, 1}));
    EXPECT_EQ(tier_nodes(v61, 22), (Nodes{2}));
    EXPECT_EQ(preferred(v61, 1), (Nodes{2}));
}

// Two PMEM nodes at the same distance are both preferred; next_demotion_node picks one.
TEST(MemoryTiers, EqualDistanceTargetsAreAllPreferred) {
    const Topology t = machine(1, kPmem + kPmem, "[[10, 17, 17], [17, 10, 28], [17, 28, 10]]");
    const MemoryTiers mt = establish_memory_tiers(t, MemtierKernel::kFixed);
    EXPECT_EQ(preferred(mt, 0), (Nodes{1, 2}));
    EXPECT_EQ(mt.next_demotion_node(0, 0), 1);
    EXPECT_EQ(mt.next_demotion_node(0, 1), 2);
    EXPECT_EQ(mt.next_demotion_node(0, 4), 1);
}

// The next tier's nearest nodes only: a farther PMEM node of the same tier is the fallback.
TEST(MemoryTiers, FartherTargetIsOnlyFallback) {
    const Topology t =
        machine(2, kPmem + kPmem,
                "[[10, 21, 17, 28], [21, 10, 28, 17], [17, 28, 10, 28], [28, 17, 28, 10]]");
    const MemoryTiers mt = establish_memory_tiers(t, MemtierKernel::kFixed);
    EXPECT_EQ(preferred(mt, 0), (Nodes{2}));
    EXPECT_EQ(preferred(mt, 1), (Nodes{3}));
    EXPECT_NE(
        memory_tiers_text(mt).find("Demotion targets for Node 0: preferred: 2, fallback: 2-3"),
        std::string::npos);
}

// Kernels before v6.1 have no tiers: every node is top tier and nothing demotes.
TEST(MemoryTiers, NoTiersBeforeV61) {
    const Topology t =
        machine(2, kPmem + kPmem,
                "[[10, 20, 30, 40], [20, 10, 40, 30], [30, 40, 10, 40], [40, 30, 40, 10]]");
    const MemoryTiers mt = establish_memory_tiers(t, MemtierKernel::kNone);
    EXPECT_TRUE(mt.tiers.empty());
    for (int n = 0; n < 4; ++n) {
        EXPECT_TRUE(mt.node_is_toptier(n));
        EXPECT_EQ(mt.next_demotion_node(n, 3), NUMA_NO_NODE);
    }
    EXPECT_EQ(memory_tiers_text(mt),
              "memory tiers: none: the profile's kernel predates mm/memory-tiers.c (v6.1)\n");
}

// The tiering presets as each profile's kernel forms their tiers. v6.12 reads the HMAT: PMEM
// 576 * 610 / 170 = 2066, * 200000 / 78800 = 5243 (memory_tier40); CXL 576 * 430 / 230 = 1076,
// * 460000 / 52000 = 9518 (memory_tier74).
TEST(MemoryTiers, TieringPresets) {
    struct Case {
        const char* preset;
        int hmat_adistance;
    };
    for (const Case& c : {Case{"cascadelake-2s-pmem", 5243}, Case{"sapphirerapids-2s-cxl", 9518}}) {
        SCOPED_TRACE(c.preset);
        const Topology t = load_preset(c.preset);
        const MemoryTiers v61 = establish_memory_tiers(t, MemtierKernel::kFixed);
        EXPECT_EQ(tier_nodes(v61, 4), (Nodes{0, 1}));
        EXPECT_EQ(tier_nodes(v61, 22), (Nodes{2, 3}));
        const MemoryTiers v612 = establish_memory_tiers(t, MemtierKernel::kHmat);
        EXPECT_EQ(v612.adistance, (std::vector<int>{576, 576, c.hmat_adistance, c.hmat_adistance}));
        EXPECT_EQ(tier_nodes(v612, c.hmat_adistance / MEMTIER_CHUNK_SIZE), (Nodes{2, 3}));
        for (const MemoryTiers* mt : {&v61, &v612}) {
            EXPECT_EQ(preferred(*mt, 0), (Nodes{2}));
            EXPECT_EQ(preferred(*mt, 1), (Nodes{3}));
            EXPECT_FALSE(mt->node_is_toptier(2));
            EXPECT_TRUE(mt->node_is_toptier(1));
        }
    }
}

}  // namespace
}  // namespace numasim
