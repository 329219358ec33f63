#include "machine/hwloc_import.h"

#include <fmt/format.h>
#include <hwloc.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "config/input_error.h"
#include "config/limits.h"

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

std::vector<hwloc_obj_t> objects(hwloc_topology_t t, hwloc_obj_type_t type) {
    std::vector<hwloc_obj_t> out;
    for (hwloc_obj_t o = nullptr; (o = hwloc_get_next_obj_by_type(t, type, o)) != nullptr;)
        out.push_back(o);
    std::sort(out.begin(), out.end(),
              [](hwloc_obj_t a, hwloc_obj_t b) { return a->os_index < b->os_index; });
    return out;
}

// The cache that bounds the scheduler's LLC domain: the L3 if there is one, otherwise the
// lowest cache shared by more than this PU's core, otherwise nullptr (each core is its own LLC).
hwloc_obj_t llc_of(hwloc_topology_t t, hwloc_obj_t pu, hwloc_obj_t core) {
    if (hwloc_obj_t l3 = hwloc_get_ancestor_obj_by_type(t, HWLOC_OBJ_L3CACHE, pu)) return l3;
    const int core_pus = hwloc_bitmap_weight(core->cpuset);
    for (hwloc_obj_t o = pu->parent; o; o = o->parent) {
        if (hwloc_obj_type_is_cache(o->type) && hwloc_bitmap_weight(o->cpuset) > core_pus) return o;
    }
    return nullptr;
}

std::vector<std::vector<int>> read_distances(hwloc_topology_t t,
                                             const std::vector<hwloc_obj_t>& nodes) {
    const int n = static_cast<int>(nodes.size());
    std::vector<std::vector<int>> d(n, std::vector<int>(n, kLinuxRemoteDistance));
    for (int i = 0; i < n; ++i)
        d[i][i] = kLinuxLocalDistance;
    unsigned nr = 1;
    hwloc_distances_s* dist = nullptr;
    const unsigned long kind = HWLOC_DISTANCES_KIND_FROM_OS | HWLOC_DISTANCES_KIND_MEANS_LATENCY;
    if (hwloc_distances_get_by_type(t, HWLOC_OBJ_NUMANODE, &nr, &dist, kind, 0) != 0 || nr == 0)
        return d;
    if (dist->nbobjs == static_cast<unsigned>(n)) {
        std::map<hwloc_obj_t, int> index;
        for (int i = 0; i < n; ++i)
            index[nodes[i]] = i;
        for (unsigned a = 0; a < dist->nbobjs; ++a)
            for (unsigned b = 0; b < dist->nbobjs; ++b)
                d[index.at(dist->objs[a])][index.at(dist->objs[b])] =
                    static_cast<int>(dist->values[a * dist->nbobjs + b]);
    }
    hwloc_distances_release(t, dist);
    return d;
}

Topology convert(hwloc_topology_t t, const std::string& origin, const std::string& name) {
    Topology topo;
    topo.name = name;
    std::vector<hwloc_obj_t> nodes = objects(t, HWLOC_OBJ_NUMANODE);
    std::vector<hwloc_obj_t> pus = objects(t, HWLOC_OBJ_PU);
    if (nodes.empty()) throw InputError(origin, "", "the hwloc topology has no NUMA nodes");
    if (pus.empty()) throw InputError(origin, "", "the hwloc topology has no PUs");

    // Linux node and CPU numbers may be sparse (POWER9 numbers its nodes 0 and 8, offline CPUs
    // leave holes); the simulator needs 0..n-1, so both are renumbered in os_index order.
    topo.nodes.resize(nodes.size());
    for (size_t i = 0; i < nodes.size(); ++i) {
        topo.nodes[i].id = static_cast<int>(i);
        topo.nodes[i].mem_bytes = nodes[i]->attr ? nodes[i]->attr->numanode.local_memory : 0;
    }
    std::map<hwloc_obj_t, int> core_ids;
    std::map<std::pair<hwloc_obj_t, int>, int> llc_ids;  // LLCs are split at node boundaries
    uint64_t llc_bytes = 0;
    for (size_t i = 0; i < pus.size(); ++i) {
        hwloc_obj_t pu = pus[i];
        CpuInfo cpu;
        cpu.id = static_cast<int>(i);
        cpu.node = -1;
        for (size_t n = 0; n < nodes.size(); ++n)
            if (hwloc_bitmap_isset(nodes[n]->cpuset, pu->os_index)) cpu.node = static_cast<int>(n);
        if (cpu.node < 0)
            throw InputError(origin, "", fmt::format("PU P#{} is in no NUMA node", pu->os_index));
        hwloc_obj_t core = hwloc_get_ancestor_obj_by_type(t, HWLOC_OBJ_CORE, pu);
        if (!core) core = pu;
        cpu.core = core_ids.emplace(core, static_cast<int>(core_ids.size())).first->second;
        hwloc_obj_t pkg = hwloc_get_ancestor_obj_by_type(t, HWLOC_OBJ_PACKAGE, pu);
        cpu.package = pkg ? static_cast<int>(pkg->logical_index) : 0;
        hwloc_obj_t llc = llc_of(t, pu, core);
        if (llc && llc->attr && llc_bytes == 0) llc_bytes = llc->attr->cache.size;
        auto key = std::make_pair(llc ? llc : core, cpu.node);
        cpu.llc = llc_ids.emplace(key, static_cast<int>(llc_ids.size())).first->second;
        topo.cpus.push_back(cpu);
        topo.nodes[cpu.node].cpus.push_back(cpu.id);
    }
    topo.distance = read_distances(t, nodes);
    topo.hw = generic_hardware(topo.distance);
    if (llc_bytes > 0) topo.hw.llc_bytes = llc_bytes;
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
    HwlocTopology t;
    if (hwloc_topology_set_xmlbuffer(t.get(), text.c_str(), static_cast<int>(text.size() + 1)) !=
            0 ||
        hwloc_topology_load(t.get()) != 0)
        throw InputError(path, "",
                         "hwloc rejects this XML: malformed XML or not a topology hwloc "
                         "understands (`hwloc-info --input FILE` shows hwloc's own message)");
    return convert(t.get(), path, std::filesystem::path(path).stem().string());
}

Topology import_hwloc_host() {
    const std::string origin = "hwloc:host";
    HwlocTopology t;
    if (hwloc_topology_load(t.get()) != 0)
        throw InputError(
            origin, "",
            fmt::format("hwloc cannot read this machine's topology: {}", std::strerror(errno)));
    return convert(t.get(), origin, "hwloc-host");
}

}  // namespace numasim
