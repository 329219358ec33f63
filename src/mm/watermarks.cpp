#include "mm/watermarks.h"

#include <algorithm>
#include <cmath>

namespace numasim {

uint64_t calculate_min_free_kbytes(uint64_t lowmem_kbytes) {
    // int_sqrt: exact in a double for any memory size the model takes (below 2^52 KiB).
    const auto root = static_cast<uint64_t>(std::sqrt(static_cast<double>(lowmem_kbytes) * 16));
    return std::clamp<uint64_t>(root, MIN_FREE_KBYTES_FLOOR, MIN_FREE_KBYTES_CEIL);
}

ZoneWatermarks setup_zone_wmarks(uint64_t min_free_kbytes, uint64_t zone_kbytes,
                                 uint64_t lowmem_kbytes, uint64_t managed_pages,
                                 uint64_t page_bytes, uint64_t scale_factor) {
    ZoneWatermarks w;
    const double share =
        lowmem_kbytes ? static_cast<double>(zone_kbytes) / static_cast<double>(lowmem_kbytes) : 0;
    w.min = static_cast<uint64_t>(static_cast<double>(min_free_kbytes) * share) * 1024 / page_bytes;
    const uint64_t delta = std::max(w.min / 4, managed_pages * scale_factor / 10000);
    w.low = w.min + delta;
    w.high = w.low + delta;
    w.promo = w.high + delta;
    return w;
}

}  // namespace numasim
