#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "config/input_error.h"
#include "config/limits.h"
#include "machine/presets.h"

namespace numasim {
namespace {

// Every preset, whatever presets/ holds: it loads, validates, and is consistent.
TEST(Presets, EveryPresetLoadsAndIsConsistent) {
    const auto names = preset_names();
    ASSERT_FALSE(names.empty());
    for (const auto& name : names) {
        SCOPED_TRACE(name);
        Topology t = load_preset(name);
        EXPECT_EQ(t.name, name);
        EXPECT_FALSE(t.description.empty());
        EXPECT_FALSE(t.source.empty());
        EXPECT_NO_THROW(t.validate("test"));
        for (int a = 0; a < t.nr_nodes(); ++a) {
            EXPECT_EQ(t.node_distance(a, a), 10);
            for (int b = 0; b < t.nr_nodes(); ++b)
                EXPECT_EQ(t.node_distance(a, b), t.node_distance(b, a));
        }
        const size_t threads = t.smt_siblings(0).size();
        for (int c = 0; c < t.nr_cpus(); ++c) {
            auto sib = t.smt_siblings(c);
            EXPECT_EQ(sib.size(), threads);
            for (int s : sib)
                EXPECT_EQ(t.node_of(s), t.node_of(c));
            for (int s : t.llc_cpus(c))
                EXPECT_EQ(t.node_of(s), t.node_of(c));
        }
        EXPECT_EQ(t.nr_cpus(), t.nr_cores() * static_cast<int>(threads));
        EXPECT_GT(t.total_mem_bytes(), 0u);
        EXPECT_GT(t.hw.latency(t.max_distance()), t.hw.latency(10));
    }
}

// "2x64 GiB", or "2x96 GiB + 2x756 GiB" for a machine whose nodes differ: runs of equal sizes.
std::string memory_column(const Topology& t) {
    std::string s;
    for (size_t i = 0; i < t.nodes.size();) {
        size_t j = i;
        while (j < t.nodes.size() && t.nodes[j].mem_bytes == t.nodes[i].mem_bytes)
            ++j;
        s += fmt::format("{}{}x{} GiB", s.empty() ? "" : " + ", j - i, t.nodes[i].mem_bytes >> 30);
        i = j;
    }
    return s;
}

// docs/machines.md's preset table has a row per preset with its nodes, sockets, CPUs and
// memory as the preset file builds them.
TEST(Presets, MachinesDocDescribesEveryPreset) {
    std::ifstream in(NUMASIM_SOURCE_DIR "/docs/machines.md");
    std::map<std::string, std::vector<std::string>> rows;
    for (std::string l; std::getline(in, l);) {
        if (l.rfind("| `", 0) != 0) continue;
        std::vector<std::string> c;
        std::stringstream ss(l.substr(1));
        for (std::string cell; std::getline(ss, cell, '|');) {
            cell.erase(std::remove(cell.begin(), cell.end(), '`'), cell.end());
            const auto b = cell.find_first_not_of(' '), e = cell.find_last_not_of(' ');
            c.push_back(b == std::string::npos ? "" : cell.substr(b, e - b + 1));
        }
        rows[c.at(0)] = c;
    }
    for (const auto& name : preset_names()) {
        SCOPED_TRACE(name);
        ASSERT_TRUE(rows.count(name));
        const auto& c = rows[name];
        ASSERT_GE(c.size(), 5u);
        const Topology t = load_preset(name);
        std::set<int> packages;
        for (const auto& cpu : t.cpus)
            packages.insert(cpu.package);
        EXPECT_EQ(c[1], std::to_string(t.nr_nodes()));
        EXPECT_EQ(c[2], std::to_string(packages.size()));
        EXPECT_EQ(c[3],
                  fmt::format("{} ({}x{})", t.nr_cpus(), t.nr_cores(), t.nr_cpus() / t.nr_cores()));
        EXPECT_EQ(c[4], memory_column(t));
    }
}

TEST(Presets, Haswell2sUsesIntelNumbering) {
    Topology t = load_preset("haswell-2s");
    EXPECT_EQ(t.nr_cpus(), 48);
    EXPECT_EQ(t.smt_siblings(0), (std::vector<int>{0, 24}));
    EXPECT_EQ(t.smt_siblings(13), (std::vector<int>{13, 37}));
    EXPECT_EQ(t.node_of(11), 0);
    EXPECT_EQ(t.node_of(12), 1);
    EXPECT_EQ(t.node_of(24), 0);
    EXPECT_EQ(t.node_of(36), 1);
    EXPECT_EQ(t.llc_cpus(0).size(), 24u);
    EXPECT_EQ(t.nodes[0].mem_bytes, 64ull << 30);
}

TEST(Presets, Power8UsesPowerNumberingAndPerCoreLlc) {
    Topology t = load_preset("power8-2s4n");
    EXPECT_EQ(t.nr_cpus(), 160);
    EXPECT_EQ(t.smt_siblings(9), (std::vector<int>{8, 9, 10, 11, 12, 13, 14, 15}));
    EXPECT_EQ(t.llc_cpus(9), t.smt_siblings(9));
    EXPECT_EQ(t.node_of(39), 0);
    EXPECT_EQ(t.node_of(40), 1);
    EXPECT_EQ(t.node_of(159), 3);
    EXPECT_EQ(t.cpus[40].package, 0);
    EXPECT_EQ(t.cpus[80].package, 1);
    EXPECT_EQ(t.node_distance(0, 1), 20);
    EXPECT_EQ(t.node_distance(0, 2), 40);
    EXPECT_EQ(t.max_distance(), 40);
}

TEST(Presets, Power9PairsCoresIntoLlcs) {
    Topology t = load_preset("power9-2s");
    EXPECT_EQ(t.llc_cpus(0), (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
    EXPECT_EQ(t.node_of(64), 1);
}

// ppc64 distribution kernels run 64 KiB base pages; the PMD THP follows the MMU: 16 MiB on the
// hash MMU of POWER7 and POWER8, 2 MiB on POWER9's radix MMU. The x86 presets keep 4 KiB.
TEST(Presets, PowerPresetsRun64KPages) {
    EXPECT_EQ(load_preset("power7-4s").hw.pages, kPages64KHash);
    EXPECT_EQ(load_preset("power8-2s4n").hw.pages, kPages64KHash);
    EXPECT_EQ(load_preset("power9-2s").hw.pages, kPages64KRadix);
    // A PMD THP on power8 is 256 pages of 64 KiB; on power9 32.
    EXPECT_EQ(load_preset("power8-2s4n").hw.pages.pmd_nr(), 256u);
    EXPECT_EQ(load_preset("power9-2s").hw.pages.pmd_nr(), 32u);
    for (const auto& name : preset_names())
        if (name.rfind("power", 0) != 0) {
            SCOPED_TRACE(name);
            EXPECT_EQ(load_preset(name).hw.pages, kPages4K);
        }
}

// The presets' CPUs: the AMD parts are Zen (family 19h Milan, 1Ah Turin), the POWER ones
// powerpc; every other preset is an Intel part, the default.
TEST(Presets, CpuModels) {
    const std::map<std::string, std::string> named{
        {"epyc-7763-2s", "zen3"}, {"turin-2s-nps1", "zen5"}, {"turin-2s-nps4", "zen5"},
        {"power7-4s", "power7"},  {"power8-2s4n", "power8"}, {"power9-2s", "power9"}};
    for (const auto& name : preset_names()) {
        SCOPED_TRACE(name);
        const auto it = named.find(name);
        EXPECT_EQ(load_preset(name).cpu.name, it == named.end() ? "intel" : it->second);
    }
    EXPECT_EQ(load_preset("turin-2s-nps1").cpu.x86_family, 0x1a);
    EXPECT_EQ(load_preset("power8-2s4n").cpu.arch, CpuArch::kPowerPC);
}

TEST(Presets, EightSocketHasThreeNeighboursPerNode) {
    Topology t = load_preset("x86-8s-144c");
    EXPECT_EQ(t.nr_cpus(), 288);
    for (int a = 0; a < 8; ++a) {
        int near = 0, far = 0;
        for (int b = 0; b < 8; ++b) {
            near += t.node_distance(a, b) == 21;
            far += t.node_distance(a, b) == 31;
        }
        EXPECT_EQ(near, 3);
        EXPECT_EQ(far, 4);
    }
}

// The machines of issue 39, one row each: the CPU, node, LLC and SLIT counts their sources give
// (each preset's [source] text). All are SMT2 with Linux's x86 numbering: node 0 holds the
// first threads of its cores, then their siblings. A new preset of that size adds a row.
struct BigMachine {
    const char* name;
    int nodes, packages, cpus, llc_cpus;
    std::vector<int> node0;  // node 0's first and last first-thread CPU, then its siblings'
    std::vector<int> slit;   // node 0's distances, as numactl -H prints them
};

const std::vector<BigMachine>& big_machines() {
    static const std::vector<BigMachine> rows = {
        // 2 x EPYC 9965: 192 cores = 12 CCDs of 16; NPS1 SLIT 10/32 (published dumps).
        {"turin-2s-nps1", 2, 2, 768, 32, {0, 191, 384, 575}, {10, 32}},
        // NPS4: a node per quadrant, 3 CCDs each; 10/11/12 in a socket, 32 across.
        {"turin-2s-nps4", 8, 2, 768, 32, {0, 47, 384, 431}, {10, 11, 12, 12, 32, 32, 32, 32}},
        // 2 x Xeon 6980P, SNC3: dies of 43, 43 and 42 cores; Linux commit 4d6dd05d07d0's SLIT.
        {"graniterapids-2s-snc3", 6, 2, 512, 86, {0, 42, 256, 298}, {10, 15, 17, 21, 26, 26}},
        // 8 x Xeon Platinum 8490H (60 cores); 4 UPI neighbours, 3 sockets two hops away.
        {"sapphirerapids-8s", 8, 8, 960, 120, {0, 59, 480, 539}, {10, 21, 21, 31, 21, 31, 31, 21}},
        // 4 chassis x 4 Xeon Platinum 8280 (28 cores): 448 cores, 896 CPUs.
        {"superdome-flex-16s",
         16,
         16,
         896,
         56,
         {0, 27, 448, 475},
         {10, 16, 17, 16, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30}},
    };
    return rows;
}

std::vector<int> slit_row(const Topology& t, int a) {
    std::vector<int> row;
    for (int b = 0; b < t.nr_nodes(); ++b)
        row.push_back(t.node_distance(a, b));
    return row;
}

TEST(Presets, MachinesOfIssue39HaveTheirSourcesCounts) {
    for (const auto& m : big_machines()) {
        SCOPED_TRACE(m.name);
        const Topology t = load_preset(m.name);
        EXPECT_EQ(t.nr_nodes(), m.nodes);
        std::set<int> packages;
        for (const auto& cpu : t.cpus)
            packages.insert(cpu.package);
        EXPECT_EQ(static_cast<int>(packages.size()), m.packages);
        EXPECT_EQ(t.nr_cpus(), m.cpus);
        EXPECT_LE(t.nr_cpus(), kMaxCpus);
        EXPECT_EQ(t.nr_cpus(), 2 * t.nr_cores());
        EXPECT_EQ(t.llc_cpus(0).size(), static_cast<size_t>(m.llc_cpus));
        const int first = m.node0[1] - m.node0[0] + 1, second = m.node0[3] - m.node0[2] + 1;
        EXPECT_EQ(t.nodes[0].cpus.size(), static_cast<size_t>(first + second));
        for (int c : m.node0)
            EXPECT_EQ(t.node_of(c), 0) << c;
        EXPECT_EQ(t.smt_siblings(m.node0[1]), (std::vector<int>{m.node0[1], m.node0[3]}));
        EXPECT_EQ(t.node_of(m.node0[1] + 1), 1);
        EXPECT_EQ(slit_row(t, 0), m.slit);
        // The packages are alike: each node sees the distances its counterpart in package 0 sees.
        const int per_package = m.nodes / m.packages;
        for (int a = per_package; a < t.nr_nodes(); ++a) {
            std::vector<int> row = slit_row(t, a), mirror = slit_row(t, a % per_package);
            std::sort(row.begin(), row.end());
            std::sort(mirror.begin(), mirror.end());
            EXPECT_EQ(row, mirror) << a;
        }
    }
}

// Granite Rapids' dies differ: 43, 43 and 42 cores per socket, numbered die by die, the second
// threads after all first threads.
TEST(Presets, GraniteRapidsSnc3NodesFollowTheDies) {
    const Topology t = load_preset("graniterapids-2s-snc3");
    const std::vector<size_t> sizes = {86, 86, 84, 86, 86, 84};
    for (int n = 0; n < t.nr_nodes(); ++n)
        EXPECT_EQ(t.nodes[n].cpus.size(), sizes[n]) << n;
    EXPECT_EQ(t.node_of(127), 2);
    EXPECT_EQ(t.node_of(128), 3);
    EXPECT_EQ(t.node_of(383), 2);
    EXPECT_EQ(t.node_of(511), 5);
    EXPECT_EQ(t.smt_siblings(100), (std::vector<int>{100, 356}));
    EXPECT_EQ(t.cpus[128].package, 1);
    EXPECT_EQ(t.hw.llc_bytes, uint64_t{168} << 20);
}

TEST(Presets, TinyMirrorsOracleGuest) {
    Topology t = load_preset("tiny-2n");
    EXPECT_EQ(t.nodes[0].cpus, (std::vector<int>{0, 1}));
    EXPECT_EQ(t.nodes[1].cpus, (std::vector<int>{2, 3}));
    EXPECT_EQ(t.nodes[1].mem_bytes, 2ull << 30);
    EXPECT_EQ(t.node_distance(0, 1), 21);
}

// The tiering series' machine: two sockets, each with its DRAM node and a CPU-less Optane node
// onlined by dax/kmem, the PMEM nodes numbered after the sockets as Linux numbers them.
TEST(Presets, CascadeLakePmemHasTwoOptaneNodes) {
    const Topology t = load_preset("cascadelake-2s-pmem");
    ASSERT_EQ(t.nr_nodes(), 4);
    EXPECT_EQ(t.nr_cpus(), 72);
    EXPECT_EQ(t.nodes[0].cpus.size(), 36u);
    for (int n : {2, 3}) {
        SCOPED_TRACE(n);
        EXPECT_TRUE(t.nodes[n].cpus.empty());
        EXPECT_EQ(t.nodes[n].device.kind, MemoryKind::kPmem);
        EXPECT_TRUE(t.nodes[n].device.dax_kmem);
        EXPECT_DOUBLE_EQ(t.nodes[n].device.latency_ns, 305.0);
        EXPECT_DOUBLE_EQ(t.nodes[n].device.bandwidth_gbs, 39.4);
        EXPECT_EQ(t.nearest_cpu_node(n), n - 2);
    }
    EXPECT_EQ(t.node_distance(0, 2), 17);
    EXPECT_EQ(t.node_distance(0, 3), 28);
    EXPECT_TRUE(t.hmat);
}

TEST(Presets, SapphireRapidsCxlHasAnExpanderPerSocket) {
    const Topology t = load_preset("sapphirerapids-2s-cxl");
    ASSERT_EQ(t.nr_nodes(), 4);
    EXPECT_EQ(t.nr_cpus(), 224);
    for (int n : {2, 3}) {
        SCOPED_TRACE(n);
        EXPECT_TRUE(t.nodes[n].cpus.empty());
        EXPECT_EQ(t.nodes[n].device.kind, MemoryKind::kCxl);
        EXPECT_TRUE(t.nodes[n].device.dax_kmem);
        EXPECT_EQ(t.nodes[n].mem_bytes, 128ull << 30);
        EXPECT_EQ(t.nearest_cpu_node(n), n - 2);
    }
    // About 100 ns over local DDR5 (docs/model.md).
    EXPECT_DOUBLE_EQ(t.nodes[2].device.latency_ns - t.hw.latency(10), 100.0);
}

TEST(Presets, UnknownPresetListsValidNames) {
    try {
        load_preset("haswell-3s");
        FAIL();
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("haswell-2s"), std::string::npos) << e.what();
    }
}

TEST(Presets, ResolveUnknownNamesFileAndKey) {
    try {
        resolve_machine("no-such-box", "scen.toml", "machine");
        FAIL();
    } catch (const InputError& e) {
        std::string w = e.what();
        EXPECT_NE(w.find("scen.toml"), std::string::npos) << w;
        EXPECT_NE(w.find("machine"), std::string::npos) << w;
        EXPECT_NE(w.find("tiny-2n"), std::string::npos) << w;
    }
}

TEST(Presets, ResolveAcceptsPresetFileAndHwloc) {
    EXPECT_EQ(resolve_machine("tiny-4n", "").nr_nodes(), 4);
    const std::string dir = NUMASIM_SOURCE_DIR "/src/machine/presets/";
    EXPECT_EQ(resolve_machine(dir + "power9-2s.toml", "").name, "power9-2s");
    // Relative paths are taken from the directory of the naming file.
    EXPECT_EQ(resolve_machine("power9-2s.toml", dir + "scenario.toml").nr_cpus(), 128);
    EXPECT_EQ(resolve_machine("hwloc:data/two_nodes.xml",
                              NUMASIM_SOURCE_DIR "/tests/machine/scenario.toml")
                  .nr_nodes(),
              2);
    EXPECT_GE(resolve_machine("hwloc:host", "").nr_nodes(), 1);
    EXPECT_THROW(resolve_machine("hwloc:", "s.toml"), InputError);
}

TEST(Presets, ListingHasOneAlignedLinePerPreset) {
    std::string text = list_presets_text();
    std::vector<std::string> lines;
    size_t pos = 0;
    while (pos < text.size()) {
        size_t nl = text.find('\n', pos);
        lines.push_back(text.substr(pos, nl - pos));
        pos = nl + 1;
    }
    ASSERT_EQ(lines.size(), preset_names().size() + 1);  // plus the header
    const size_t desc_col = lines[0].find("DESCRIPTION");
    for (const auto& l : lines) {
        ASSERT_GT(l.size(), desc_col) << l;
        EXPECT_EQ(l[desc_col - 1], ' ') << l;  // every description starts in the same column
        EXPECT_NE(l[desc_col], ' ') << l;
    }
    EXPECT_NE(text.find("288 (144x2)"), std::string::npos) << text;
    EXPECT_NE(text.find("160 (20x8)"), std::string::npos) << text;
}

}  // namespace
}  // namespace numasim
