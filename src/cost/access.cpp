#include "cost/access.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace numasim {

ChunkSpan chunk_span(uint64_t chunk_bytes, uint64_t page_bytes) {
    // A chunk at byte offset o of its first page covers (o + chunk_bytes - 1) / page_bytes pages
    // after it. With chunk_bytes - 1 = a * page_bytes + b, that is a, or a + 1 once
    // o >= page_bytes - b: the words from there to the page's end.
    constexpr uint64_t word = 8;  // perf's u64 words
    const uint64_t a = (chunk_bytes - 1) / page_bytes, b = (chunk_bytes - 1) % page_bytes;
    const uint64_t words = page_bytes / word;
    const uint64_t first_late = (page_bytes - b + word - 1) / word;  // ceil((page - b) / word)
    ChunkSpan s;
    s.pages = a + 1;
    s.p_more =
        static_cast<double>(words - std::min(words, first_late)) / static_cast<double>(words);
    if (s.reach() >= 64)
        throw std::logic_error("chunk_span: a chunk may reach at most 63 pages past its first");
    return s;
}

uint64_t hot_pages(const AccessStream& s, uint64_t region_pages) {
    return std::clamp<uint64_t>(
        static_cast<uint64_t>(std::llround(static_cast<double>(region_pages) * s.hot_fraction)), 1,
        region_pages);
}

uint64_t chunk_cells(const AccessStream& s, uint64_t region_pages, uint64_t page_bytes) {
    if (!s.chunk_starts_below) return region_pages;
    return std::min(region_pages, (s.chunk_starts_below + page_bytes - 1) / page_bytes);
}

}  // namespace numasim
