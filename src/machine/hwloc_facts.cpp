#include "machine/hwloc_facts.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>

#include "config/input_error.h"
#include "config/limits.h"

namespace numasim {

namespace {

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

// Linux's SLIT as hwloc keeps it: the NUMA-node matrix of kind FROM_OS | MEANS_LATENCY, in the
// order of `nodes`; empty when there is none or it does not cover every node.
std::vector<uint64_t> read_distances(hwloc_topology_t t, const std::vector<hwloc_obj_t>& nodes) {
    unsigned nr = 1;
    hwloc_distances_s* dist = nullptr;
    const unsigned long kind = HWLOC_DISTANCES_KIND_FROM_OS | HWLOC_DISTANCES_KIND_MEANS_LATENCY;
    if (hwloc_distances_get_by_type(t, HWLOC_OBJ_NUMANODE, &nr, &dist, kind, 0) != 0 || nr == 0)
        return {};
    const size_t n = nodes.size();
    std::vector<uint64_t> d;
    if (dist->nbobjs == n) {
        std::map<hwloc_obj_t, size_t> index;
        for (size_t i = 0; i < n; ++i)
            index[nodes[i]] = i;
        d.assign(n * n, 0);
        for (unsigned a = 0; a < n; ++a)
            for (unsigned b = 0; b < n; ++b)
                d[index.at(dist->objs[a]) * n + index.at(dist->objs[b])] = dist->values[a * n + b];
    }
    hwloc_distances_release(t, dist);
    return d;
}

// The encoding is a sequence of native-endian 64-bit words (both ends are the same binary):
// nr_nodes, nr_pus, then, within the limits, seven words per node (its memory, latency,
// bandwidth, kind, two flags and Linux node number), five words per PU, llc_bytes, the number of
// distance entries and the entries; last, five words of the CPU (arch, vendor, family, model,
// POWER generation).
constexpr size_t kWordsPerNode = 7;
constexpr size_t kWordsPerPu = 5;
constexpr size_t kWordsOfCpu = 5;

// An info value of hwloc's as a number (base 10, as hwloc writes CPUFamilyNumber); 0 if absent.
uint64_t info_number(hwloc_obj_t obj, const char* name) {
    const char* v = obj ? hwloc_obj_get_info_by_name(obj, name) : nullptr;
    return v ? std::strtoull(v, nullptr, 10) : 0;
}

HwlocCpu cpu_of(hwloc_topology_t t) {
    HwlocCpu c;
    const char* arch = hwloc_obj_get_info_by_name(hwloc_get_root_obj(t), "Architecture");
    const std::string a = arch ? arch : "";
    if (a == "x86_64" || a == "i686") c.arch = HwlocCpuArch::kX86;
    if (a.rfind("ppc", 0) == 0) c.arch = HwlocCpuArch::kPowerPC;
    hwloc_obj_t pkg = hwloc_get_obj_by_type(t, HWLOC_OBJ_PACKAGE, 0);
    const char* vendor = pkg ? hwloc_obj_get_info_by_name(pkg, "CPUVendor") : nullptr;
    const std::string v = vendor ? vendor : "";
    if (v == "GenuineIntel") c.vendor = HwlocCpuVendor::kIntel;
    if (v == "AuthenticAMD") c.vendor = HwlocCpuVendor::kAmd;
    c.family = info_number(pkg, "CPUFamilyNumber");
    c.model = info_number(pkg, "CPUModelNumber");
    // Linux's /proc/cpuinfo "cpu" line on POWER, which hwloc keeps as CPUModel: "POWER9 (raw),
    // altivec supported".
    const char* model = pkg ? hwloc_obj_get_info_by_name(pkg, "CPUModel") : nullptr;
    const std::string m = model ? model : "";
    if (m.rfind("POWER", 0) == 0) c.power_generation = std::strtoull(m.c_str() + 5, nullptr, 10);
    return c;
}

// What hwloc says of a node's memory: its subtype (hwloc 2.9 names NVM, SPM, HBM and MCDRAM,
// 2.10 also CXL-DRAM and CXL-NVM), whether a DAX device gave it, and its memory attributes.
HwlocMemory memory_of(hwloc_topology_t t, hwloc_obj_t node) {
    HwlocMemory m;
    const std::string subtype = node->subtype ? node->subtype : "";
    if (subtype == "NVM" || subtype == "CXL-NVM") m.kind = HwlocMemoryKind::kPmem;
    if (subtype == "CXL-DRAM") m.kind = HwlocMemoryKind::kCxl;
    if (subtype == "HBM" || subtype == "MCDRAM") m.kind = HwlocMemoryKind::kHbm;
    m.dax_kmem = hwloc_obj_get_info_by_name(node, "DAXDevice") != nullptr;
    m.device = m.kind != HwlocMemoryKind::kDram || m.dax_kmem || subtype == "SPM";
    // The best initiator's value: the lowest latency, the highest bandwidth (hwloc 2.3 memattrs;
    // Latency in ns, Bandwidth in MiB/s).
    hwloc_location loc;
    hwloc_uint64_t v = 0;
    if (hwloc_memattr_get_best_initiator(t, HWLOC_MEMATTR_ID_LATENCY, node, 0, &loc, &v) == 0)
        m.latency_ns = v;
    if (hwloc_memattr_get_best_initiator(t, HWLOC_MEMATTR_ID_BANDWIDTH, node, 0, &loc, &v) == 0)
        m.bandwidth_mibs = v;
    return m;
}

// The node Linux puts a PU on: among the nodes whose cpuset holds it, one that is not a device,
// the most local (smallest cpuset) and, among equals, the lowest os_index (Linux numbers the
// CPUs' nodes before memory-only ones); a device node only if no other node holds it.
int64_t node_of_pu(const std::vector<hwloc_obj_t>& nodes, const std::vector<HwlocMemory>& mem,
                   unsigned pu) {
    int64_t best = -1;
    auto better = [&](size_t n) {
        if (best < 0) return true;
        const size_t b = static_cast<size_t>(best);
        if (mem[n].device != mem[b].device) return !mem[n].device;
        return hwloc_bitmap_weight(nodes[n]->cpuset) < hwloc_bitmap_weight(nodes[b]->cpuset);
    };
    for (size_t n = 0; n < nodes.size(); ++n)
        if (nodes[n]->cpuset && hwloc_bitmap_isset(nodes[n]->cpuset, pu) && better(n))
            best = static_cast<int64_t>(n);
    return best;
}

bool within_limits(uint64_t nr_nodes, uint64_t nr_pus) {
    return nr_nodes <= static_cast<uint64_t>(kMaxNodes) &&
           nr_pus <= static_cast<uint64_t>(kMaxCpus);
}

// The checks below guard the indexing in hwloc_import.cpp; the child's encoder never trips them.
[[noreturn]] void malformed(const std::string& origin) {
    throw InputError(origin, "", "libhwloc's loader returned malformed data");
}

class WordReader {
  public:
    WordReader(std::string_view bytes, const std::string& origin)
        : bytes_(bytes), origin_(origin) {}

    uint64_t next() {
        if (remaining() == 0) truncated();
        uint64_t w;
        std::memcpy(&w, bytes_.data() + at_, sizeof w);
        at_ += sizeof w;
        return w;
    }
    // Checked before a list is allocated, so a bad count cannot ask for unbounded memory.
    void expect(uint64_t words) const {
        if (words > remaining()) truncated();
    }
    size_t remaining() const { return (bytes_.size() - at_) / sizeof(uint64_t); }
    bool done() const { return at_ == bytes_.size(); }

  private:
    [[noreturn]] void truncated() const { malformed(origin_); }
    std::string_view bytes_;
    const std::string& origin_;
    size_t at_ = 0;
};

}  // namespace

HwlocFacts extract_hwloc_facts(hwloc_topology_t t) {
    HwlocFacts f;
    const std::vector<hwloc_obj_t> nodes = objects(t, HWLOC_OBJ_NUMANODE);
    const std::vector<hwloc_obj_t> pus = objects(t, HWLOC_OBJ_PU);
    f.nr_nodes = nodes.size();
    f.nr_pus = pus.size();
    if (!within_limits(f.nr_nodes, f.nr_pus)) return f;
    for (hwloc_obj_t n : nodes) {
        f.node_mem_bytes.push_back(n->attr ? n->attr->numanode.local_memory : 0);
        f.node_os_index.push_back(n->os_index);
        f.node_memory.push_back(memory_of(t, n));
    }
    // Cores and LLCs are numbered densely in the order the PUs first reach them.
    std::map<hwloc_obj_t, uint64_t> core_ids, llc_ids;
    for (hwloc_obj_t pu : pus) {
        HwlocPu p;
        p.os_index = pu->os_index;
        p.node = node_of_pu(nodes, f.node_memory, pu->os_index);
        hwloc_obj_t core = hwloc_get_ancestor_obj_by_type(t, HWLOC_OBJ_CORE, pu);
        if (!core) core = pu;
        p.core = core_ids.emplace(core, core_ids.size()).first->second;
        hwloc_obj_t pkg = hwloc_get_ancestor_obj_by_type(t, HWLOC_OBJ_PACKAGE, pu);
        p.package = pkg ? pkg->logical_index : 0;
        hwloc_obj_t llc = llc_of(t, pu, core);
        if (llc && llc->attr && f.llc_bytes == 0) f.llc_bytes = llc->attr->cache.size;
        p.llc = llc_ids.emplace(llc ? llc : core, llc_ids.size()).first->second;
        f.pus.push_back(p);
    }
    f.distance = read_distances(t, nodes);
    f.cpu = cpu_of(t);
    return f;
}

std::string encode_hwloc_facts(const HwlocFacts& f) {
    std::vector<uint64_t> w = {f.nr_nodes, f.nr_pus};
    if (within_limits(f.nr_nodes, f.nr_pus)) {
        for (size_t n = 0; n < f.node_mem_bytes.size(); ++n) {
            const HwlocMemory m = n < f.node_memory.size() ? f.node_memory[n] : HwlocMemory{};
            const uint64_t os = n < f.node_os_index.size() ? f.node_os_index[n] : n;
            w.insert(w.end(),
                     {f.node_mem_bytes[n], m.latency_ns, m.bandwidth_mibs,
                      static_cast<uint64_t>(m.kind), uint64_t{m.dax_kmem}, uint64_t{m.device}, os});
        }
        for (const HwlocPu& p : f.pus)
            w.insert(w.end(),
                     {p.os_index, static_cast<uint64_t>(p.node), p.core, p.package, p.llc});
        w.push_back(f.llc_bytes);
        w.push_back(f.distance.size());
        w.insert(w.end(), f.distance.begin(), f.distance.end());
        w.insert(w.end(), {static_cast<uint64_t>(f.cpu.arch), static_cast<uint64_t>(f.cpu.vendor),
                           f.cpu.family, f.cpu.model, f.cpu.power_generation});
    }
    return std::string(reinterpret_cast<const char*>(w.data()), w.size() * sizeof(uint64_t));
}

HwlocFacts decode_hwloc_facts(std::string_view bytes, const std::string& origin) {
    WordReader r(bytes, origin);
    HwlocFacts f;
    f.nr_nodes = r.next();
    f.nr_pus = r.next();
    if (within_limits(f.nr_nodes, f.nr_pus)) {
        r.expect(f.nr_nodes * kWordsPerNode + f.nr_pus * kWordsPerPu);
        for (uint64_t i = 0; i < f.nr_nodes; ++i) {
            f.node_mem_bytes.push_back(r.next());
            HwlocMemory m;
            m.latency_ns = r.next();
            m.bandwidth_mibs = r.next();
            const uint64_t kind = r.next();
            if (kind > static_cast<uint64_t>(HwlocMemoryKind::kHbm)) malformed(origin);
            m.kind = static_cast<HwlocMemoryKind>(kind);
            m.dax_kmem = r.next() != 0;
            m.device = r.next() != 0;
            f.node_memory.push_back(m);
            f.node_os_index.push_back(r.next());
        }
        for (uint64_t i = 0; i < f.nr_pus; ++i) {
            HwlocPu p;
            p.os_index = r.next();
            p.node = static_cast<int64_t>(r.next());
            if (p.node < -1 || p.node >= static_cast<int64_t>(f.nr_nodes)) malformed(origin);
            p.core = r.next();
            p.package = r.next();
            p.llc = r.next();
            f.pus.push_back(p);
        }
        f.llc_bytes = r.next();
        const uint64_t nr_distances = r.next();
        if (nr_distances != 0 && nr_distances != f.nr_nodes * f.nr_nodes) malformed(origin);
        r.expect(nr_distances);
        for (uint64_t i = 0; i < nr_distances; ++i)
            f.distance.push_back(r.next());
        r.expect(kWordsOfCpu);
        const uint64_t arch = r.next(), vendor = r.next();
        if (arch > static_cast<uint64_t>(HwlocCpuArch::kPowerPC) ||
            vendor > static_cast<uint64_t>(HwlocCpuVendor::kAmd))
            malformed(origin);
        f.cpu.arch = static_cast<HwlocCpuArch>(arch);
        f.cpu.vendor = static_cast<HwlocCpuVendor>(vendor);
        f.cpu.family = r.next();
        f.cpu.model = r.next();
        f.cpu.power_generation = r.next();
    }
    if (!r.done()) malformed(origin);
    return f;
}

}  // namespace numasim
