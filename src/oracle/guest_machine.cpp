#include "oracle/guest_machine.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "config/input_error.h"
#include "machine/cpu_layout.h"

namespace numasim {

namespace {

// qemu's memory backends take sizes in MiB; 128 MiB steps keep every node a whole number of
// memory sections (x86-64 SECTION_SIZE_BITS = 27), as the guest's memory hotplug code expects.
constexpr uint64_t kMemStep = uint64_t{128} << 20;

std::string gib(uint64_t bytes) {
    return fmt::format("{:.2f} GiB", static_cast<double>(bytes) / (1 << 30));
}

}  // namespace

GuestMachine fit_guest_machine(const Topology& m, const GuestLimits& lim,
                               const std::string& origin) {
    GuestMachine g;
    const int total_cpus = m.nr_cpus();
    int cpu_nodes = 0;
    for (const auto& n : m.nodes)
        cpu_nodes += !n.cpus.empty();
    if (cpu_nodes > lim.max_vcpus)
        throw InputError(origin, "machine",
                         fmt::format("the machine has {} nodes with CPUs but the guest may have "
                                     "at most {} vCPUs (--max-vcpus)",
                                     cpu_nodes, lim.max_vcpus));
    const int smt = m.cpus.empty() ? 1 : static_cast<int>(m.smt_siblings(0).size());
    std::vector<int> per_node;
    for (const auto& n : m.nodes) {
        const int c = static_cast<int>(n.cpus.size());
        per_node.push_back(total_cpus <= lim.max_vcpus || c == 0
                               ? c
                               : std::max(1, lim.max_vcpus * c / total_cpus));
    }
    const bool cpus_scaled = total_cpus > lim.max_vcpus;
    g.threads_per_core = smt;
    for (int c : per_node)
        if (c % smt != 0) g.threads_per_core = 1;
    if (cpus_scaled) {
        int now = 0;
        for (int c : per_node)
            now += c;
        g.scaled.push_back(
            fmt::format("CPUs: {} -> {} ({} per node{}; at most {} vCPUs, --max-vcpus)", total_cpus,
                        now, fmt::join(per_node, "/"),
                        g.threads_per_core < smt ? ", without SMT" : "", lim.max_vcpus));
    }

    uint64_t total_mem = m.total_mem_bytes();
    std::vector<uint64_t> mem;
    const bool mem_scaled = lim.max_mem_bytes && total_mem > lim.max_mem_bytes;
    for (const auto& n : m.nodes) {
        uint64_t b = n.mem_bytes;
        if (mem_scaled)
            b = static_cast<uint64_t>(static_cast<double>(b) * lim.max_mem_bytes / total_mem);
        b = b / kMemStep * kMemStep;
        if (n.mem_bytes && b == 0) b = kMemStep;
        mem.push_back(b);
    }
    if (mem_scaled) {
        uint64_t now = 0;
        for (uint64_t b : mem)
            now += b;
        g.scaled.push_back(fmt::format("memory: {} -> {} (the host can give the guest {})",
                                       gib(total_mem), gib(now), gib(lim.max_mem_bytes)));
    }

    std::vector<ExplicitNode> nodes;
    int next_cpu = 0;
    for (size_t i = 0; i < m.nodes.size(); ++i) {
        ExplicitNode n;
        n.package = static_cast<int>(i);  // qemu: one socket per node
        n.mem_bytes = mem[i];
        for (int c = 0; c < per_node[i]; c += g.threads_per_core) {
            std::vector<int> core;
            for (int t = 0; t < g.threads_per_core; ++t)
                core.push_back(next_cpu++);
            n.cores.push_back(core);
        }
        nodes.push_back(std::move(n));
    }
    g.topo.name = m.name;
    g.topo.description = m.description;
    g.topo.source = m.source;
    g.topo.distance = m.distance;
    g.topo.hw = m.hw;
    build_explicit_layout(nodes, g.topo);
    g.topo.validate(origin);
    return g;
}

void publish_hmat(const Topology& m, GuestMachine& g) {
    for (size_t i = 0; i < m.nodes.size(); ++i) {
        if (!m.nodes[i].cpus.empty()) continue;
        g.topo.nodes[i].device = m.nodes[i].device;
        g.topo.nodes[i].device.dax_kmem = false;
    }
    g.topo.hmat = true;
}

uint64_t host_guest_memory_budget() {
    std::ifstream in("/proc/meminfo");
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream s(line);
        std::string key;
        uint64_t kb = 0;
        if (s >> key >> kb && key == "MemAvailable:") return kb * 1024 / 2;
    }
    return 0;
}

}  // namespace numasim
