#include "report/machine_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <map>
#include <set>

namespace numasim {

namespace {

// "0-3,8-11": CPU lists as the kernel's cpulist files print them.
std::string cpu_list(const std::vector<int>& cpus) {
    std::string s;
    for (size_t i = 0; i < cpus.size();) {
        size_t j = i;
        while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1)
            ++j;
        if (!s.empty()) s += ',';
        s += j > i ? fmt::format("{}-{}", cpus[i], cpus[j]) : std::to_string(cpus[i]);
        i = j + 1;
    }
    return s;
}

}  // namespace

std::string machine_text(const Topology& m, const MemoryTiers* tiers) {
    std::string s;
    auto it = std::back_inserter(s);
    fmt::format_to(it, "machine: {}\n", m.name);
    if (!m.description.empty()) fmt::format_to(it, "description: {}\n", m.description);
    // numactl --hardware
    fmt::format_to(it, "available: {} nodes (0-{})\n", m.nr_nodes(), m.nr_nodes() - 1);
    for (const NodeInfo& n : m.nodes) {
        fmt::format_to(it, "node {} cpus:", n.id);
        for (const int c : n.cpus)
            fmt::format_to(it, " {}", c);
        fmt::format_to(it, "\nnode {} size: {} MB\n", n.id, n.mem_bytes >> 20);
    }
    // numactl's print_distances(): "% 3d " per column, "% 3d: " before each row.
    s += "node distances:\nnode ";
    for (int j = 0; j < m.nr_nodes(); ++j)
        fmt::format_to(it, "{:>3} ", j);
    s += '\n';
    for (int i = 0; i < m.nr_nodes(); ++i) {
        fmt::format_to(it, "{:>3}: ", i);
        for (int j = 0; j < m.nr_nodes(); ++j)
            fmt::format_to(it, "{:>3} ", m.node_distance(i, j));
        s += '\n';
    }
    // lstopo: package > LLC > core > PUs.
    fmt::format_to(
        it, "topology: {} packages, {} LLCs, {} cores, {} CPUs\n",
        [&] {
            std::set<int> p;
            for (const CpuInfo& c : m.cpus)
                p.insert(c.package);
            return p.size();
        }(),
        m.nr_llcs(), m.nr_cores(), m.nr_cpus());
    std::map<int, std::map<int, std::map<int, std::vector<int>>>> tree;
    for (const CpuInfo& c : m.cpus)
        tree[c.package][c.llc][c.core].push_back(c.id);
    for (const auto& [package, llcs] : tree) {
        fmt::format_to(it, "  Package P#{}\n", package);
        for (const auto& [llc, cores] : llcs) {
            std::vector<int> cpus;
            for (const auto& [core, pus] : cores)
                cpus.insert(cpus.end(), pus.begin(), pus.end());
            std::sort(cpus.begin(), cpus.end());
            fmt::format_to(it, "    LLC L#{} ({} KB, node {}): cpus {}\n", llc,
                           m.hw.llc_bytes >> 10, m.node_of(cpus.front()), cpu_list(cpus));
            for (const auto& [core, pus] : cores) {
                fmt::format_to(it, "      Core L#{}:", core);
                for (const int pu : pus)
                    fmt::format_to(it, " PU P#{}", pu);
                s += '\n';
            }
        }
    }
    s += "hardware:\n";
    for (const auto& [distance, ns] : m.hw.latency_ns)
        fmt::format_to(it, "  latency at distance {}: {} ns\n", distance, ns);
    fmt::format_to(it,
                   "  dram_bandwidth_gbs: {}\n  link_bandwidth_gbs: {}\n  llc_bytes: {}\n"
                   "  llc_latency_ns: {}\n  line_fill_buffers: {}\n  smt_core_speedup: {}\n"
                   "  cpu_ghz: {}\n  page_size: {}\n  hpage_pmd_size: {}\n",
                   m.hw.dram_bandwidth_gbs, m.hw.link_bandwidth_gbs, m.hw.llc_bytes,
                   m.hw.llc_latency_ns, m.hw.line_fill_buffers, m.hw.smt_core_speedup, m.hw.cpu_ghz,
                   m.hw.pages.size(), m.hw.pages.pmd_size());
    if (m.has_memory_only_nodes()) {
        fmt::format_to(it, "  hmat: {}\nmemory-only nodes:\n", m.hmat);
        for (const NodeInfo& n : m.nodes) {
            if (!n.cpus.empty()) continue;
            const MemoryDevice& d = n.device;
            fmt::format_to(it, "  node {}: {}, {} MB, onlined {}", n.id, memory_kind_name(d.kind),
                           n.mem_bytes >> 20, d.dax_kmem ? "by dax/kmem" : "at boot");
            if (d.latency_ns > 0) fmt::format_to(it, ", latency {} ns", d.latency_ns);
            if (d.bandwidth_gbs > 0) fmt::format_to(it, ", bandwidth {} GB/s", d.bandwidth_gbs);
            s += '\n';
        }
    }
    if (tiers) s += memory_tiers_text(*tiers);
    if (!m.source.empty()) fmt::format_to(it, "source: {}\n", m.source);
    return s;
}

}  // namespace numasim
