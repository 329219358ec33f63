#include "cost/node_figures.h"

namespace numasim {

namespace {

// ACPI SLIT's local distance.
constexpr int kLocalDistance = 10;

bool has_device_latency(const Topology& t, int n) {
    return t.nodes[n].device.latency_ns > 0;
}

// The CPUs an access comes from: a CPU-less node reaches memory through its host socket.
int initiator(const Topology& t, int n) {
    return t.nodes[n].cpus.empty() ? t.nearest_cpu_node(n) : n;
}

}  // namespace

double idle_latency_ns(const Topology& t, int from, int to) {
    if (!has_device_latency(t, to)) {
        if (has_device_latency(t, from)) return idle_latency_ns(t, to, from);
        return t.hw.latency(t.node_distance(from, to));
    }
    const int host = t.nearest_cpu_node(to);
    const int cpus = initiator(t, from);
    return t.nodes[to].device.latency_ns + t.hw.latency(t.node_distance(cpus, host)) -
           t.hw.latency(kLocalDistance);
}

double memory_bandwidth_gbs(const Topology& t, int n) {
    const double device = t.nodes[n].device.bandwidth_gbs;
    return device > 0 ? device : t.hw.dram_bandwidth_gbs;
}

double memory_latency_ns(const Topology& t, int n) {
    return has_device_latency(t, n) ? t.nodes[n].device.latency_ns : t.hw.latency(kLocalDistance);
}

}  // namespace numasim
