// What the cost model sees of a task: how its current phase touches memory. A workload builds
// these streams into the phases of its programs (engine/program.h); the engine hands the cost
// model only this narrow view of the task it runs.
#pragma once

#include <cstdint>
#include <memory>
#include <span>

namespace numasim {

struct Region;
class StreamIndex;

enum class Pattern : uint8_t {
    Sweep,   // sequential pass over the region, wrapping around (bzero, memset, streaming)
    Random,  // uniform random pages of the region (or chunks of neighbours: chunk_bytes)
    HotSet,  // a hot fraction of the pages takes a hot share of the accesses, the rest uniform
};

struct AccessStream {
    Region* region = nullptr;
    Pattern pattern = Pattern::Sweep;
    double share = 1.0;           // fraction of the phase's bytes that go to this stream
    double write_fraction = 0.0;  // fraction of accesses that are stores
    double hot_fraction = 0.1;    // HotSet: fraction of the region's pages that are hot
    double hot_share = 0.9;       // HotSet: fraction of accesses that go to the hot pages
    // Random: bytes each random access covers in one go, from a random 8-byte word on (perf
    // bench numa walks 8 KiB chunks); 0: each access is one cache line, drawn on its own.
    uint64_t chunk_bytes = 0;
    // Random in chunks: chunks start only in the region's first this many bytes (0: anywhere).
    // perf's start is a 32-bit LFSR value modulo the buffer's words: the first 32 GiB only.
    uint64_t chunk_starts_below = 0;
    bool start_at_thread_offset = false;  // Sweep: start at `start_page` instead of 0
    uint64_t start_page = 0;

    bool operator==(const AccessStream&) const = default;
};

// The memory behaviour of one running phase.
struct AccessMix {
    std::span<const AccessStream> streams;
    double rate_gbs = 1.0;  // bytes per ns (= GB/s) the task would move at local latency
    double mlp = 0;         // outstanding misses; 0 = the machine's line fill buffers
    // The streams by VMA and page (cost/stream_index.h), made when first asked and made again
    // for another span; the streams a span shows must not change in place once it is made (the
    // engine gives each phase a new mix).
    mutable std::shared_ptr<const StreamIndex> index = nullptr;
};

// Where a random walk in chunks (perf bench numa's do_work: 1024 words at an LFSR-drawn word)
// can start: one cell per page, the pages whose words it may start at. A chunk of `bytes` that
// starts in cell c covers pages c .. c + pages - 1, and page c + pages as well with probability
// p_more (it starts late enough in its first page to cross one more page boundary).
struct ChunkSpan {
    uint64_t pages = 1;
    double p_more = 0;
    // Pages after its cell that a chunk may reach.
    unsigned reach() const { return static_cast<unsigned>(pages - 1) + (p_more > 0 ? 1 : 0); }
};
// The span of a chunk of `chunk_bytes` starting at an 8-byte word drawn uniformly from a page
// of `page_bytes` (both multiples of 8). The reach must stay below 64 pages.
ChunkSpan chunk_span(uint64_t chunk_bytes, uint64_t page_bytes);
// The hot pages of a HotSet stream over `region_pages` pages: the first hot_fraction of them,
// at least one (the split the access walk and the migration waiters' touch probability share).
uint64_t hot_pages(const AccessStream& s, uint64_t region_pages);
// The cells (pages) of a chunked stream over `region_pages` pages of `page_bytes` where its
// chunks may start (AccessStream::chunk_starts_below).
uint64_t chunk_cells(const AccessStream& s, uint64_t region_pages, uint64_t page_bytes);

}  // namespace numasim
