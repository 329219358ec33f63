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

}  // namespace
}  // namespace numasim
