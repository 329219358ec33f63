// What a load to a memory-only node costs (cost/node_figures.h), worked by hand on the tiering
// presets, and the route the far socket's loads take to a device.
#include "cost/node_figures.h"

#include <gtest/gtest.h>

#include <set>
#include <utility>

#include "cost/interconnect.h"
#include "machine/presets.h"

namespace numasim {
namespace {

// cascadelake-2s-pmem: DRAM 85 ns local, 140 ns remote, 100 GB/s; PMEM 305 ns from its own
// socket, 39.4 GB/s.
TEST(NodeFigures, PmemFromEachSocket) {
    const Topology t = load_preset("cascadelake-2s-pmem");
    EXPECT_DOUBLE_EQ(idle_latency_ns(t, 0, 0), 85.0);
    EXPECT_DOUBLE_EQ(idle_latency_ns(t, 0, 1), 140.0);
    EXPECT_DOUBLE_EQ(idle_latency_ns(t, 0, 2), 305.0);
    EXPECT_DOUBLE_EQ(idle_latency_ns(t, 1, 2), 305.0 + 140.0 - 85.0);  // over UPI to socket 0
    EXPECT_DOUBLE_EQ(idle_latency_ns(t, 1, 3), 305.0);
    // A link's end: the same figure the other way round.
    EXPECT_DOUBLE_EQ(idle_latency_ns(t, 2, 0), 305.0);
    EXPECT_DOUBLE_EQ(idle_latency_ns(t, 2, 1), 360.0);
    // Between the devices: through both host sockets.
    EXPECT_DOUBLE_EQ(idle_latency_ns(t, 2, 3), 360.0);
    EXPECT_DOUBLE_EQ(memory_bandwidth_gbs(t, 0), 100.0);
    EXPECT_DOUBLE_EQ(memory_bandwidth_gbs(t, 2), 39.4);
    EXPECT_DOUBLE_EQ(memory_latency_ns(t, 0), 85.0);
    EXPECT_DOUBLE_EQ(memory_latency_ns(t, 3), 305.0);
}

// A machine without devices keeps the SLIT's figures, as before memory-only nodes existed.
TEST(NodeFigures, PlainMachineUsesTheSlit) {
    const Topology t = load_preset("power8-2s4n");
    for (int a = 0; a < t.nr_nodes(); ++a) {
        EXPECT_DOUBLE_EQ(memory_bandwidth_gbs(t, a), t.hw.dram_bandwidth_gbs);
        EXPECT_DOUBLE_EQ(memory_latency_ns(t, a), t.hw.latency(10));
        for (int b = 0; b < t.nr_nodes(); ++b)
            EXPECT_DOUBLE_EQ(idle_latency_ns(t, a, b), t.hw.latency(t.node_distance(a, b)));
    }
}

// The far socket reaches a CXL expander through the expander's host: node 0 is closer to both
// node 1 and node 2 than they are to each other (SLIT 21, 14 < 24).
TEST(NodeFigures, FarSocketRoutesThroughTheHost) {
    const Topology t = load_preset("sapphirerapids-2s-cxl");
    Interconnect net;
    net.init(t);
    EXPECT_LT(net.direct(1, 2), 0);
    std::set<std::pair<int, int>> links;
    for (const auto& hop : net.route(1, 2))
        links.emplace(net.link(hop.link).from, net.link(hop.link).to);
    EXPECT_EQ(links, (std::set<std::pair<int, int>>{{1, 0}, {0, 2}}));
}

}  // namespace
}  // namespace numasim
