// Zone watermarks as mm/page_alloc.c sets them at boot (calculate_min_free_kbytes and
// __setup_per_zone_wmarks), for the model's one zone per node (every simulated page lives in
// ZONE_NORMAL, so a node's zone holds all its memory and is its only lowmem zone).
//
//   min_free_kbytes = int_sqrt(lowmem_kbytes * 16), clamped to [128, 262144] KiB
//   WMARK_MIN   = the node's share of min_free_kbytes, by size
//   delta       = max(WMARK_MIN / 4, managed_pages * watermark_scale_factor / 10000)
//                 (the knob watermark_scale_factor, vm.watermark_scale_factor)
//   WMARK_LOW   = WMARK_MIN + delta
//   WMARK_HIGH  = WMARK_LOW + delta
//   WMARK_PROMO = WMARK_HIGH + delta  (v5.18: the mark kswapd reclaims up to in tiering mode and
//                                      promotion's "free space enough" test starts from)
#pragma once

#include <cstdint>

namespace numasim {

// calculate_min_free_kbytes()'s clamp (mm/page_alloc.c; the ceiling is 256 MiB since v5.7).
inline constexpr uint64_t MIN_FREE_KBYTES_FLOOR = 128;
inline constexpr uint64_t MIN_FREE_KBYTES_CEIL = 262144;
// vm.watermark_scale_factor's default: each mark sits 0.1% of the zone above the one below
// (mm/page_alloc.c); the knob of that name sets it (1..3000).
inline constexpr uint64_t WATERMARK_SCALE_FACTOR = 10;

// In pages.
struct ZoneWatermarks {
    uint64_t min = 0, low = 0, high = 0, promo = 0;
};

// min_free_kbytes for `lowmem_kbytes` of lowmem (here, all memory).
uint64_t calculate_min_free_kbytes(uint64_t lowmem_kbytes);

// The watermarks of a zone of `zone_kbytes` (`managed_pages` pages of `page_bytes`) out of
// `lowmem_kbytes`, given min_free_kbytes and watermark_scale_factor. The zone's share of
// min_free_kbytes is taken in KiB and then turned into pages, rounding down at each step.
ZoneWatermarks setup_zone_wmarks(uint64_t min_free_kbytes, uint64_t zone_kbytes,
                                 uint64_t lowmem_kbytes, uint64_t managed_pages,
                                 uint64_t page_bytes,
                                 uint64_t scale_factor = WATERMARK_SCALE_FACTOR);

}  // namespace numasim
