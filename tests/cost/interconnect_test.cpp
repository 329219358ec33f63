// Links and routes derived from the presets' SLITs.
#include "cost/interconnect.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "machine/presets.h"
#include "machine/topology.h"

namespace numasim {
namespace {

std::set<int> neighbours(const Interconnect& net, int n, int nodes) {
    std::set<int> out;
    for (int b = 0; b < nodes; ++b)
        if (net.direct(n, b) >= 0) out.insert(b);
    return out;
}

// (from, to, share) of each hop of a route, sorted.
std::vector<std::tuple<int, int, double>> hops(const Interconnect& net, int a, int b) {
    std::vector<std::tuple<int, int, double>> out;
    for (const auto& h : net.route(a, b))
        out.emplace_back(net.link(h.link).from, net.link(h.link).to, h.share);
    std::sort(out.begin(), out.end());
    return out;
}

TEST(Interconnect, TwoSocketsShareOneLinkEachWay) {
    const Topology t = load_preset("cascadelake-2s");
    Interconnect net;
    net.init(t);
    EXPECT_EQ(net.nr_links(), 2);
    EXPECT_GE(net.direct(0, 1), 0);
    EXPECT_NE(net.direct(0, 1), net.direct(1, 0));
    EXPECT_TRUE(net.route(0, 0).empty());
    ASSERT_EQ(net.route(0, 1).size(), 1u);
    EXPECT_EQ(net.route(0, 1)[0].link, net.direct(0, 1));
    EXPECT_DOUBLE_EQ(net.route(0, 1)[0].share, 1.0);
}

TEST(Interconnect, GluelessEightSocketsRouteTwoHopsThroughCommonNeighbours) {
    // x86-8s-144c: ring plus long diagonals, 21 one hop, 31 two hops. Node 0's neighbours are
    // 1, 4 and 7 (distance 21); node 2 is reached only through 1; node 3 through 4 or 7.
    const Topology t = load_preset("x86-8s-144c");
    Interconnect net;
    net.init(t);
    EXPECT_EQ(net.nr_links(), 8 * 3);
    EXPECT_EQ(neighbours(net, 0, 8), (std::set<int>{1, 4, 7}));
    EXPECT_EQ(neighbours(net, 3, 8), (std::set<int>{2, 4, 7}));
    EXPECT_LT(net.direct(2, 0), 0);
    using H = std::tuple<int, int, double>;
    EXPECT_EQ(hops(net, 2, 0), (std::vector<H>{{1, 0, 1.0}, {2, 1, 1.0}}));
    EXPECT_EQ(hops(net, 3, 0),
              (std::vector<H>{{3, 4, 0.5}, {3, 7, 0.5}, {4, 0, 0.5}, {7, 0, 0.5}}));
    EXPECT_EQ(hops(net, 0, 1), (std::vector<H>{{0, 1, 1.0}}));
}

// The links the machines of issue 39 get from their SLITs (each preset's [source] says why):
// Turin's nodes all directly linked in NPS1 and NPS4; Granite Rapids' six dies a ring, the
// sockets joined at their outer dies; the 8-socket Sapphire Rapids a folded cube (4 neighbours);
// the Superdome Flex a ring of 4 in each chassis, every other chassis' sockets directly.
TEST(Interconnect, MachinesOfIssue39) {
    struct Row {
        const char* name;
        int links;  // one per direction
        std::set<int> node0;
    };
    const Row rows[] = {
        {"turin-2s-nps1", 2, {1}},
        {"turin-2s-nps4", 8 * 7, {1, 2, 3, 4, 5, 6, 7}},
        {"graniterapids-2s-snc3", 6 * 2, {1, 3}},
        {"sapphirerapids-8s", 8 * 4, {1, 2, 4, 7}},
        {"superdome-flex-16s", 16 * 14, {1, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}},
    };
    for (const auto& r : rows) {
        SCOPED_TRACE(r.name);
        const Topology t = load_preset(r.name);
        Interconnect net;
        net.init(t);
        EXPECT_EQ(net.nr_links(), r.links);
        EXPECT_EQ(neighbours(net, 0, t.nr_nodes()), r.node0);
    }
    // Granite Rapids: node 1 (the middle die) reaches the other socket over either outer die.
    const Topology gnr = load_preset("graniterapids-2s-snc3");
    Interconnect net;
    net.init(gnr);
    using H = std::tuple<int, int, double>;
    EXPECT_EQ(hops(net, 1, 4),
              (std::vector<H>{
                  {0, 3, 0.5}, {1, 0, 0.5}, {1, 2, 0.5}, {2, 5, 0.5}, {3, 4, 0.5}, {5, 4, 0.5}}));
}

TEST(Interconnect, BackplanesAndFlatMachinesAreFullyConnected) {
    // POWER8 2s4n and POWER7 4s: 10/20/40 with no node closer to both ends of a 40 pair, the
    // kernel's NUMA_BACKPLANE; tiny-4n: all 21.
    for (const char* name : {"power8-2s4n", "power7-4s", "tiny-4n"}) {
        const Topology t = load_preset(name);
        Interconnect net;
        net.init(t);
        EXPECT_EQ(net.nr_links(), 4 * 3) << name;
        for (int a = 0; a < 4; ++a)
            for (int b = 0; b < 4; ++b) {
                const size_t expected = a != b ? 1 : 0;
                EXPECT_EQ(net.route(a, b).size(), expected) << name << a << b;
            }
    }
}

}  // namespace
}  // namespace numasim
