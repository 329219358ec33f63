// A random walk in chunks (AccessStream::chunk_bytes, perf bench numa's do_work with -r): what
// it touches emerges from chunk starts drawn over the region, each chunk touching the 2 or 3
// pages it covers. One thread walks a buffer it has not touched yet, so its first touches show
// which pages the walk reached.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <memory>

#include "sim_fixture.h"

namespace numasim {
namespace {

using testing::PhaseList;

constexpr uint64_t kPages = 20000;  // 80 MiB of 4 KiB pages, no THP

struct Walk {
    uint64_t present = 0;        // pages the walk reached
    uint64_t alone = 0;          // present pages with both neighbours absent
    uint64_t present_below = 0;  // ... among the first `below` pages
};

// One thread moves `bytes` through a random stream over the buffer (chunks of `chunk` bytes,
// starting in the first `starts_below` bytes), and the present pages are counted.
Walk walk(double bytes, uint64_t chunk, uint64_t starts_below = 0, uint64_t below = 0) {
    NumaBalancingKnobs knobs = load_profile("v6.12");
    knobs.numa_balancing = 0;
    System sys(load_preset("tiny-2n"), knobs, 5);
    Mm& mm = mm_create(sys);
    Vma& v = do_mmap(sys, mm, kPages * 4096, VM_READ | VM_WRITE, "buffer");
    Region& r = add_region(sys, v, 0, v.nr_pages(), "buffer");
    Phase ph;
    AccessStream s{&r, Pattern::Random, 1.0, 1.0};
    s.chunk_bytes = chunk;
    s.chunk_starts_below = starts_below;
    ph.streams.push_back(s);
    ph.rate_gbs = 2.0;
    ph.work_bytes = bytes;
    PhaseList prog({ph});
    create_process(sys, mm, nullptr, "walker", &prog, 0, 0);
    Engine eng(sys);
    eng.run(10 * NSEC_PER_SEC);
    Walk w;
    for (uint64_t i = 0; i < kPages; ++i) {
        if (!v.present.test(i)) continue;
        ++w.present;
        if (i < below) ++w.present_below;
        // The last page can be the clipped chunk of the last cell alone.
        if (i > 0 && i + 1 < kPages && !v.present.test(i - 1) && !v.present.test(i + 1)) ++w.alone;
    }
    return w;
}

TEST(RandomChunks, PagesReachedFollowTheChunksThatCoverThem) {
    // 0.2 chunks per cell over the run: page j is reached from cells j - 1 and j by every chunk
    // and from cell j - 2 by 511 of 512 (those not starting on a page's first word), so it stays
    // untouched with probability exp(-0.2 * (2 + 511/512)) = 0.549.
    const double per_cell = 0.2;
    const Walk w = walk(per_cell * kPages * 8192, 8192);
    const double expected = 1 - std::exp(-per_cell * (2 + 511.0 / 512));
    EXPECT_NEAR(static_cast<double>(w.present) / kPages, expected, 0.03);
    // A chunk covers 2 pages at least, so no reached page stands alone.
    EXPECT_EQ(w.alone, 0u);
}

TEST(RandomChunks, SingleLinesTouchFarMorePagesPerByte) {
    // The same bytes as independent cache lines: 128 accesses per page over the run, so every
    // page is touched (1 - exp(-25.6)), and many stand alone where their neighbours were not
    // (with 2 % of the bytes, 1 - exp(-0.512) = 40 % are touched, singly).
    EXPECT_EQ(walk(0.2 * kPages * 8192, 0).present, kPages);
    const Walk few = walk(0.004 * kPages * 8192, 0);
    EXPECT_NEAR(static_cast<double>(few.present) / kPages, 1 - std::exp(-0.512), 0.03);
    EXPECT_GT(few.alone, kPages / 20);
}

TEST(RandomChunks, StartsOnlyWhereTheLfsrReaches) {
    // Starts in the first 8000 pages only: the 0.2 * 20000 chunks fall on 8000 cells (0.5
    // each), and no page past 8000 + 2 is reached.
    const Walk w = walk(0.2 * kPages * 8192, 8192, 8000 * 4096, 8000);
    EXPECT_LE(w.present - w.present_below, 2u);
    EXPECT_NEAR(static_cast<double>(w.present_below) / 8000, 1 - std::exp(-0.5 * (2 + 511.0 / 512)),
                0.03);
}

}  // namespace
}  // namespace numasim
