#include "mm/node_memory.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "mm/page.h"

namespace numasim {

void PhysMem::init(const std::vector<uint64_t>& node_bytes,
                   const std::vector<std::vector<int>>& distance, const PageGeometry& pages) {
    const size_t n = node_bytes.size();
    nodes.assign(n, NodeMemory{});
    uint64_t total_kb = 0;
    for (uint64_t b : node_bytes)
        total_kb += b / 1024;
    const uint64_t min_free_kb =
        std::clamp<uint64_t>(static_cast<uint64_t>(std::sqrt(static_cast<double>(total_kb) * 16)),
                             MIN_FREE_KBYTES_FLOOR, MIN_FREE_KBYTES_CEIL);
    for (size_t i = 0; i < n; ++i) {
        NodeMemory& m = nodes[i];
        m.present_pages = node_bytes[i] / pages.size();
        m.free_pages = m.present_pages;
        const double share = total_kb ? static_cast<double>(node_bytes[i] / 1024) / total_kb : 0;
        m.wmark_min = static_cast<uint64_t>(min_free_kb * share) * 1024 / pages.size();
        const uint64_t delta =
            std::max(m.wmark_min / 4, m.present_pages * WATERMARK_SCALE_FACTOR / 10000);
        m.wmark_low = m.wmark_min + delta;
        m.wmark_high = m.wmark_low + delta;
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
