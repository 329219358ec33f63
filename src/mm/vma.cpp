#include "mm/vma.h"

#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <new>

#include "mm/mm.h"

namespace numasim {

namespace {

// Frame arrays from this size on (2048 simulated pages, a thread stack of 8 MiB) are their own
// mapping: the host hands out zeroed pages only where frames are written, so the mostly
// untouched frames of a stack cost neither clearing nor host page faults.
constexpr size_t kMappedFrameBytes = size_t{16} << 10;
// From this size on (262144 simulated pages) the mapping asks the host for transparent huge
// pages (honoured in its `madvise` mode, Debian's default): the first write to each 2 MiB of
// frames then takes one host page fault instead of 512, and a huge page holds the frames of
// 1 GiB of simulated memory.
constexpr size_t kHugeFrameBytes = size_t{2} << 20;

PageFrame* alloc_frames(uint64_t pages, size_t& mapped) {
    const size_t bytes = static_cast<size_t>(std::max<uint64_t>(pages, 1)) * sizeof(PageFrame);
    mapped = 0;
    if (bytes >= kMappedFrameBytes) {
        void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p != MAP_FAILED) {
            // A hint: without THP the pages stay small.
            if (bytes >= kHugeFrameBytes) madvise(p, bytes, MADV_HUGEPAGE);
            mapped = bytes;
            return static_cast<PageFrame*>(p);
        }
    }
    return static_cast<PageFrame*>(std::calloc(bytes / sizeof(PageFrame), sizeof(PageFrame)));
}

}  // namespace

MemObject::MemObject(uint64_t pages, bool file)
    : frames(alloc_frames(pages, frames_mapped)), nr_pages(pages), is_file(file) {
    if (!frames) throw std::bad_alloc();
}

MemObject::~MemObject() {
    if (frames_mapped)
        munmap(frames, frames_mapped);
    else
        std::free(frames);
}

MemObject& Vma::own_object() {
    if (!own) own = std::make_shared<MemObject>(nr_pages(), false);
    return *own;
}

void MemObject::add_mapper(Vma& v, int nr_nodes) {
    list_mapper(v);
    v.shared = totals_for(v.pgoff, v.nr_pages(), nr_nodes);
    ++v.shared->window_mappers;
}

void MemObject::list_mapper(Vma& v) {
    mappers.push_back(&v);
    windows.push_back(v.window());
}

void MemObject::remove_mapper(Vma& v) {
    const auto k = std::find(mappers.begin(), mappers.end(), &v) - mappers.begin();
    mappers.erase(mappers.begin() + k);
    windows.erase(windows.begin() + k);
    unmapped_hint.clear();
    if (v.shared) --v.shared->window_mappers;
}

ObjectRangeTotals* MemObject::totals_for(uint64_t first, uint64_t count, int nr_nodes) {
    for (auto& t : range_totals)
        if (t->first == first && t->count == count) return t.get();
    auto t = std::make_unique<ObjectRangeTotals>();
    t->first = first;
    t->count = count;
    t->moved.assign(static_cast<size_t>(nr_nodes), 0);
    range_totals.push_back(std::move(t));
    return range_totals.back().get();
}

uint64_t PlacementStamp::fresh() {
    // Shared by the simulations that run in parallel, hence atomic; drawn only when a region or
    // an object range is created.
    static std::atomic<uint64_t> owners{0};
    return owners.fetch_add(1, std::memory_order_relaxed) << 32;
}

uint64_t Region::bytes() const {
    return count << vma->pages.shift;
}

void Vma::init_block_counts() {
    const uint64_t n = nr_pages();
    const uint64_t blocks = (n >> BLOCK_SHIFT) + 1;
    blk_absent.assign(blocks, 0);
    blk_protnone.assign(blocks, 0);
    sblk_interesting.assign((n >> SUPERBLOCK_SHIFT) + 1, 0);
    for (uint64_t b = 0; b < blocks; ++b) {
        const uint64_t lo = b << BLOCK_SHIFT, hi = std::min(n, (b + 1) << BLOCK_SHIFT);
        if (lo >= hi) continue;
        blk_absent[b] = static_cast<uint32_t>((hi - lo) - present.count(lo, hi));
        blk_protnone[b] = static_cast<uint32_t>(protnone.count(lo, hi));
        sblk_interesting[b >> (SUPERBLOCK_SHIFT - BLOCK_SHIFT)] += blk_absent[b] + blk_protnone[b];
    }
}

namespace {
template <typename F>
void for_blocks(uint64_t first, uint64_t nr, int shift, F f) {
    while (nr > 0) {
        const uint64_t b = first >> shift;
        const uint64_t end = std::min(first + nr, (b + 1) << shift);
        f(b, end - first);
        nr -= end - first;
        first = end;
    }
}
}  // namespace

template <std::vector<uint32_t> Vma::*Blk>
void Vma::count_in_blocks_outline(uint64_t first, uint64_t nr, int delta) {
    for_blocks(first, nr, BLOCK_SHIFT, [&](uint64_t b, uint64_t n) {
        (this->*Blk)[b] += static_cast<uint32_t>(delta * static_cast<int64_t>(n));
    });
    for_blocks(first, nr, SUPERBLOCK_SHIFT, [&](uint64_t b, uint64_t n) {
        sblk_interesting[b] += static_cast<uint32_t>(delta * static_cast<int64_t>(n));
    });
}
template void Vma::count_in_blocks_outline<&Vma::blk_absent>(uint64_t, uint64_t, int);
template void Vma::count_in_blocks_outline<&Vma::blk_protnone>(uint64_t, uint64_t, int);

void Vma::add_region(Region* r) {
    regions.push_back(r);
    region_index_valid_ = false;
}

void Vma::build_region_index() {
    const uint64_t chunks = (nr_pages() >> pages.pmd_order) + 1;
    region_index_.assign(chunks, {});
    for (Region* r : regions) {
        if (r->count == 0) continue;
        const uint64_t lo = r->first >> pages.pmd_order;
        const uint64_t hi = (r->first + r->count - 1) >> pages.pmd_order;
        for (uint64_t c = lo; c <= hi && c < chunks; ++c)
            region_index_[c].push_back(r);
    }
    region_index_valid_ = true;
}

}  // namespace numasim
