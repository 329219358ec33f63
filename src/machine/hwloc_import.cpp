#include "machine/hwloc_import.h"

#include <fmt/format.h>
#include <hwloc.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>

#include "config/input_error.h"
#include "config/limits.h"
#include "machine/cpu_model.h"
#include "machine/hwloc_child.h"
#include "machine/hwloc_facts.h"

namespace numasim {

namespace {

// Generic figures for a machine hwloc describes (hwloc has no latency or bandwidth data). They
// are round numbers in the middle of published two-socket Xeon (Haswell..Cascade Lake) values;
// see docs/machines.md and the presets for the sourced figures they summarise.
constexpr double kGenericLocalLatencyNs = 90.0;  // idle local DRAM load latency
// Remote idle latency grows about 45 ns per 10 SLIT units on such machines
// (≈ 135-145 ns at distance 21), so latency(d) = 90 + 4.5 * (d - 10).
constexpr double kGenericLatencyPerSlitUnitNs = 4.5;
constexpr double kGenericDramBandwidthGbs = 60.0;   // STREAM-like, one node's channels
constexpr double kGenericLinkBandwidthGbs = 20.8;   // one UPI link at 10.4 GT/s, per direction
constexpr uint64_t kGenericLlcBytes = 32ull << 20;  // used only if hwloc reports no cache
constexpr double kGenericLlcLatencyNs = 20.0;       // ~50 cycles at 2.5 GHz
constexpr int kGenericLineFillBuffers = 10;         // Intel L1D fill buffers since Nehalem
constexpr double kGenericSmtCoreSpeedup = 1.25;     // typical Hyper-Threading throughput gain
constexpr double kGenericCpuGhz = 2.5;
// Linux's distance when firmware provides no SLIT (include/linux/topology.h REMOTE_DISTANCE).
constexpr int kLinuxLocalDistance = 10;
constexpr int kLinuxRemoteDistance = 20;

// The CPU model of what hwloc reports. AMD families 17h and 19h hold two Zen generations each;
// the model ranges are those arch/x86/kernel/cpu/amd.c (bsp_init_amd(), v6.12) gives them.
std::string cpu_model_name(const HwlocCpu& c) {
    if (c.arch == HwlocCpuArch::kPowerPC) {
        const std::string name = fmt::format("power{}", c.power_generation);
        return find_cpu_model(name) ? name : "powerpc";
    }
    if (c.vendor != HwlocCpuVendor::kAmd) return "intel";
    const uint64_t m = c.model;
    switch (c.family) {
        case 0x17:
            return m <= 0x2f || (m >= 0x50 && m <= 0x5f) ? "zen1" : "zen2";
        case 0x19:
            return m <= 0x0f || (m >= 0x20 && m <= 0x5f) ? "zen3" : "zen4";
        case 0x1a:
            return "zen5";
        default:
            return "amd";
    }
}

// Owns a topology loaded in this process (the host's; XML files are loaded in a child).
class HwlocTopology {
  public:
    HwlocTopology() { hwloc_topology_init(&t_); }
    ~HwlocTopology() { hwloc_topology_destroy(t_); }
    HwlocTopology(const HwlocTopology&) = delete;
    HwlocTopology& operator=(const HwlocTopology&) = delete;
    hwloc_topology_t get() const { return t_; }

  private:
    hwloc_topology_t t_ = nullptr;
};

// hwloc reports bandwidth in MiB/s.
constexpr double kGbsPerMibs = 1048576.0 / 1e9;

MemoryKind memory_kind(HwlocMemoryKind k) {
    switch (k) {
        case HwlocMemoryKind::kCxl:
            return MemoryKind::kCxl;
        case HwlocMemoryKind::kPmem:
            return MemoryKind::kPmem;
        case HwlocMemoryKind::kHbm:
            return MemoryKind::kHbm;
        case HwlocMemoryKind::kDram:
            break;
    }
    return MemoryKind::kDram;
}

// The device of each node left without CPUs, from its hwloc subtype, DAX device and memory
// attributes. A device kind needs both figures (docs/machines.md); without them the node is
// taken as plain DRAM. Memory attributes come from the firmware's HMAT, so their presence sets
// Topology::hmat.
void read_memory_devices(const HwlocFacts& f, Topology& topo) {
    for (size_t i = 0; i < f.node_memory.size() && i < topo.nodes.size(); ++i) {
        NodeInfo& n = topo.nodes[i];
        const HwlocMemory& m = f.node_memory[i];
        if (!n.cpus.empty()) continue;
        const bool figures = m.latency_ns > 0 && m.bandwidth_mibs > 0;
        topo.hmat |= figures;
        n.device.kind = figures ? memory_kind(m.kind) : MemoryKind::kDram;
        n.device.latency_ns = static_cast<double>(m.latency_ns);
        n.device.bandwidth_gbs = static_cast<double>(m.bandwidth_mibs) * kGbsPerMibs;
        n.device.dax_kmem = m.dax_kmem;
    }
}

Topology convert(const HwlocFacts& f, const std::string& origin, const std::string& name) {
    if (f.nr_nodes == 0) throw InputError(origin, "", "the hwloc topology has no NUMA nodes");
    if (f.nr_pus == 0) throw InputError(origin, "", "the hwloc topology has no PUs");
    if (f.nr_nodes > static_cast<uint64_t>(kMaxNodes))
        throw InputError(
            origin, "",
            fmt::format("{} NUMA nodes; at most {} are supported", f.nr_nodes, kMaxNodes));
    if (f.nr_pus > static_cast<uint64_t>(kMaxCpus))
        throw InputError(origin, "",
                         fmt::format("{} CPUs; at most {} are supported", f.nr_pus, kMaxCpus));
    Topology topo;
    topo.name = name;
    // Linux node and CPU numbers may be sparse (POWER9 numbers its nodes 0 and 8, offline CPUs
    // leave holes); the simulator needs 0..n-1, so both are renumbered in os_index order (the
    // order of the facts).
    const size_t n = f.node_mem_bytes.size();
    topo.nodes.resize(n);
    for (size_t i = 0; i < n; ++i) {
        topo.nodes[i].id = static_cast<int>(i);
        topo.nodes[i].mem_bytes = f.node_mem_bytes[i];
    }
    std::map<std::pair<uint64_t, int>, int> llc_ids;  // LLCs are split at node boundaries
    for (size_t i = 0; i < f.pus.size(); ++i) {
        const HwlocPu& pu = f.pus[i];
        if (pu.node < 0)
            throw InputError(origin, "", fmt::format("PU P#{} is in no NUMA node", pu.os_index));
        CpuInfo cpu;
        cpu.id = static_cast<int>(i);
        cpu.node = static_cast<int>(pu.node);
        cpu.core = static_cast<int>(pu.core);
        cpu.package = static_cast<int>(pu.package);
        cpu.llc =
            llc_ids.emplace(std::make_pair(pu.llc, cpu.node), static_cast<int>(llc_ids.size()))
                .first->second;
        topo.cpus.push_back(cpu);
        topo.nodes[cpu.node].cpus.push_back(cpu.id);
    }
    // Without a SLIT, Linux's own default.
    topo.distance.assign(n, std::vector<int>(n, kLinuxRemoteDistance));
    for (size_t a = 0; a < n; ++a) {
        topo.distance[a][a] = kLinuxLocalDistance;
        if (!f.distance.empty())
            for (size_t b = 0; b < n; ++b)
                topo.distance[a][b] = static_cast<int>(f.distance[a * n + b]);
    }
    topo.hw = generic_hardware(topo.distance);
    read_memory_devices(f, topo);
    if (f.llc_bytes > 0) topo.hw.llc_bytes = f.llc_bytes;
    topo.cpu = *find_cpu_model(cpu_model_name(f.cpu));
    topo.description = fmt::format("imported from hwloc ({}): {} nodes, {} CPUs", origin,
                                   topo.nr_nodes(), topo.nr_cpus());
    topo.source = "topology from hwloc; hardware figures are numasim's generic defaults";
    topo.validate(origin);
    return topo;
}

}  // namespace

MemoryHardware generic_hardware(const std::vector<std::vector<int>>& distance) {
    MemoryHardware hw;
    hw.latency_ns[kLinuxLocalDistance] = kGenericLocalLatencyNs;
    for (const auto& row : distance)
        for (int d : row)
            hw.latency_ns[d] =
                kGenericLocalLatencyNs + kGenericLatencyPerSlitUnitNs * (d - kLinuxLocalDistance);
    hw.dram_bandwidth_gbs = kGenericDramBandwidthGbs;
    hw.link_bandwidth_gbs = kGenericLinkBandwidthGbs;
    hw.llc_bytes = kGenericLlcBytes;
    hw.llc_latency_ns = kGenericLlcLatencyNs;
    hw.line_fill_buffers = kGenericLineFillBuffers;
    hw.smt_core_speedup = kGenericSmtCoreSpeedup;
    hw.cpu_ghz = kGenericCpuGhz;
    return hw;
}

Topology import_hwloc_xml(const std::string& path) {
    // hwloc reports every failure as EINVAL; find what is wrong first, where we can say it.
    std::error_code ec;
    const auto st = std::filesystem::status(path, ec);
    if (ec) throw InputError(path, "", "cannot open hwloc XML file: " + ec.message());
    if (!std::filesystem::is_regular_file(st))
        throw InputError(path, "", "not a regular file (give an lstopo XML export)");
    const uint64_t size = std::filesystem::file_size(path, ec);
    if (ec) throw InputError(path, "", "cannot read hwloc XML file: " + ec.message());
    if (size > kMaxHwlocXmlBytes)
        throw InputError(path, "",
                         fmt::format("larger than {} MiB, the limit for hwloc XML files",
                                     kMaxHwlocXmlBytes >> 20));
    std::ifstream in(path, std::ios::binary);
    std::string text(size, '\0');
    if (!in.read(text.data(), static_cast<std::streamsize>(size)))
        throw InputError(path, "", "cannot read hwloc XML file");
    if (text.empty()) throw InputError(path, "", "empty file (give an lstopo XML export)");
    if (text.find("<topology") == std::string::npos)
        throw InputError(path, "",
                         "no <topology> element: not an lstopo XML export (make one with "
                         "`lstopo FILE.xml`)");
    return convert(load_hwloc_xml_isolated(text, path), path,
                   std::filesystem::path(path).stem().string());
}

namespace {

HwlocFacts host_facts() {
    HwlocTopology t;
    if (hwloc_topology_load(t.get()) != 0)
        throw InputError(
            "hwloc:host", "",
            fmt::format("hwloc cannot read this machine's topology: {}", std::strerror(errno)));
    return extract_hwloc_facts(t.get());
}

}  // namespace

Topology import_hwloc_host() {
    return convert(host_facts(), "hwloc:host", "hwloc-host");
}

HostMachine import_hwloc_host_ids() {
    const HwlocFacts f = host_facts();
    HostMachine h;
    h.topology = convert(f, "hwloc:host", "hwloc-host");
    // convert() numbers the PUs and nodes in the order of the facts.
    for (const HwlocPu& pu : f.pus)
        h.cpu_os_index.push_back(static_cast<int>(pu.os_index));
    for (uint64_t os : f.node_os_index)
        h.node_os_index.push_back(static_cast<int>(os));
    return h;
}

}  // namespace numasim
