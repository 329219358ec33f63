#include "machine/machine_file.h"

#include <fmt/format.h>

#include <map>
#include <optional>

#include "config/input_error.h"
#include "config/limits.h"
#include "machine/cpu_layout.h"
#include "machine/cpu_model.h"
#include "machine/hardware_table.h"

namespace numasim {

namespace {

// kMaxCpus and kMaxNodes (config/limits.h) bound the counts below.
// POWER8 has the widest SMT of any Linux machine: 8 threads per core.
constexpr int64_t kMaxThreadsPerCore = 8;
// Default SLIT when a file gives none: 10 local and 21 remote, what two-socket Intel BIOSes
// publish (and what the qemu oracle uses).
constexpr int kDefaultLocalDistance = 10;
constexpr int kDefaultRemoteDistance = 21;

// Sanity bounds of a memory device's figures, as for [hardware]: they catch unit mistakes
// (ps for ns, MB/s for GB/s).
constexpr double kMaxDeviceLatencyNs = 10000.0;
constexpr double kMaxDeviceBandwidthGbs = 10000.0;

// Keys of [machine] that describe a regular layout; they conflict with [[node]] tables.
constexpr const char* kRegularKeys[] = {"sockets",          "nodes_per_socket", "cores_per_node",
                                        "threads_per_core", "llcs_per_node",    "memory_per_node",
                                        "cpu_numbering"};

int get_count(const TomlTable& t, const char* key, int64_t fallback, int64_t max) {
    int64_t v = fallback < 0 ? t.get_int(key) : t.get_int(key, fallback);
    if (v < 1 || v > max) t.fail(key, fmt::format("must be 1..{}, got {}", max, v));
    return static_cast<int>(v);
}

// A node's memory, at most kMaxNodeMemoryBytes (config/limits.h).
uint64_t get_memory(const TomlTable& t, const char* key, std::optional<uint64_t> fallback) {
    const uint64_t v = fallback ? t.get_size(key, *fallback) : t.get_size(key);
    if (v > kMaxNodeMemoryBytes)
        t.fail(key, fmt::format("at most {} TiB per node", kMaxNodeMemoryBytes >> 40));
    return v;
}

void read_regular(const TomlTable& m, Topology& topo) {
    RegularLayout l;
    l.sockets = get_count(m, "sockets", -1, kMaxNodes);
    l.nodes_per_socket = get_count(m, "nodes_per_socket", 1, kMaxNodes);
    l.cores_per_node = get_count(m, "cores_per_node", -1, kMaxCpus);
    l.threads_per_core = get_count(m, "threads_per_core", 1, kMaxThreadsPerCore);
    l.llcs_per_node = get_count(m, "llcs_per_node", 1, kMaxCpus);
    l.mem_per_node = get_memory(m, "memory_per_node", std::nullopt);
    std::string numbering = m.get_string("cpu_numbering", "siblings-last");
    auto n = parse_cpu_numbering(numbering);
    if (!n)
        m.fail("cpu_numbering", fmt::format("'{}' is not one of \"siblings-last\", "
                                            "\"siblings-adjacent\"",
                                            numbering));
    l.numbering = *n;
    if (l.sockets * l.nodes_per_socket > kMaxNodes)
        m.fail("nodes_per_socket", fmt::format("more than {} nodes in all", kMaxNodes));
    const int64_t cpus =
        int64_t{l.sockets} * l.nodes_per_socket * l.cores_per_node * l.threads_per_core;
    if (cpus > kMaxCpus)
        m.fail("cores_per_node",
               fmt::format("{} CPUs in all; at most {} are supported", cpus, kMaxCpus));
    if (l.cores_per_node % l.llcs_per_node != 0)
        m.fail("llcs_per_node", fmt::format("{} LLCs do not divide {} cores per node evenly",
                                            l.llcs_per_node, l.cores_per_node));
    build_regular_layout(l, topo);
}

// One [[node]] table: `cpus = [..]` (one core per CPU) or `cores = [[..], ..]` (SMT groups).
ExplicitNode read_node(const TomlTable& nt, int index, std::map<int64_t, int>& owner) {
    ExplicitNode n;
    n.package = static_cast<int>(nt.get_int("package", index));
    if (n.package < 0 || n.package >= kMaxNodes)
        nt.fail("package", fmt::format("must be 0..{}", kMaxNodes - 1));
    n.mem_bytes = get_memory(nt, "memory", 0);
    const bool has_cpus = nt.has("cpus"), has_cores = nt.has("cores");
    if (has_cpus && has_cores) nt.fail("cores", "give either 'cpus' or 'cores', not both");
    std::vector<std::vector<int64_t>> groups;
    const char* key = has_cores ? "cores" : "cpus";
    if (has_cores) {
        groups = nt.get_int_matrix("cores");
    } else if (has_cpus) {
        for (int64_t c : nt.get_int_array("cpus"))
            groups.push_back({c});
    }
    for (const auto& g : groups) {
        if (g.empty()) nt.fail(key, "a core must have at least one CPU");
        std::vector<int> core;
        for (int64_t c : g) {
            if (c < 0 || c >= kMaxCpus) nt.fail(key, fmt::format("CPU id {} out of range", c));
            auto [it, fresh] = owner.emplace(c, index);
            if (!fresh)
                nt.fail(key, fmt::format("CPU {} is already listed by node[{}]", c, it->second));
            core.push_back(static_cast<int>(c));
        }
        n.cores.push_back(std::move(core));
    }
    n.llcs = get_count(nt, "llcs", 1, kMaxCpus);
    if (!n.cores.empty() && n.cores.size() % n.llcs != 0)
        nt.fail("llcs", fmt::format("{} LLCs do not divide the node's {} cores evenly", n.llcs,
                                    n.cores.size()));
    nt.finish();
    return n;
}

void read_explicit(const TomlTable& root, const TomlTable& m, const std::vector<TomlTable>& tables,
                   Topology& topo) {
    for (const char* k : kRegularKeys)
        if (m.has(k))
            m.fail(k, "a machine with [[node]] tables takes its layout from them; remove this key");
    if (static_cast<int64_t>(tables.size()) > kMaxNodes)
        root.fail("node", fmt::format("at most {} nodes are supported", kMaxNodes));
    std::map<int64_t, int> owner;  // CPU id -> node index, to reject duplicates
    std::vector<ExplicitNode> nodes;
    for (size_t i = 0; i < tables.size(); ++i)
        nodes.push_back(read_node(tables[i], static_cast<int>(i), owner));
    int64_t expect = 0;
    for (const auto& [id, node] : owner) {
        if (id != expect)
            tables[node].fail_here(
                fmt::format("CPU ids must be 0..n-1 without gaps; CPU {} is "
                            "listed but CPU {} is not",
                            id, expect));
        ++expect;
    }
    build_explicit_layout(nodes, topo);
}

// A device figure of a [[memory_node]]: required for devices, optional (0: the machine's DRAM
// figure) for a plain DRAM node.
double read_device_figure(const TomlTable& nt, const char* key, double max, bool required) {
    if (!required && !nt.has(key)) return 0;
    const double v = nt.get_double(key);
    if (!(v > 0) || v > max) nt.fail(key, fmt::format("{} is out of range (0, {}]", v, max));
    return v;
}

// One [[memory_node]] table: a node with memory and no CPUs, and the device that memory is.
NodeInfo read_memory_node(const TomlTable& nt) {
    NodeInfo n;
    n.mem_bytes = get_memory(nt, "memory", std::nullopt);
    if (n.mem_bytes == 0) nt.fail("memory", "a memory-only node needs memory (> 0)");
    const std::string kind = nt.get_string("kind");
    const std::optional<MemoryKind> k = parse_memory_kind(kind);
    if (!k)
        nt.fail("kind",
                fmt::format("'{}' is not one of \"dram\", \"cxl\", \"pmem\", \"hbm\"", kind));
    n.device.kind = *k;
    const bool device = *k != MemoryKind::kDram;
    n.device.latency_ns = read_device_figure(nt, "latency_ns", kMaxDeviceLatencyNs, device);
    n.device.bandwidth_gbs =
        read_device_figure(nt, "bandwidth_gbs", kMaxDeviceBandwidthGbs, device);
    const std::string online = nt.get_string("online", default_dax_kmem(*k) ? "kmem" : "boot");
    if (online != "kmem" && online != "boot")
        nt.fail("online", fmt::format("'{}' is not one of \"kmem\", \"boot\"", online));
    n.device.dax_kmem = online == "kmem";
    nt.finish();
    return n;
}

// Appends the [[memory_node]] tables as nodes after those with CPUs, in file order.
void read_memory_nodes(const TomlTable& root, const std::vector<TomlTable>& tables,
                       Topology& topo) {
    if (static_cast<int64_t>(topo.nodes.size() + tables.size()) > kMaxNodes)
        root.fail("memory_node", fmt::format("at most {} nodes in all are supported", kMaxNodes));
    for (const TomlTable& nt : tables) {
        NodeInfo n = read_memory_node(nt);
        n.id = topo.nr_nodes();
        topo.nodes.push_back(std::move(n));
    }
}

std::vector<std::vector<int>> read_distance(const TomlTable& m, int nr_nodes) {
    std::vector<std::vector<int>> d(nr_nodes, std::vector<int>(nr_nodes, kDefaultRemoteDistance));
    for (int i = 0; i < nr_nodes; ++i)
        d[i][i] = kDefaultLocalDistance;
    if (!m.has("distance")) return d;
    auto rows = m.get_int_matrix("distance");
    if (static_cast<int>(rows.size()) != nr_nodes)
        m.fail("distance", fmt::format("matrix has {} rows but the machine has {} nodes",
                                       rows.size(), nr_nodes));
    for (int a = 0; a < nr_nodes; ++a) {
        if (static_cast<int>(rows[a].size()) != nr_nodes)
            m.fail("distance",
                   fmt::format("row {} has {} entries, expected {}", a, rows[a].size(), nr_nodes));
        for (int b = 0; b < nr_nodes; ++b) {
            if (rows[a][b] < 0 || rows[a][b] > 1000)
                m.fail("distance",
                       fmt::format("entry [{}][{}] = {} is out of range", a, b, rows[a][b]));
            d[a][b] = static_cast<int>(rows[a][b]);
        }
    }
    return d;
}

// Re-throws a validation error against the table that holds the key, so that the message
// carries the line number of the offending value.
[[noreturn]] void rethrow_with_line(const InputError& e, const TomlTable& m,
                                    const TomlTable& hardware) {
    const std::string& w = e.where();
    if (w == "distance" && m.has("distance")) m.fail("distance", e.problem());
    const std::string prefix = "hardware.";
    if (w.rfind(prefix, 0) == 0) {
        std::string key = w.substr(prefix.size());
        if (hardware.has(key)) hardware.fail(key, e.problem());
        hardware.fail_here(e.problem());
    }
    throw e;
}

}  // namespace

Topology load_machine(const TomlTable& t) {
    Topology topo;
    auto m = t.table("machine");
    if (!m) t.fail_here("missing the [machine] table");
    auto hardware = t.table("hardware");
    if (!hardware) t.fail_here("missing the [hardware] table");
    topo.name = m->get_string("name");
    if (topo.name.empty()) m->fail("name", "must not be empty");
    topo.description = m->get_string("description", "");

    auto node_tables = t.tables("node");
    if (node_tables.empty())
        read_regular(*m, topo);
    else
        read_explicit(t, *m, node_tables, topo);
    const auto memory_tables = t.tables("memory_node");
    read_memory_nodes(t, memory_tables, topo);
    // A memory-only node's SLIT says which socket it hangs off; no default can say that.
    if (!memory_tables.empty() && !m->has("distance"))
        m->fail("distance", fmt::format("required with [[memory_node]] tables: the SLIT over all "
                                        "{} nodes",
                                        topo.nr_nodes()));
    topo.distance = read_distance(*m, topo.nr_nodes());
    topo.hmat = m->get_bool("hmat", false);
    if (m->has("cpu")) {
        const std::string cpu = m->get_string("cpu");
        const std::optional<CpuModel> model = find_cpu_model(cpu);
        if (!model)
            m->fail("cpu", fmt::format("'{}' is not a known CPU model ({})", cpu,
                                       fmt::join(cpu_model_names(), ", ")));
        topo.cpu = *model;
    }
    m->finish();

    read_hardware(*hardware, topo.hw, HardwareKeys::kAllRequired);
    if (auto source = t.table("source")) {
        topo.source = source->get_string("text");
        source->finish();
    }
    t.finish();
    try {
        topo.validate(t.file());
    } catch (const InputError& e) {
        rethrow_with_line(e, *m, *hardware);
    }
    return topo;
}

Topology load_machine_file(const std::string& path) {
    return load_machine(TomlTable::parse_file(path));
}

Topology load_machine_text(std::string_view text, const std::string& name) {
    return load_machine(TomlTable::parse_text(text, name));
}

}  // namespace numasim
