// `numasim machines show`: numactl -H's layout and the lstopo-style tree of a preset.
#include "report/machine_report.h"

#include <gtest/gtest.h>

#include "machine/presets.h"

namespace numasim {
namespace {

TEST(MachineReport, NumactlHardwareLayout) {
    const std::string s = machine_text(load_preset("haswell-2s"));
    EXPECT_NE(s.find("available: 2 nodes (0-1)\n"), std::string::npos) << s;
    EXPECT_NE(s.find("node 0 size: 65536 MB\n"), std::string::npos) << s;
    EXPECT_NE(s.find("node distances:\nnode   0   1 \n  0:  10  21 \n  1:  21  10 \n"),
              std::string::npos)
        << s;
}

TEST(MachineReport, EveryCpuOnceUnderItsLlcWithItsSiblings) {
    const Topology m = load_preset("haswell-2s");
    const std::string s = machine_text(m);
    for (int c = 0; c < m.nr_cpus(); ++c) {
        const std::string pu = " PU P#" + std::to_string(c);
        const size_t at =
            s.find(pu + " ") != std::string::npos ? s.find(pu + " ") : s.find(pu + "\n");
        ASSERT_NE(at, std::string::npos) << c;
        // The core line lists the CPU's SMT siblings.
        const size_t line = s.rfind('\n', at);
        const std::string core = s.substr(line + 1, s.find('\n', at) - line - 1);
        for (const int sib : m.smt_siblings(c))
            EXPECT_NE(core.find(" PU P#" + std::to_string(sib)), std::string::npos) << core;
    }
    EXPECT_NE(s.find("LLC L#0 (30720 KB, node 0): cpus 0-11,24-35\n"), std::string::npos) << s;
}

// A machine without memory-only nodes prints no device lines, and no tiers unless given them.
TEST(MachineReport, PlainMachineHasNoTierLines) {
    const std::string s = machine_text(load_preset("haswell-2s"));
    EXPECT_EQ(s.find("memory-only nodes"), std::string::npos) << s;
    EXPECT_EQ(s.find("memory tiers"), std::string::npos) << s;
}

// numactl -H prints a CPU-less node's CPU line with nothing after the colon.
TEST(MachineReport, MemoryOnlyNodesAndTiers) {
    const Topology m = load_preset("sapphirerapids-2s-cxl");
    const MemoryTiers tiers = establish_memory_tiers(m, MemtierKernel::kFixed);
    const std::string s = machine_text(m, &tiers);
    EXPECT_NE(s.find("available: 4 nodes (0-3)\n"), std::string::npos) << s;
    EXPECT_NE(s.find("\nnode 2 cpus:\nnode 2 size: 131072 MB\n"), std::string::npos) << s;
    EXPECT_NE(s.find("  hmat: true\nmemory-only nodes:\n  node 2: cxl, 131072 MB, onlined by "
                     "dax/kmem, latency 215 ns, bandwidth 26 GB/s\n"),
              std::string::npos)
        << s;
    EXPECT_NE(s.find("Demotion targets for Node 0: preferred: 2, fallback: 2-3\n"),
              std::string::npos)
        << s;
    EXPECT_LT(s.find("memory tiers:"), s.find("source:"));
}

// The machines of issue 39 print as numactl -H prints them: the node count, node 0's CPUs (first
// threads, then their siblings) and size, and the SLIT's header and first row.
TEST(MachineReport, Issue39PresetsAsNumactlPrintsThem) {
    struct Row {
        const char* name;
        const char* available;
        const char* node0;
        const char* distances;
    };
    const Row rows[] = {
        {"turin-2s-nps1", "available: 2 nodes (0-1)\n", "node 0 size: 786432 MB\n",
         "node distances:\nnode   0   1 \n  0:  10  32 \n"},
        {"turin-2s-nps4", "available: 8 nodes (0-7)\n", "node 0 size: 196608 MB\n",
         "node   0   1   2   3   4   5   6   7 \n  0:  10  11  12  12  32  32  32  32 \n"},
        {"graniterapids-2s-snc3", "available: 6 nodes (0-5)\n", "node 0 size: 262144 MB\n",
         "node   0   1   2   3   4   5 \n  0:  10  15  17  21  26  26 \n"},
        {"sapphirerapids-8s", "available: 8 nodes (0-7)\n", "node 0 size: 262144 MB\n",
         "  0:  10  21  21  31  21  31  31  21 \n"},
        {"superdome-flex-16s", "available: 16 nodes (0-15)\n", "node 0 size: 196608 MB\n",
         "  0:  10  16  17  16  30  30  30  30  30  30  30  30  30  30  30  30 \n"},
    };
    for (const auto& r : rows) {
        SCOPED_TRACE(r.name);
        const Topology m = load_preset(r.name);
        const std::string s = machine_text(m);
        EXPECT_NE(s.find(r.available), std::string::npos) << s.substr(0, 400);
        EXPECT_NE(s.find(r.node0), std::string::npos);
        EXPECT_NE(s.find(r.distances), std::string::npos);
        // node 0's CPU line lists its CPUs in order, as numactl does.
        std::string cpus = "node 0 cpus:";
        for (int c : m.nodes[0].cpus) {
            cpus += ' ';  // appended apart: `" " + to_string` trips GCC 12's false -Wrestrict
            cpus += std::to_string(c);
        }
        EXPECT_NE(s.find(cpus + "\n"), std::string::npos);
    }
}

}  // namespace
}  // namespace numasim
