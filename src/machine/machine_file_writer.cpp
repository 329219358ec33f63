#include "machine/machine_file_writer.h"

#include <fmt/format.h>

#include <algorithm>

#include "config/toml_reader.h"

namespace numasim {

namespace {

// The shortest decimal that reads back as the same double ("{}" is fmt's round-trip format),
// with a fraction so that TOML reads it as a float.
std::string toml_float(double v) {
    std::string s = fmt::format("{}", v);
    if (s.find_first_of(".eE") == std::string::npos) s += ".0";
    return s;
}

class Writer {
  public:
    explicit Writer(const MachineFileComments& c) : c_(c) {}

    void line(const std::string& s) { out_ += s + "\n"; }
    // `key = value`, with the comment for `id` above it if there is one.
    void key(const std::string& id, const std::string& key, const std::string& value) {
        auto it = c_.keys.find(id);
        if (it != c_.keys.end()) line("# " + it->second);
        line(key + " = " + value);
    }
    std::string text() const { return out_; }

  private:
    const MachineFileComments& c_;
    std::string out_;
};

// A node's cores in the order the reader needs: an LLC's cores consecutive, so that `llcs`
// splits them as the machine does.
std::vector<std::vector<int>> node_cores(const Topology& topo, const NodeInfo& n) {
    std::map<int, std::vector<int>> by_core;
    for (int cpu : n.cpus)
        by_core[topo.cpus[cpu].core].push_back(cpu);
    std::vector<std::vector<int>> cores;
    for (auto& [id, cpus] : by_core)
        cores.push_back(cpus);
    std::stable_sort(cores.begin(), cores.end(), [&](const auto& a, const auto& b) {
        return topo.cpus[a.front()].llc < topo.cpus[b.front()].llc;
    });
    return cores;
}

// The number of LLCs to give, or 0 when the node's LLCs hold different numbers of cores, which
// the format cannot say (it splits a node's cores evenly).
int node_llcs(const Topology& topo, const std::vector<std::vector<int>>& cores) {
    std::map<int, size_t> per_llc;
    for (const auto& c : cores)
        ++per_llc[topo.cpus[c.front()].llc];
    for (const auto& [llc, count] : per_llc)
        if (count != per_llc.begin()->second) return 0;
    return static_cast<int>(per_llc.size());
}

std::string int_list(const std::vector<int>& v) {
    return fmt::format("[{}]", fmt::join(v, ", "));
}

void write_nodes(const Topology& topo, Writer& w) {
    // Memory-only nodes are [[memory_node]] tables, which the reader numbers after every node
    // with CPUs; one that comes before a node with CPUs stays a CPU-less [[node]] (plain DRAM).
    int first_trailing = topo.nr_nodes();
    while (first_trailing > 0 && topo.nodes[first_trailing - 1].cpus.empty())
        --first_trailing;
    for (int i = 0; i < first_trailing; ++i) {
        const NodeInfo& n = topo.nodes[i];
        w.line("");
        w.line(fmt::format("[[node]]  # node {}", i));
        w.line(fmt::format("memory = {}", n.mem_bytes));
        const int package = n.cpus.empty() ? i : topo.cpus[n.cpus.front()].package;
        w.line(fmt::format("package = {}", package));
        if (n.cpus.empty()) continue;
        const auto cores = node_cores(topo, n);
        std::vector<std::string> groups;
        for (const auto& c : cores)
            groups.push_back(int_list(c));
        w.line(fmt::format("cores = [{}]", fmt::join(groups, ", ")));
        const int llcs = node_llcs(topo, cores);
        if (llcs == 0)
            w.line(
                "# the node's LLCs hold different numbers of cores; the format splits them "
                "evenly, so the node is one LLC here");
        w.line(fmt::format("llcs = {}", std::max(llcs, 1)));
    }
    for (int i = first_trailing, m = 0; i < topo.nr_nodes(); ++i, ++m) {
        const MemoryDevice& d = topo.nodes[i].device;
        const std::string id = fmt::format("memory_node[{}]", m);
        w.line("");
        w.line(fmt::format("[[memory_node]]  # node {}", i));
        w.line(fmt::format("memory = {}", topo.nodes[i].mem_bytes));
        w.line(fmt::format("kind = {}", toml_quote(memory_kind_name(d.kind))));
        if (d.latency_ns > 0) w.key(id + ".latency_ns", "latency_ns", toml_float(d.latency_ns));
        if (d.bandwidth_gbs > 0)
            w.key(id + ".bandwidth_gbs", "bandwidth_gbs", toml_float(d.bandwidth_gbs));
        w.line(fmt::format("online = {}", d.dax_kmem ? "\"kmem\"" : "\"boot\""));
    }
}

void write_hardware(const Topology& topo, Writer& w) {
    const MemoryHardware& hw = topo.hw;
    w.line("");
    w.line("[hardware]");
    // Distances present in the SLIT first, then any other the figures carry.
    for (const auto& [d, ns] : hw.latency_ns)
        w.key(fmt::format("latency_ns.{}", d), fmt::format("latency_ns.{}", d), toml_float(ns));
    w.key("dram_bandwidth_gbs", "dram_bandwidth_gbs", toml_float(hw.dram_bandwidth_gbs));
    w.key("link_bandwidth_gbs", "link_bandwidth_gbs", toml_float(hw.link_bandwidth_gbs));
    w.key("llc_mb", "llc_mb", toml_float(static_cast<double>(hw.llc_bytes) / (1 << 20)));
    w.key("llc_latency_ns", "llc_latency_ns", toml_float(hw.llc_latency_ns));
    w.key("line_fill_buffers", "line_fill_buffers", fmt::format("{}", hw.line_fill_buffers));
    w.key("smt_core_speedup", "smt_core_speedup", toml_float(hw.smt_core_speedup));
    w.key("cpu_ghz", "cpu_ghz", toml_float(hw.cpu_ghz));
    if (hw.memory_directory) w.key("memory_directory", "memory_directory", "true");
    w.key("page_size", "page_size", hw.pages.size() == 4096 ? "\"4KiB\"" : "\"64KiB\"");
    w.key("mmu", "mmu", hw.pages == kPages64KHash ? "\"hash\"" : "\"radix\"");
}

}  // namespace

std::string machine_file_text(const Topology& topo, const MachineFileComments& comments) {
    Writer w(comments);
    for (const std::string& h : comments.header)
        w.line(h.empty() ? "#" : "# " + h);
    w.line("");
    w.line("[machine]");
    w.line(fmt::format("name = {}", toml_quote(topo.name)));
    if (!topo.description.empty())
        w.line(fmt::format("description = {}", toml_quote(topo.description)));
    std::vector<std::string> rows;
    for (const auto& r : topo.distance)
        rows.push_back(int_list(r));
    w.line(fmt::format("distance = [{}]", fmt::join(rows, ", ")));
    if (topo.hmat) w.line("hmat = true");
    if (topo.cpu != CpuModel{}) w.line(fmt::format("cpu = {}", toml_quote(topo.cpu.name)));
    write_nodes(topo, w);
    write_hardware(topo, w);
    if (!topo.source.empty()) {
        w.line("");
        w.line("[source]");
        w.line(fmt::format("text = {}", toml_quote(topo.source)));
    }
    return w.text();
}

}  // namespace numasim
