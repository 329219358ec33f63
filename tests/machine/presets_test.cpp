#include <gtest/gtest.h>

#include <set>

#include "config/input_error.h"
#include "machine/presets.h"

namespace numasim {
namespace {

struct Expect {
    const char* name;
    int nodes, sockets, cores, threads;
    int llcs_per_node;
};

// Nodes, sockets, cores and SMT width as documented in docs/machines.md.
const Expect kExpected[] = {
    {"tiny-2n", 2, 2, 4, 1, 1},         {"tiny-4n", 4, 4, 4, 1, 1},
    {"haswell-2s", 2, 2, 24, 2, 1},     {"haswell-2s-24c", 2, 2, 24, 2, 1},
    {"power8-2s4n", 4, 2, 20, 8, 5},    {"power9-2s", 2, 2, 32, 4, 8},
    {"power7-4s", 4, 4, 32, 4, 8},      {"x86-8s-144c", 8, 8, 144, 2, 1},
    {"cascadelake-2s", 2, 2, 40, 2, 1},
};

TEST(Presets, AllExpectedPresetsExist) {
    auto names = preset_names();
    std::set<std::string> have(names.begin(), names.end());
    for (const auto& e : kExpected)
        EXPECT_TRUE(have.count(e.name)) << e.name;
    EXPECT_EQ(names.size(), std::size(kExpected));
}

TEST(Presets, EveryPresetLoadsAndIsConsistent) {
    for (const auto& e : kExpected) {
        SCOPED_TRACE(e.name);
        Topology t = load_preset(e.name);
        EXPECT_EQ(t.name, e.name);
        EXPECT_FALSE(t.description.empty());
        EXPECT_FALSE(t.source.empty());
        EXPECT_NO_THROW(t.validate("test"));
        EXPECT_EQ(t.nr_nodes(), e.nodes);
        EXPECT_EQ(t.nr_cores(), e.cores);
        EXPECT_EQ(t.nr_cpus(), e.cores * e.threads);
        EXPECT_EQ(t.nr_llcs(), e.nodes * e.llcs_per_node);
        std::set<int> packages;
        for (const auto& c : t.cpus)
            packages.insert(c.package);
        EXPECT_EQ(static_cast<int>(packages.size()), e.sockets);
        for (int a = 0; a < t.nr_nodes(); ++a) {
            EXPECT_EQ(t.node_distance(a, a), 10);
            for (int b = 0; b < t.nr_nodes(); ++b)
                EXPECT_EQ(t.node_distance(a, b), t.node_distance(b, a));
        }
        for (int c = 0; c < t.nr_cpus(); ++c) {
            auto sib = t.smt_siblings(c);
            ASSERT_EQ(static_cast<int>(sib.size()), e.threads);
            for (int s : sib)
                EXPECT_EQ(t.node_of(s), t.node_of(c));
            for (int s : t.llc_cpus(c))
                EXPECT_EQ(t.node_of(s), t.node_of(c));
        }
        EXPECT_GT(t.total_mem_bytes(), 0u);
        EXPECT_GT(t.hw.latency(t.max_distance()), t.hw.latency(10));
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

TEST(Presets, TinyMirrorsOracleGuest) {
    Topology t = load_preset("tiny-2n");
    EXPECT_EQ(t.nodes[0].cpus, (std::vector<int>{0, 1}));
    EXPECT_EQ(t.nodes[1].cpus, (std::vector<int>{2, 3}));
    EXPECT_EQ(t.nodes[1].mem_bytes, 2ull << 30);
    EXPECT_EQ(t.node_distance(0, 1), 21);
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
