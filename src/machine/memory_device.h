// The memory of a node that has no CPUs: what device it is and how fast it is. A machine file
// declares such nodes in [[memory_node]] tables (docs/machines.md, "Memory-only nodes"); the
// memory tiers (mm/memory_tiers.h) and the cost model read them.
#pragma once

#include <optional>
#include <string_view>

namespace numasim {

enum class MemoryKind {
    // Plain DRAM on a node without CPUs (qemu's `-numa node,memdev=...` with no cpus, a
    // firmware's CPU-less DRAM node): boot memory, in the DRAM tier as the kernel forms it.
    kDram,
    // A CXL Type-3 memory expander. Its firmware marks the range "specific purpose"
    // (EFI_MEMORY_SP), so it becomes a device-DAX region that dax/kmem onlines as system RAM.
    kCxl,
    // Optane DC PMM in App Direct mode, onlined as system RAM through dax/kmem
    // (`daxctl reconfigure-device --mode=system-ram`).
    kPmem,
    // High-bandwidth memory in flat mode (Xeon Max): boot memory on its own CPU-less node.
    kHbm,
};

std::optional<MemoryKind> parse_memory_kind(std::string_view text);
std::string_view memory_kind_name(MemoryKind kind);

// How the memory of each kind is usually onlined ([[memory_node]] `online` overrides it): PMEM
// and CXL through drivers/dax/kmem.c, which gives the node a slow device's memory type instead of
// the default DRAM type (mm/memory_tiers.h); DRAM and HBM as boot memory. A BIOS that maps CXL
// memory as ordinary memory (no EFI_MEMORY_SP, "legacy" mode) makes it boot memory too.
inline bool default_dax_kmem(MemoryKind kind) {
    return kind == MemoryKind::kCxl || kind == MemoryKind::kPmem;
}

// The device of a memory-only node. Latency and bandwidth are published figures for the device
// (the preset's [source] cites them); 0 means "as the machine's DRAM": the [hardware]
// latency_ns at the node's SLIT distance, and dram_bandwidth_gbs.
struct MemoryDevice {
    MemoryKind kind = MemoryKind::kDram;
    // Idle load-to-use latency from the CPUs of the nearest node that has CPUs (the device's
    // host socket).
    double latency_ns = 0;
    // Sustained read bandwidth of the device, all its channels or lanes.
    double bandwidth_gbs = 0;
    // Onlined by dax/kmem (true) or present at boot (false).
    bool dax_kmem = false;
};

}  // namespace numasim
