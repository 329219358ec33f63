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
