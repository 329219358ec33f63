#include "machine/hmat.h"

#include <cmath>

namespace numasim {

namespace {

constexpr double kMBPerGB = 1000.0;  // the HMAT's bandwidth unit is MB/s

}  // namespace

HmatFigures hmat_figures(const Topology& t, int n) {
    const MemoryDevice& d = t.nodes[n].device;
    const int host = t.nearest_cpu_node(n);
    const double lat = d.latency_ns > 0 ? d.latency_ns : t.hw.latency(t.node_distance(host, n));
    const double bw = d.bandwidth_gbs > 0 ? d.bandwidth_gbs : t.hw.dram_bandwidth_gbs;
    return {std::llround(lat), std::llround(bw * kMBPerGB)};
}

}  // namespace numasim
