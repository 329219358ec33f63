#include <dirent.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cerrno>

#include "config/input_error.h"
#include "machine/hwloc_import.h"

namespace numasim {
namespace {

const std::string kData = NUMASIM_SOURCE_DIR "/tests/machine/data/";

// two_nodes*.xml: lstopo --input "pack:2 numa:1(memory=2GiB) l3:1(size=30MiB) core:4
// pu:2(indexes=0,8,1,9,...)": 2 packages x 4 cores x 2 PUs, Linux/Intel numbering.
TEST(HwlocImport, TwoNodesWithDistances) {
    Topology t = import_hwloc_xml(kData + "two_nodes.xml");
    EXPECT_EQ(t.name, "two_nodes");
    EXPECT_EQ(t.nr_nodes(), 2);
    EXPECT_EQ(t.nr_cpus(), 16);
    EXPECT_EQ(t.nr_cores(), 8);
    EXPECT_EQ(t.nr_llcs(), 2);
    EXPECT_EQ(t.nodes[0].cpus, (std::vector<int>{0, 1, 2, 3, 8, 9, 10, 11}));
    EXPECT_EQ(t.smt_siblings(1), (std::vector<int>{1, 9}));
    EXPECT_EQ(t.llc_cpus(4).size(), 8u);
    EXPECT_EQ(t.node_of(12), 1);
    EXPECT_EQ(t.cpus[12].package, 1);
    EXPECT_EQ(t.nodes[1].mem_bytes, 2ull << 30);
    EXPECT_EQ(t.node_distance(0, 1), 21);
    EXPECT_EQ(t.hw.llc_bytes, 30ull << 20);  // from hwloc's L3 size
    EXPECT_DOUBLE_EQ(t.hw.latency(10), 90.0);
    EXPECT_GT(t.hw.latency(21), t.hw.latency(10));
}

// The CPU model comes from hwloc's Architecture and package infos: no infos, a generic Intel
// part; AuthenticAMD family 25 (19h) model 1, Zen 3 (bsp_init_amd()'s ranges); "POWER9 (raw)"
// on ppc64le, power9.
TEST(HwlocImport, CpuModelFromTheInfos) {
    EXPECT_EQ(import_hwloc_xml(kData + "two_nodes.xml").cpu.name, "intel");
    const Topology zen = import_hwloc_xml(kData + "zen3_two_nodes.xml");
    EXPECT_EQ(zen.cpu.name, "zen3");
    EXPECT_EQ(zen.cpu.x86_family, 0x19);
    const Topology power = import_hwloc_xml(kData + "power9_four_nodes.xml");
    EXPECT_EQ(power.cpu.name, "power9");
    EXPECT_EQ(power.cpu.arch, CpuArch::kPowerPC);
}

TEST(HwlocImport, TwoNodesWithoutDistancesGetLinuxDefault) {
    Topology t = import_hwloc_xml(kData + "two_nodes_nodist.xml");
    EXPECT_EQ(t.nr_cpus(), 16);
    EXPECT_EQ(t.node_distance(0, 1), 20);
    EXPECT_EQ(t.node_distance(1, 1), 10);
}

// four_nodes*.xml: lstopo --input "pack:2 group:2 numa:1(memory=1GiB) l3:1(size=8MiB) core:2
// pu:4": POWER-like, 2 packages x 2 nodes x 2 cores x SMT4, SLIT 10/20/40.
TEST(HwlocImport, FourNodesWithDistances) {
    Topology t = import_hwloc_xml(kData + "four_nodes.xml");
    EXPECT_EQ(t.nr_nodes(), 4);
    EXPECT_EQ(t.nr_cpus(), 32);
    EXPECT_EQ(t.smt_siblings(5), (std::vector<int>{4, 5, 6, 7}));
    EXPECT_EQ(t.node_of(8), 1);
    EXPECT_EQ(t.cpus[8].package, 0);
    EXPECT_EQ(t.cpus[16].package, 1);
    EXPECT_EQ(t.node_distance(0, 1), 20);
    EXPECT_EQ(t.node_distance(1, 3), 40);
    EXPECT_EQ(t.nr_llcs(), 4);
}

TEST(HwlocImport, FourNodesWithoutDistances) {
    Topology t = import_hwloc_xml(kData + "four_nodes_nodist.xml");
    for (int a = 0; a < 4; ++a)
        for (int b = 0; b < 4; ++b)
            EXPECT_EQ(t.node_distance(a, b), a == b ? 10 : 20);
}

// dram_pmem.xml: two_nodes-like packages of 2 cores, each with a 1 GiB DRAM node (P#0, P#1) and
// a 4 GiB NVM node with a DAX device (P#2, P#3) that shares the package's cpuset, as hwloc shows
// an Optane node onlined by dax/kmem; memattrs Latency 85/305 ns and Bandwidth 95367/37193 MiB/s
// from the package; SLIT 10/21/17/28 (docs/machines.md says how it was made).
TEST(HwlocImport, DaxKmemPmemNodesHaveNoCpus) {
    const Topology t = import_hwloc_xml(kData + "dram_pmem.xml");
    ASSERT_EQ(t.nr_nodes(), 4);
    EXPECT_EQ(t.nodes[0].cpus, (std::vector<int>{0, 1}));
    EXPECT_EQ(t.nodes[1].cpus, (std::vector<int>{2, 3}));
    EXPECT_TRUE(t.nodes[2].cpus.empty());
    EXPECT_TRUE(t.nodes[3].cpus.empty());
    EXPECT_EQ(t.nodes[2].mem_bytes, 4ull << 30);
    EXPECT_EQ(t.node_distance(0, 2), 17);
    EXPECT_EQ(t.node_distance(1, 2), 28);
    EXPECT_EQ(t.node_distance(1, 3), 17);
    for (int n : {2, 3}) {
        SCOPED_TRACE(n);
        const MemoryDevice& d = t.nodes[n].device;
        EXPECT_EQ(d.kind, MemoryKind::kPmem);
        EXPECT_TRUE(d.dax_kmem);
        EXPECT_DOUBLE_EQ(d.latency_ns, 305.0);
        EXPECT_NEAR(d.bandwidth_gbs, 39.0, 0.01);  // 37193 MiB/s
    }
    EXPECT_TRUE(t.hmat);
    // A node with CPUs keeps the machine's DRAM figures.
    EXPECT_EQ(t.nodes[0].device.kind, MemoryKind::kDram);
    EXPECT_DOUBLE_EQ(t.nodes[0].device.latency_ns, 0.0);
}

// dram_cpuless.xml: the same machine without subtypes, DAX devices or memory attributes. The
// package's CPUs go to its lower-numbered node, as Linux numbers the CPUs' nodes first; the other
// is a CPU-less node of plain DRAM.
TEST(HwlocImport, UnmarkedSecondNodeOfAPackageIsCpuLess) {
    const Topology t = import_hwloc_xml(kData + "dram_cpuless.xml");
    ASSERT_EQ(t.nr_nodes(), 4);
    EXPECT_EQ(t.nodes[0].cpus, (std::vector<int>{0, 1}));
    EXPECT_EQ(t.nodes[1].cpus, (std::vector<int>{2, 3}));
    EXPECT_TRUE(t.nodes[2].cpus.empty());
    EXPECT_EQ(t.nodes[2].device.kind, MemoryKind::kDram);
    EXPECT_FALSE(t.nodes[2].device.dax_kmem);
    EXPECT_DOUBLE_EQ(t.nodes[2].device.latency_ns, 0.0);
    EXPECT_FALSE(t.hmat);
}

TEST(HwlocImport, HostHasAtLeastOneNode) {
    Topology t = import_hwloc_host();
    EXPECT_GE(t.nr_nodes(), 1);
    EXPECT_GE(t.nr_cpus(), 1);
    EXPECT_NO_THROW(t.validate("host"));
}

TEST(HwlocImport, MissingFileNamesIt) {
    try {
        import_hwloc_xml(kData + "missing.xml");
        FAIL();
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("missing.xml"), std::string::npos);
    }
}

TEST(HwlocImport, GarbageFileNamesIt) {
    try {
        import_hwloc_xml(kData + "not_xml.xml");
        FAIL();
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("not_xml.xml"), std::string::npos);
    }
}

int open_fds() {
    int n = 0;
    DIR* d = ::opendir("/proc/self/fd");
    while (::readdir(d))
        ++n;
    ::closedir(d);
    return n;
}

// libhwloc 2.9 (Debian 12) dies of SIGSEGV inside hwloc_topology_load on this file; the import
// loads XML in a child process, so the crash becomes an error naming the file.
TEST(HwlocImport, LibhwlocCrashIsAnInputError) {
    const std::string path =
        std::string(NUMASIM_SOURCE_DIR) + "/fuzz/known/libhwloc-bitmap-compare-first.xml";
    const int fds = open_fds();
    try {
        import_hwloc_xml(path);
        FAIL() << "the reproducer loaded";
    } catch (const InputError& e) {
        EXPECT_EQ(e.file(), path);
        EXPECT_NE(e.problem().find("libhwloc failed to parse it"), std::string::npos) << e.what();
        EXPECT_NE(e.problem().find("SIGSEGV"), std::string::npos) << e.what();
    }
    EXPECT_EQ(open_fds(), fds) << "the pipe to the child is closed";
    EXPECT_EQ(::waitpid(-1, nullptr, WNOHANG), -1) << "no child left, zombie or running";
    EXPECT_EQ(errno, ECHILD);
}

// XML that hwloc parses and refuses: the child reports it, and the old message stands.
TEST(HwlocImport, RejectedXmlNamesIt) {
    const std::string path = NUMASIM_SOURCE_DIR "/tests/cli/hostile/hwloc_truncated.xml";
    try {
        import_hwloc_xml(path);
        FAIL();
    } catch (const InputError& e) {
        EXPECT_EQ(e.file(), path);
        EXPECT_NE(e.problem().find("hwloc rejects this XML"), std::string::npos) << e.what();
    }
    EXPECT_EQ(::waitpid(-1, nullptr, WNOHANG), -1);
}

}  // namespace
}  // namespace numasim
