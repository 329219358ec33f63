#include "machine/hardware_table.h"

#include <fmt/format.h>

#include <charconv>

namespace numasim {

namespace {

// Cache sizes in datasheets ("30 MB L3") are binary megabytes.
constexpr double kBytesPerMiB = 1024.0 * 1024.0;
// Generous sanity bounds that catch unit mistakes (ps for ns, MB/s for GB/s).
constexpr double kMaxLatencyNs = 10000.0;
constexpr double kMaxBandwidthGbs = 10000.0;

void read_latencies(const TomlTable& lat, MemoryHardware& hw) {
    for (const std::string& key : lat.keys()) {
        int distance = 0;
        auto [end, ec] = std::from_chars(key.data(), key.data() + key.size(), distance);
        if (ec != std::errc() || end != key.data() + key.size() || distance < 10 || distance > 255)
            lat.fail(key, "latency_ns keys are SLIT distances, integers 10..255 (e.g. \"21\")");
        double ns = lat.get_double(key);
        if (!(ns > 0) || ns > kMaxLatencyNs)
            lat.fail(key, fmt::format("latency {} ns is out of range (0, {}]", ns, kMaxLatencyNs));
        hw.latency_ns[distance] = ns;
    }
    lat.finish();
}

// Reads `key` into `out` if present (or always, when required); checks lo < v <= hi.
void read_number(const TomlTable& t, const char* key, double& out, double hi, bool required) {
    if (!required && !t.has(key)) return;
    double v = t.get_double(key);
    if (!(v > 0) || v > hi) t.fail(key, fmt::format("{} is out of range (0, {}]", v, hi));
    out = v;
}

// The base pages Linux distributions build their kernels with: 4 KiB on x86-64, 64 KiB on ppc64
// (CONFIG_PPC_64K_PAGES in RHEL, SLES and Debian ppc64el).
constexpr uint64_t kPageSize4K = 4096;
constexpr uint64_t kPageSize64K = 65536;

// page_size and mmu: 4 KiB pages have 2 MiB PMDs; 64 KiB pages have 16 MiB PMDs on the hash MMU
// (POWER7, POWER8) and 2 MiB PMDs on the radix MMU (POWER9). Keys left out keep hw.pages's.
void read_pages(const TomlTable& t, PageGeometry& pages) {
    uint64_t size = pages.size();
    if (t.has("page_size")) {
        size = t.get_size("page_size");
        if (size != kPageSize4K && size != kPageSize64K)
            t.fail("page_size", fmt::format("must be \"4KiB\" or \"64KiB\", got {} bytes", size));
    }
    bool hash = pages == kPages64KHash;
    if (t.has("mmu")) {
        const std::string mmu = t.get_string("mmu");
        if (mmu != "radix" && mmu != "hash")
            t.fail("mmu", fmt::format("'{}' is not one of \"radix\", \"hash\"", mmu));
        hash = mmu == "hash";
    }
    if (size == kPageSize4K)
        pages = kPages4K;
    else
        pages = hash ? kPages64KHash : kPages64KRadix;
}

}  // namespace

void read_hardware(const TomlTable& t, MemoryHardware& hw, HardwareKeys keys) {
    const bool req = keys == HardwareKeys::kAllRequired;
    if (req && !t.has("latency_ns")) t.fail_here("missing required key 'latency_ns'");
    if (auto lat = t.table("latency_ns")) read_latencies(*lat, hw);
    read_number(t, "dram_bandwidth_gbs", hw.dram_bandwidth_gbs, kMaxBandwidthGbs, req);
    read_number(t, "link_bandwidth_gbs", hw.link_bandwidth_gbs, kMaxBandwidthGbs, req);
    double llc_mb = static_cast<double>(hw.llc_bytes) / kBytesPerMiB;
    read_number(t, "llc_mb", llc_mb, 1e6, req);
    hw.llc_bytes = static_cast<uint64_t>(llc_mb * kBytesPerMiB);
    read_number(t, "llc_latency_ns", hw.llc_latency_ns, kMaxLatencyNs, req);
    if (req || t.has("line_fill_buffers")) {
        int64_t lfb = t.get_int("line_fill_buffers");
        if (lfb < 1 || lfb > 256) t.fail("line_fill_buffers", "must be 1..256");
        hw.line_fill_buffers = static_cast<int>(lfb);
    }
    if (req || t.has("smt_core_speedup")) {
        double s = t.get_double("smt_core_speedup");
        if (!(s >= 1.0) || s > 8.0) t.fail("smt_core_speedup", "must be 1.0..8.0");
        hw.smt_core_speedup = s;
    }
    read_number(t, "cpu_ghz", hw.cpu_ghz, 10.0, req);
    hw.memory_directory = t.get_bool("memory_directory", hw.memory_directory);
    read_pages(t, hw.pages);
    t.finish();
}

void apply_hardware_overrides(Topology& topo, const TomlTable& hardware) {
    read_hardware(hardware, topo.hw, HardwareKeys::kAnySubset);
    topo.validate(hardware.file());
}

}  // namespace numasim
