// Topology::validate: the consistency rules every machine (preset, file or hwloc import) must
// satisfy before the simulator relies on them. Each rule names the offending key.
#include <fmt/format.h>

#include <map>
#include <set>

#include "config/input_error.h"
#include "config/limits.h"
#include "machine/topology.h"

namespace numasim {

namespace {

// ACPI SLIT: the diagonal is always 10, and Linux rejects a remote distance of 10 or less
// (arch/x86/mm/numa.c numa_set_distance); entries are one byte in the table.
constexpr int kSlitLocal = 10;
constexpr int kSlitMax = 255;

struct Checker {
    const Topology& t;
    const std::string& origin;

    [[noreturn]] void fail(const std::string& key, const std::string& problem) const {
        throw InputError(origin, key, problem);
    }

    void nodes() const {
        if (t.nodes.empty()) fail("", "the machine has no NUMA nodes");
        if (t.nr_nodes() > kMaxNodes)
            fail("",
                 fmt::format("{} NUMA nodes; at most {} are supported", t.nr_nodes(), kMaxNodes));
        if (t.nr_cpus() > kMaxCpus)
            fail("", fmt::format("{} CPUs; at most {} are supported", t.nr_cpus(), kMaxCpus));
        for (int i = 0; i < t.nr_nodes(); ++i) {
            const NodeInfo& n = t.nodes[i];
            const std::string key = fmt::format("node[{}]", i);
            if (n.id != i) fail(key, fmt::format("node id {} must equal its index {}", n.id, i));
            if (n.cpus.empty() && n.mem_bytes == 0) fail(key, "node has neither CPUs nor memory");
            device(n, key);
            for (size_t k = 0; k < n.cpus.size(); ++k) {
                int c = n.cpus[k];
                if (c < 0 || c >= t.nr_cpus())
                    fail(key, fmt::format("lists CPU {} but the machine has CPUs 0..{}", c,
                                          t.nr_cpus() - 1));
                if (k > 0 && n.cpus[k - 1] >= c) fail(key, "CPU list must be strictly ascending");
                if (t.cpus[c].node != i)
                    fail(key,
                         fmt::format("lists CPU {} which belongs to node {}", c, t.cpus[c].node));
            }
        }
        if (t.total_mem_bytes() == 0) fail("", "the machine has no memory");
    }

    // Only a memory-only node describes a device; a node with CPUs has the machine's DRAM.
    void device(const NodeInfo& n, const std::string& key) const {
        const MemoryDevice& d = n.device;
        const bool plain = d.kind == MemoryKind::kDram;
        if (!n.cpus.empty() && (!plain || d.dax_kmem || d.latency_ns != 0 || d.bandwidth_gbs != 0))
            fail(key,
                 "a node with CPUs has the machine's DRAM; only a memory-only node "
                 "([[memory_node]]) describes a device");
        if (d.latency_ns < 0 || d.bandwidth_gbs < 0)
            fail(key, "device latency and bandwidth must not be negative");
        if (!plain && !(d.latency_ns > 0 && d.bandwidth_gbs > 0))
            fail(key, fmt::format("a {} node needs its device's latency_ns and bandwidth_gbs",
                                  memory_kind_name(d.kind)));
    }

    void cpus() const {
        if (t.cpus.empty()) fail("", "the machine has no CPUs");
        size_t listed = 0;
        for (const auto& n : t.nodes)
            listed += n.cpus.size();
        std::map<int, const CpuInfo*> core_first, llc_first;
        std::map<int, int> node_package;
        for (int i = 0; i < t.nr_cpus(); ++i) {
            const CpuInfo& c = t.cpus[i];
            const std::string key = fmt::format("cpu {}", i);
            if (c.id != i)
                fail(key, fmt::format("CPU ids must be 0..n-1 in order; found {}", c.id));
            if (c.node < 0 || c.node >= t.nr_nodes())
                fail(key, fmt::format("on node {} which does not exist", c.node));
            if (c.core < 0 || c.llc < 0 || c.package < 0)
                fail(key, "core, LLC and package indexes must not be negative");
            // SMT siblings share everything above the core; a core's LLC and a node's package
            // must be unique, or sibling and LLC sets would straddle nodes.
            auto [core_it, new_core] = core_first.emplace(c.core, &c);
            if (!new_core && (core_it->second->node != c.node || core_it->second->llc != c.llc))
                fail(key, fmt::format("shares core {} with CPU {} but not its node or LLC", c.core,
                                      core_it->second->id));
            auto [llc_it, new_llc] = llc_first.emplace(c.llc, &c);
            if (!new_llc && llc_it->second->node != c.node)
                fail(key, fmt::format("shares LLC {} with CPU {} on another node", c.llc,
                                      llc_it->second->id));
            auto [pkg_it, new_node] = node_package.emplace(c.node, c.package);
            if (!new_node && pkg_it->second != c.package)
                fail(key, fmt::format("node {} spans packages {} and {}", c.node, pkg_it->second,
                                      c.package));
        }
        if (listed != t.cpus.size())
            fail("", fmt::format("{} CPUs exist but the nodes list {}", t.cpus.size(), listed));
        dense("core", core_first);
        dense("llc", llc_first);
    }

    void dense(const char* what, const std::map<int, const CpuInfo*>& ids) const {
        int expect = 0;
        for (const auto& [id, cpu] : ids) {
            if (id != expect)
                fail(fmt::format("cpu {}", cpu->id),
                     fmt::format("{} indexes must be 0..n-1 without gaps; found {} where {} was "
                                 "expected",
                                 what, id, expect));
            ++expect;
        }
    }

    void distances() const {
        const int n = t.nr_nodes();
        if (static_cast<int>(t.distance.size()) != n)
            fail("distance", fmt::format("matrix has {} rows but the machine has {} nodes",
                                         t.distance.size(), n));
        for (int a = 0; a < n; ++a) {
            if (static_cast<int>(t.distance[a].size()) != n)
                fail("distance",
                     fmt::format("row {} has {} entries, expected {}", a, t.distance[a].size(), n));
        }
        for (int a = 0; a < n; ++a) {
            for (int b = 0; b < n; ++b) {
                int d = t.distance[a][b];
                if (a == b && d != kSlitLocal)
                    fail("distance", fmt::format("diagonal entry [{}][{}] is {}, must be {}", a, b,
                                                 d, kSlitLocal));
                if (a != b && (d <= kSlitLocal || d > kSlitMax))
                    fail("distance", fmt::format("entry [{}][{}] is {}; remote distances must be "
                                                 "{}..{}",
                                                 a, b, d, kSlitLocal + 1, kSlitMax));
                if (d != t.distance[b][a])
                    fail("distance", fmt::format("not symmetric: [{}][{}] = {} but [{}][{}] = {}",
                                                 a, b, d, b, a, t.distance[b][a]));
            }
        }
    }

    void hardware() const {
        const MemoryHardware& h = t.hw;
        if (!h.latency_ns.count(kSlitLocal))
            fail("hardware.latency_ns", "needs the local latency (key \"10\")");
        for (const auto& [d, ns] : h.latency_ns) {
            if (!(ns > 0))
                fail("hardware.latency_ns", fmt::format("latency for distance {} must be > 0", d));
        }
        positive("hardware.dram_bandwidth_gbs", h.dram_bandwidth_gbs);
        positive("hardware.llc_latency_ns", h.llc_latency_ns);
        positive("hardware.cpu_ghz", h.cpu_ghz);
        if (t.nr_nodes() > 1) positive("hardware.link_bandwidth_gbs", h.link_bandwidth_gbs);
        if (h.llc_bytes == 0) fail("hardware.llc_mb", "LLC size must be > 0");
        if (h.line_fill_buffers < 1) fail("hardware.line_fill_buffers", "must be at least 1");
        if (!(h.smt_core_speedup >= 1.0))
            fail("hardware.smt_core_speedup",
                 "must be at least 1.0 (a core with all its SMT "
                 "threads busy is never slower than with one)");
    }

    void positive(const char* key, double v) const {
        if (!(v > 0)) fail(key, "missing or not > 0");
    }
};

}  // namespace

void Topology::validate(const std::string& origin) const {
    Checker c{*this, origin};
    c.nodes();
    c.cpus();
    c.distances();
    c.hardware();
}

}  // namespace numasim
