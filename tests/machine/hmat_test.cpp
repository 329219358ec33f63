// What a machine's HMAT says of each node (machine/hmat.h), worked by hand on
// cascadelake-2s-pmem: DRAM 85 ns and 100 GB/s locally ([hardware]), Optane 305 ns and
// 39.4 GB/s ([[memory_node]]), node 2 nearest to socket 0 (SLIT 17) and node 3 to socket 1.
#include "machine/hmat.h"

#include <gtest/gtest.h>

#include "machine/presets.h"

namespace numasim {
namespace {

TEST(HmatFigures, CpuNodesAreLocalDramDevicesTheirOwnFigures) {
    const Topology t = load_preset("cascadelake-2s-pmem");
    EXPECT_EQ(hmat_figures(t, 0).latency_ns, 85);
    EXPECT_EQ(hmat_figures(t, 1).bandwidth_mbs, 100000);
    EXPECT_EQ(hmat_figures(t, 2).latency_ns, 305);
    EXPECT_EQ(hmat_figures(t, 3).bandwidth_mbs, 39400);
}

TEST(HmatFigures, PlainCpuLessDramIsDramAtItsDistanceFromTheHost) {
    Topology t = load_preset("cascadelake-2s-pmem");
    t.nodes[2].device = MemoryDevice{};
    // SLIT 17 has no latency of its own: 85 ns x 17 / 10 = 144.5 ns, rounded to 145.
    EXPECT_EQ(hmat_figures(t, 2).latency_ns, 145);
    EXPECT_EQ(hmat_figures(t, 2).bandwidth_mbs, 100000);
}

}  // namespace
}  // namespace numasim
