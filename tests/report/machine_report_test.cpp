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

}  // namespace
}  // namespace numasim
