#include "mm/node_memory.h"

#include <algorithm>
#include <numeric>

#include "mm/page.h"

namespace numasim {

void PhysMem::init(const std::vector<uint64_t>& node_bytes,
                   const std::vector<std::vector<int>>& distance, const PageGeometry& pages,
                   uint64_t scale_factor) {
    const size_t n = node_bytes.size();
    nodes.assign(n, NodeMemory{});
    uint64_t total_kb = 0;
    for (uint64_t b : node_bytes)
        total_kb += b / 1024;
    const uint64_t min_free_kb = calculate_min_free_kbytes(total_kb);
    for (size_t i = 0; i < n; ++i) {
        NodeMemory& m = nodes[i];
        m.present_pages = node_bytes[i] / pages.size();
        m.free_pages = m.present_pages;
        const ZoneWatermarks w = setup_zone_wmarks(min_free_kb, node_bytes[i] / 1024, total_kb,
                                                   m.present_pages, pages.size(), scale_factor);
        m.wmark_min = w.min;
        m.wmark_low = w.low;
        m.wmark_high = w.high;
        m.wmark_promo = w.promo;
    }
    zonelist.assign(n, {});
    for (size_t i = 0; i < n; ++i) {
        auto& zl = zonelist[i];
        zl.resize(n);
        std::iota(zl.begin(), zl.end(), 0);
        std::stable_sort(zl.begin(), zl.end(),
                         [&](int a, int b) { return distance[i][a] < distance[i][b]; });
    }
}

}  // namespace numasim
