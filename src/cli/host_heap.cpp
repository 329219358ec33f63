#include "cli/host_heap.h"

#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>

namespace numasim {

namespace {

// Address space the heap takes each time it must grow (M_TOP_PAD). The one advice below covers
// every allocation of a run whose heap stays within it (the largest row of
// scripts/bench-targets.sh peaks at about 110 MiB, most of it frame arrays that are mappings of
// their own); memory is committed only where it is touched.
constexpr size_t kHeapReserveBytes = size_t{256} << 20;
// Requests up to this size are served from the heap too (M_MMAP_THRESHOLD), instead of each
// getting a mapping of small pages from 128 KiB up; 32 MiB is glibc's own ceiling for its
// adaptive threshold on 64-bit hosts (DEFAULT_MMAP_THRESHOLD_MAX).
constexpr int kHeapMmapThreshold = 32 << 20;
// Free memory at the heap's top is kept up to this size (M_TRIM_THRESHOLD) rather than given
// back, which would break the huge pages up; what one run frees serves the next one's state.
constexpr int kHeapTrimThreshold = 1 << 30;
// A request larger than the heap's free top at start-up (132 KiB), so that it grows the heap.
constexpr size_t kGrowRequestBytes = size_t{1} << 20;
// PMD size of x86-64 and arm64 with 4 KiB pages: the unit MADV_HUGEPAGE maps.
constexpr uintptr_t kHostHugePage = uintptr_t{2} << 20;

}  // namespace

void back_heap_with_huge_pages() {
#if defined(__SANITIZE_ADDRESS__)
    return;
#else
    if (!mallopt(M_MMAP_THRESHOLD, kHeapMmapThreshold) ||
        !mallopt(M_TRIM_THRESHOLD, kHeapTrimThreshold) ||
        !mallopt(M_TOP_PAD, static_cast<int>(kHeapReserveBytes)))
        return;
    void* grow = std::malloc(kGrowRequestBytes);
    if (!grow) return;
    const uintptr_t top = reinterpret_cast<uintptr_t>(sbrk(0));
    const uintptr_t lo =
        (reinterpret_cast<uintptr_t>(grow) + kHostHugePage - 1) & ~(kHostHugePage - 1);
    const uintptr_t hi = top & ~(kHostHugePage - 1);
    // The heap is the brk area, below its break; anything else means malloc is not glibc's.
    if (reinterpret_cast<uintptr_t>(grow) < top && hi > lo)
        madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_HUGEPAGE);
    std::free(grow);
#endif
}

}  // namespace numasim
