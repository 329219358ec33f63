#include <gtest/gtest.h>

#include <string>

#include "config/input_error.h"
#include "config/toml_reader.h"
#include "machine/hardware_table.h"
#include "machine/machine_file.h"
#include "machine/machine_file_writer.h"

namespace numasim {
namespace {

const char* kHardware = R"(
[hardware]
latency_ns = { 10 = 80.0, 21 = 130.0 }
dram_bandwidth_gbs = 50.0
link_bandwidth_gbs = 20.0
llc_mb = 8
llc_latency_ns = 15
line_fill_buffers = 10
smt_core_speedup = 1.2
cpu_ghz = 3.0
)";

// A regular machine: 2 sockets x 1 node x 2 cores x 2 threads, 2 LLCs per node unless changed.
std::string regular(const std::string& machine_extra, const std::string& numbering) {
    return R"([machine]
name = "small"
sockets = 2
cores_per_node = 2
threads_per_core = 2
llcs_per_node = 2
memory_per_node = "1GiB"
cpu_numbering = ")" +
           numbering + "\"\n" + machine_extra + kHardware;
}

std::string error_of(const std::string& text) {
    try {
        load_machine_text(text, "bad.toml");
    } catch (const InputError& e) {
        return e.what();
    }
    return "(no error)";
}

TEST(MachineFile, SiblingsLastNumbering) {
    // Worked by hand: 4 cores, core k's threads are k and k+4; node 0 = cores 0,1.
    Topology t = load_machine_text(regular("", "siblings-last"), "small.toml");
    ASSERT_EQ(t.nr_cpus(), 8);
    EXPECT_EQ(t.nodes[0].cpus, (std::vector<int>{0, 1, 4, 5}));
    EXPECT_EQ(t.nodes[1].cpus, (std::vector<int>{2, 3, 6, 7}));
    EXPECT_EQ(t.smt_siblings(1), (std::vector<int>{1, 5}));
    EXPECT_EQ(t.smt_siblings(6), (std::vector<int>{2, 6}));
    EXPECT_EQ(t.llc_cpus(5), (std::vector<int>{1, 5}));
    EXPECT_EQ(t.cpus[7].package, 1);
    EXPECT_EQ(t.nr_llcs(), 4);
    EXPECT_EQ(t.node_distance(0, 1), 21);  // the default remote distance
    EXPECT_EQ(t.total_mem_bytes(), 2ull << 30);
    EXPECT_EQ(t.hw.llc_bytes, 8ull << 20);
    EXPECT_DOUBLE_EQ(t.hw.latency(21), 130.0);
    EXPECT_DOUBLE_EQ(t.hw.latency(40), 320.0);  // missing distances scale the local figure
}

TEST(MachineFile, SiblingsAdjacentNumbering) {
    // Worked by hand: core k has CPUs 2k and 2k+1; node 0 = cores 0,1 = CPUs 0..3.
    Topology t = load_machine_text(regular("", "siblings-adjacent"), "small.toml");
    EXPECT_EQ(t.nodes[0].cpus, (std::vector<int>{0, 1, 2, 3}));
    EXPECT_EQ(t.nodes[1].cpus, (std::vector<int>{4, 5, 6, 7}));
    EXPECT_EQ(t.smt_siblings(5), (std::vector<int>{4, 5}));
    EXPECT_EQ(t.llc_cpus(2), (std::vector<int>{2, 3}));
    EXPECT_EQ(t.node_of(4), 1);
}

TEST(MachineFile, ExplicitNodes) {
    const std::string text = std::string(R"([machine]
name = "odd"
distance = [[10, 16, 22], [16, 10, 22], [22, 22, 10]]
[[node]]
memory = "4GiB"
cores = [[0, 3], [1, 4]]
package = 0
[[node]]
memory = "2GiB"
cpus = [2]
package = 0
[[node]]
memory = "8GiB"
)") + R"(
[hardware]
latency_ns = { 10 = 80.0, 16 = 100.0, 22 = 150.0 }
dram_bandwidth_gbs = 50.0
link_bandwidth_gbs = 20.0
llc_mb = 8
llc_latency_ns = 15
line_fill_buffers = 10
smt_core_speedup = 1.2
cpu_ghz = 3.0
[source]
text = "hand-written"
)";
    Topology t = load_machine_text(text, "odd.toml");
    EXPECT_EQ(t.nr_nodes(), 3);
    EXPECT_EQ(t.nr_cpus(), 5);
    EXPECT_EQ(t.nr_cores(), 3);
    EXPECT_EQ(t.nodes[0].cpus, (std::vector<int>{0, 1, 3, 4}));
    EXPECT_EQ(t.smt_siblings(4), (std::vector<int>{1, 4}));
    EXPECT_EQ(t.node_of(2), 1);
    EXPECT_TRUE(t.nodes[2].cpus.empty());  // a memory-only node is allowed
    EXPECT_EQ(t.nodes[2].mem_bytes, 8ull << 30);
    EXPECT_EQ(t.llc_cpus(0), (std::vector<int>{0, 1, 3, 4}));
    EXPECT_EQ(t.source, "hand-written");
}

TEST(MachineFileErrors, UnknownKeyNamesFileKeyAndLine) {
    std::string w = error_of(regular("color = \"red\"\n", "siblings-last"));
    EXPECT_NE(w.find("bad.toml"), std::string::npos) << w;
    EXPECT_NE(w.find("machine.color"), std::string::npos) << w;
    EXPECT_NE(w.find("line 9"), std::string::npos) << w;
    EXPECT_NE(w.find("unknown key"), std::string::npos) << w;
}

TEST(MachineFileErrors, UnknownHardwareKey) {
    std::string text = regular("", "siblings-last") + "l4_mb = 128\n";
    std::string w = error_of(text);
    EXPECT_NE(w.find("hardware.l4_mb"), std::string::npos) << w;
}

TEST(MachineFileErrors, WrongType) {
    std::string text = regular("", "siblings-last");
    text.replace(text.find("sockets = 2"), 11, "sockets = \"two\"");
    std::string w = error_of(text);
    EXPECT_NE(w.find("bad.toml"), std::string::npos) << w;
    EXPECT_NE(w.find("machine.sockets"), std::string::npos) << w;
    EXPECT_NE(w.find("expected an integer"), std::string::npos) << w;
}

TEST(MachineFileErrors, AsymmetricDistance) {
    std::string w = error_of(regular("distance = [[10, 21], [20, 10]]\n", "siblings-last"));
    EXPECT_NE(w.find("bad.toml"), std::string::npos) << w;
    EXPECT_NE(w.find("machine.distance"), std::string::npos) << w;
    EXPECT_NE(w.find("symmetric"), std::string::npos) << w;
}

TEST(MachineFileErrors, DistanceMatrixOfWrongSize) {
    std::string w = error_of(
        regular("distance = [[10, 21, 21], [21, 10, 21], [21, 21, 10]]\n", "siblings-last"));
    EXPECT_NE(w.find("machine.distance"), std::string::npos) << w;
    EXPECT_NE(w.find("3 rows but the machine has 2 nodes"), std::string::npos) << w;
    w = error_of(regular("distance = [[10, 21], [21]]\n", "siblings-last"));
    EXPECT_NE(w.find("row 1 has 1 entries"), std::string::npos) << w;
}

TEST(MachineFileErrors, BadDiagonal) {
    std::string w = error_of(regular("distance = [[11, 21], [21, 10]]\n", "siblings-last"));
    EXPECT_NE(w.find("diagonal"), std::string::npos) << w;
}

TEST(MachineFileErrors, UnknownNumbering) {
    std::string w = error_of(regular("", "round-robin"));
    EXPECT_NE(w.find("machine.cpu_numbering"), std::string::npos) << w;
}

TEST(MachineFileErrors, LlcsMustDivideCores) {
    std::string text = regular("", "siblings-last");
    text.replace(text.find("llcs_per_node = 2"), 17, "llcs_per_node = 3");
    EXPECT_NE(error_of(text).find("machine.llcs_per_node"), std::string::npos);
}

TEST(MachineFileErrors, MissingLocalLatency) {
    std::string text = regular("", "siblings-last");
    text.replace(text.find("10 = 80.0, "), 11, "");
    std::string w = error_of(text);
    EXPECT_NE(w.find("hardware.latency_ns"), std::string::npos) << w;
    EXPECT_NE(w.find("local latency"), std::string::npos) << w;
}

TEST(MachineFileErrors, BadLatencyKey) {
    std::string text = regular("", "siblings-last");
    text.replace(text.find("21 = 130.0"), 10, "far = 130.0");
    EXPECT_NE(error_of(text).find("hardware.latency_ns.far"), std::string::npos);
}

TEST(MachineFileErrors, MissingHardwareFigure) {
    std::string text = regular("", "siblings-last");
    text.replace(text.find("cpu_ghz = 3.0"), 13, "");
    std::string w = error_of(text);
    EXPECT_NE(w.find("cpu_ghz"), std::string::npos) << w;
}

TEST(MachineFileErrors, DuplicateAndMissingCpusInExplicitNodes) {
    std::string base = R"([machine]
name = "x"
[[node]]
memory = "1GiB"
cpus = [0, 1]
[[node]]
memory = "1GiB"
cpus = CPUS
)" + std::string(kHardware);
    auto with = [&](const std::string& cpus) {
        std::string t = base;
        t.replace(t.find("CPUS"), 4, cpus);
        return error_of(t);
    };
    EXPECT_NE(with("[1, 2]").find("CPU 1 is already listed by node[0]"), std::string::npos);
    std::string w = with("[3]");
    EXPECT_NE(w.find("node[1]"), std::string::npos) << w;
    EXPECT_NE(w.find("CPU 2 is not"), std::string::npos) << w;
}

TEST(MachineFileErrors, RegularKeysConflictWithNodes) {
    std::string text = R"([machine]
name = "x"
sockets = 2
[[node]]
memory = "1GiB"
cpus = [0]
)" + std::string(kHardware);
    EXPECT_NE(error_of(text).find("machine.sockets"), std::string::npos);
}

TEST(MachineFileErrors, MissingFile) {
    try {
        load_machine_file("/nonexistent/m.toml");
        FAIL();
    } catch (const InputError& e) {
        EXPECT_EQ(e.file(), "/nonexistent/m.toml");
    }
}

TEST(HardwareOverrides, ChangeSomeFiguresAndKeepTheRest) {
    Topology t = load_machine_text(regular("", "siblings-last"), "small.toml");
    auto doc = TomlTable::parse_text("[hardware]\nlatency_ns = { 21 = 150.0 }\ncpu_ghz = 2.0\n",
                                     "over.toml");
    apply_hardware_overrides(t, *doc.table("hardware"));
    EXPECT_DOUBLE_EQ(t.hw.latency(10), 80.0);
    EXPECT_DOUBLE_EQ(t.hw.latency(21), 150.0);
    EXPECT_DOUBLE_EQ(t.hw.cpu_ghz, 2.0);
    EXPECT_DOUBLE_EQ(t.hw.dram_bandwidth_gbs, 50.0);

    auto bad = TomlTable::parse_text("[hardware]\ncpu_mhz = 2000\n", "over.toml");
    try {
        apply_hardware_overrides(t, *bad.table("hardware"));
        FAIL();
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("over.toml"), std::string::npos);
        EXPECT_NE(std::string(e.what()).find("hardware.cpu_mhz"), std::string::npos);
    }
}

// [hardware] page_size and mmu: 4 KiB pages by default (2 MiB PMD THPs); 64 KiB pages with
// 16 MiB PMDs on the hash MMU and 2 MiB PMDs on the radix MMU (the default MMU).
TEST(MachineFile, PageSizeAndMmu) {
    const std::string base = regular("", "siblings-last");
    const Topology x86 = load_machine_text(base, "m.toml");
    EXPECT_EQ(x86.hw.pages, kPages4K);
    EXPECT_EQ(x86.hw.pages.size(), 4096u);
    EXPECT_EQ(x86.hw.pages.pmd_size(), uint64_t{2} << 20);

    const Topology hash =
        load_machine_text(base + "page_size = \"64K\"\nmmu = \"hash\"\n", "m.toml");
    EXPECT_EQ(hash.hw.pages, kPages64KHash);
    EXPECT_EQ(hash.hw.pages.size(), 65536u);
    EXPECT_EQ(hash.hw.pages.pmd_nr(), 256u);  // 16 MiB / 64 KiB
    EXPECT_EQ(hash.hw.pages.pmd_size(), uint64_t{16} << 20);

    const Topology radix = load_machine_text(base + "page_size = \"64KiB\"\n", "m.toml");
    EXPECT_EQ(radix.hw.pages, kPages64KRadix);
    EXPECT_EQ(radix.hw.pages.pmd_nr(), 32u);  // 2 MiB / 64 KiB
    EXPECT_EQ(radix.hw.pages.pmd_size(), uint64_t{2} << 20);

    // 4 KiB pages have 2 MiB PMDs whatever the MMU.
    EXPECT_EQ(load_machine_text(base + "page_size = 4096\nmmu = \"hash\"\n", "m.toml").hw.pages,
              kPages4K);
}

TEST(MachineFileErrors, PageSizeOtherThan4KOr64K) {
    const std::string w = error_of(regular("", "siblings-last") + "page_size = \"8K\"\n");
    EXPECT_NE(w.find("bad.toml"), std::string::npos) << w;
    EXPECT_NE(w.find("hardware.page_size"), std::string::npos) << w;
    EXPECT_NE(w.find("must be \"4KiB\" or \"64KiB\", got 8192 bytes"), std::string::npos) << w;
    const std::string m = error_of(regular("", "siblings-last") + "mmu = \"nested\"\n");
    EXPECT_NE(m.find("hardware.mmu"), std::string::npos) << m;
    EXPECT_NE(m.find("'nested' is not one of"), std::string::npos) << m;
}

// [hardware] memory_directory: off unless the file says so; a boolean, else an error naming it.
TEST(MachineFile, MemoryDirectory) {
    const std::string base = regular("", "siblings-last");
    EXPECT_FALSE(load_machine_text(base, "m.toml").hw.memory_directory);
    EXPECT_TRUE(
        load_machine_text(base + "memory_directory = true\n", "m.toml").hw.memory_directory);
    const std::string w = error_of(base + "memory_directory = 1\n");
    EXPECT_NE(w.find("hardware.memory_directory"), std::string::npos) << w;
    EXPECT_NE(w.find("expected true or false"), std::string::npos) << w;
}

// [machine] cpu: the CPU model the kernel finds at boot; a generic Intel part unless named, an
// unknown name an error naming the key and the models there are; the writer keeps it.
TEST(MachineFile, CpuModel) {
    const Topology plain = load_machine_text(regular("", "siblings-last"), "m.toml");
    EXPECT_EQ(plain.cpu, CpuModel{});
    EXPECT_EQ(plain.cpu.name, "intel");
    const Topology zen = load_machine_text(regular("cpu = \"zen3\"\n", "siblings-last"), "m.toml");
    EXPECT_EQ(zen.cpu.vendor, CpuVendor::kAmd);
    EXPECT_EQ(zen.cpu.x86_family, 0x19);
    EXPECT_EQ(load_machine_text(machine_file_text(zen, {}), "back.toml").cpu, zen.cpu);
    EXPECT_EQ(machine_file_text(plain, {}).find("cpu ="), std::string::npos);
    const std::string w = error_of(regular("cpu = \"pentium\"\n", "siblings-last"));
    EXPECT_NE(w.find("machine.cpu"), std::string::npos) << w;
    EXPECT_NE(w.find("'pentium' is not a known CPU model"), std::string::npos) << w;
    EXPECT_NE(w.find("zen5"), std::string::npos) << w;
}

// An override switches the page size of a machine for an A/B comparison; the MMU stays.
TEST(HardwareOverrides, PageSize) {
    Topology t = load_machine_text(
        regular("", "siblings-last") + "page_size = \"64K\"\nmmu = \"hash\"\n", "m.toml");
    auto to4k = TomlTable::parse_text("[hardware]\npage_size = \"4K\"\n", "over.toml");
    apply_hardware_overrides(t, *to4k.table("hardware"));
    EXPECT_EQ(t.hw.pages, kPages4K);
    Topology h = load_machine_text(
        regular("", "siblings-last") + "page_size = \"64K\"\nmmu = \"hash\"\n", "m.toml");
    auto radix = TomlTable::parse_text("[hardware]\nmmu = \"radix\"\n", "over.toml");
    apply_hardware_overrides(h, *radix.table("hardware"));
    EXPECT_EQ(h.hw.pages, kPages64KRadix);
}

// The regular 2-socket machine plus [[memory_node]] tables (nodes 2.. after the sockets').
std::string with_memory_nodes(const std::string& distance, const std::string& tables) {
    return std::string(R"([machine]
name = "tiered"
sockets = 2
cores_per_node = 2
memory_per_node = "1GiB"
)") + distance +
           tables + kHardware;
}

const char* kFourNodeSlit =
    "distance = [[10, 21, 17, 28], [21, 10, 28, 17], [17, 28, 10, 28], "
    "[28, 17, 28, 10]]\n";

const char* kTwoPmemNodes = R"(
[[memory_node]]
memory = "8GiB"
kind = "pmem"
latency_ns = 305
bandwidth_gbs = 39.4
[[memory_node]]
memory = "8GiB"
kind = "pmem"
latency_ns = 305
bandwidth_gbs = 39.4
)";

TEST(MachineFile, MemoryNodesFollowTheSockets) {
    const Topology t = load_machine_text(with_memory_nodes(kFourNodeSlit, kTwoPmemNodes), "t.toml");
    ASSERT_EQ(t.nr_nodes(), 4);
    EXPECT_EQ(t.nr_cpus(), 4);
    EXPECT_EQ(t.nodes[0].cpus, (std::vector<int>{0, 1}));
    EXPECT_TRUE(t.nodes[2].cpus.empty());
    EXPECT_TRUE(t.nodes[3].cpus.empty());
    EXPECT_EQ(t.nodes[3].mem_bytes, 8ull << 30);
    EXPECT_EQ(t.nodes[2].device.kind, MemoryKind::kPmem);
    EXPECT_DOUBLE_EQ(t.nodes[2].device.latency_ns, 305.0);
    EXPECT_DOUBLE_EQ(t.nodes[2].device.bandwidth_gbs, 39.4);
    EXPECT_TRUE(t.nodes[2].device.dax_kmem);  // PMEM is onlined by dax/kmem unless told
    EXPECT_FALSE(t.nodes[0].device.dax_kmem);
    EXPECT_EQ(t.nearest_cpu_node(2), 0);
    EXPECT_EQ(t.nearest_cpu_node(3), 1);
    EXPECT_EQ(t.nearest_cpu_node(1), 1);
    EXPECT_TRUE(t.has_memory_only_nodes());
    EXPECT_FALSE(t.hmat);
    EXPECT_EQ(t.total_mem_bytes(), 18ull << 30);
}

TEST(MachineFile, PlainDramMemoryNodeNeedsNoFigures) {
    const Topology t = load_machine_text(
        with_memory_nodes("distance = [[10, 21, 30], [21, 10, 30], [30, 30, 10]]\nhmat = true\n",
                          "[[memory_node]]\nmemory = \"2GiB\"\nkind = \"dram\"\n"),
        "t.toml");
    EXPECT_EQ(t.nodes[2].device.kind, MemoryKind::kDram);
    EXPECT_DOUBLE_EQ(t.nodes[2].device.latency_ns, 0.0);
    EXPECT_FALSE(t.nodes[2].device.dax_kmem);  // boot memory
    EXPECT_TRUE(t.hmat);
}

TEST(MachineFileErrors, MemoryNodeWithoutMemory) {
    const std::string w = error_of(with_memory_nodes(
        "distance = [[10, 21, 30], [21, 10, 30], [30, 30, 10]]\n",
        "[[memory_node]]\nmemory = 0\nkind = \"cxl\"\nlatency_ns = 200\nbandwidth_gbs = 20\n"));
    EXPECT_NE(w.find("bad.toml"), std::string::npos) << w;
    EXPECT_NE(w.find("memory_node[0].memory"), std::string::npos) << w;
    EXPECT_NE(w.find("needs memory"), std::string::npos) << w;
}

TEST(MachineFileErrors, CpuLessNodeWithoutMemory) {
    const std::string w = error_of(std::string(R"([machine]
name = "x"
distance = [[10, 21], [21, 10]]
[[node]]
memory = "1GiB"
cpus = [0]
[[node]]
package = 0
)") + kHardware);
    EXPECT_NE(w.find("bad.toml"), std::string::npos) << w;
    EXPECT_NE(w.find("node[1]"), std::string::npos) << w;
    EXPECT_NE(w.find("neither CPUs nor memory"), std::string::npos) << w;
}

TEST(MachineFileErrors, UnknownMemoryKind) {
    const std::string w =
        error_of(with_memory_nodes("distance = [[10, 21, 30], [21, 10, 30], [30, 30, 10]]\n",
                                   "[[memory_node]]\nmemory = \"1GiB\"\nkind = \"optane\"\n"));
    EXPECT_NE(w.find("bad.toml"), std::string::npos) << w;
    EXPECT_NE(w.find("memory_node[0].kind"), std::string::npos) << w;
    EXPECT_NE(w.find("'optane' is not one of \"dram\", \"cxl\", \"pmem\", \"hbm\""),
              std::string::npos)
        << w;
}

TEST(MachineFileErrors, DeviceNeedsItsFigures) {
    const std::string w = error_of(with_memory_nodes(
        "distance = [[10, 21, 30], [21, 10, 30], [30, 30, 10]]\n",
        "[[memory_node]]\nmemory = \"1GiB\"\nkind = \"cxl\"\nlatency_ns = 200\n"));
    EXPECT_NE(w.find("memory_node[0].bandwidth_gbs"), std::string::npos) << w;
}

TEST(MachineFileErrors, BadOnline) {
    const std::string w = error_of(with_memory_nodes(
        "distance = [[10, 21, 30], [21, 10, 30], [30, 30, 10]]\n",
        "[[memory_node]]\nmemory = \"1GiB\"\nkind = \"dram\"\nonline = \"hotplug\"\n"));
    EXPECT_NE(w.find("memory_node[0].online"), std::string::npos) << w;
}

TEST(MachineFileErrors, MemoryNodesNeedTheSlit) {
    const std::string w = error_of(with_memory_nodes("", kTwoPmemNodes));
    EXPECT_NE(w.find("machine.distance"), std::string::npos) << w;
    EXPECT_NE(w.find("over all 4 nodes"), std::string::npos) << w;
}

TEST(MachineFileErrors, SlitNotSquareOverMemoryNodes) {
    std::string w = error_of(with_memory_nodes(
        "distance = [[10, 21, 17], [21, 10, 28], [17, 28, 10]]\n", kTwoPmemNodes));
    EXPECT_NE(w.find("machine.distance"), std::string::npos) << w;
    EXPECT_NE(w.find("3 rows but the machine has 4 nodes"), std::string::npos) << w;
    w = error_of(with_memory_nodes(
        "distance = [[10, 21, 17, 28], [21, 10, 28, 17], [17, 28, 10], [28, 17, 28, 10]]\n",
        kTwoPmemNodes));
    EXPECT_NE(w.find("row 2 has 3 entries, expected 4"), std::string::npos) << w;
}

TEST(MachineFileErrors, DeviceOnANodeWithCpus) {
    Topology t = load_machine_text(with_memory_nodes(kFourNodeSlit, kTwoPmemNodes), "t.toml");
    t.nodes[0].device.kind = MemoryKind::kCxl;
    try {
        t.validate("t.toml");
        FAIL() << "no error";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("node[0]"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace numasim
