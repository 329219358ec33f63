// Physical memory per node: capacity, free pages and the zone watermarks that decide when an
// allocation falls back to another node and when a NUMA migration target counts as full.
#pragma once

#include <cstdint>
#include <vector>

#include "machine/page_geometry.h"

namespace numasim {

struct NodeMemory {
    uint64_t present_pages = 0;
    uint64_t free_pages = 0;
    uint64_t wmark_min = 0, wmark_low = 0, wmark_high = 0;
};

// calculate_min_free_kbytes(): min_free_kbytes = sqrt(lowmem_kbytes * 16), clamped to
// [128, 262144] KiB (mm/page_alloc.c), split across nodes by size.
inline constexpr uint64_t MIN_FREE_KBYTES_FLOOR = 128;
inline constexpr uint64_t MIN_FREE_KBYTES_CEIL = 262144;
// vm.watermark_scale_factor default 10: low and high sit min + 0.1% of the zone above each other.
inline constexpr uint64_t WATERMARK_SCALE_FACTOR = 10;

struct PhysMem {
    std::vector<NodeMemory> nodes;
    // Nodes in order of increasing distance from each node (the zonelist).
    std::vector<std::vector<int>> zonelist;

    // Pages and watermarks in base pages of `pages`.
    void init(const std::vector<uint64_t>& node_bytes,
              const std::vector<std::vector<int>>& distance, const PageGeometry& pages);
    uint64_t used_pages(int nid) const { return nodes[nid].present_pages - nodes[nid].free_pages; }
};

}  // namespace numasim
