// BM_NthInteresting: nth_interesting (engine/page_walk.h), the search behind every random
// stream's step, over a 1 GiB VMA (262,144 pages of 4 KiB on haswell-2s) whose pages are all
// present and one in `one_in` PROT_NONE, drawn at random. Two kinds of call, as perf bench
// numa's chunked walk (Engine::touch_chunks) makes them:
//   kind 0: the pages of one chunk, [from, from + 2), the first interesting one (n = 0);
//   kind 1: a skip from a random page to the region's end past n interesting pages, n drawn
//           from 0 to 31 (a geometric draw over two cells per page of interest).
// items = calls. The starts and skips are drawn once, outside the timed loop.
// BM_NthInterestingInRegion: a sparse random stream's first skip of a step, over a region of
// 40,000 pages at a random start (one of pmbench's tail ranges on the tiering row) with one page
// in 512 PROT_NONE and n drawn past the region's pages of interest (a few touches a second over
// the range): `totals` 0 walks the region (nth_interesting), 1 reads its totals first
// (nth_interesting_in_region).
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "engine/page_walk.h"
#include "engine/process.h"
#include "kernel/system.h"
#include "machine/presets.h"
#include "numab/profile.h"
#include "sim/rng.h"

namespace numasim {
namespace {

// A 1 GiB VMA present everywhere, as after first touch, and one page in `one_in` PROT_NONE at
// random; the counts kept as change_prot_numa keeps them.
Vma& walk_vma(System& sys, uint64_t one_in, Rng& rng) {
    Mm& mm = mm_create(sys);
    Vma& vma = do_mmap(sys, mm, uint64_t{1} << 30, VM_READ | VM_WRITE, "walk");
    const uint64_t pages = vma.nr_pages();
    vma.present.set_range(0, pages);
    vma.init_block_counts();
    for (uint64_t i = 0; i < pages; ++i)
        if (rng.below(one_in) == 0) {
            vma.protnone.set(i);
            vma.count_protnone(i, 1, +1);
        }
    return vma;
}

void BM_NthInteresting(benchmark::State& state) {
    const uint64_t one_in = static_cast<uint64_t>(state.range(0));
    const bool skip = state.range(1) != 0;
    System sys(load_preset("haswell-2s"), load_profile("v6.12"), 42);
    Rng rng(7, "bench.walk");
    Vma& vma = walk_vma(sys, one_in, rng);
    const uint64_t pages = vma.nr_pages();
    constexpr size_t kCalls = 4096;
    std::vector<uint64_t> from(kCalls), n(kCalls);
    for (size_t k = 0; k < kCalls; ++k) {
        from[k] = rng.below(pages - 2);
        n[k] = skip ? rng.below(32) : 0;
    }
    uint64_t sum = 0, calls = 0;
    for (auto _ : state) {
        for (size_t k = 0; k < kCalls; ++k)
            sum += nth_interesting(vma, from[k], skip ? pages : from[k] + 2, false, n[k]);
        calls += kCalls;
    }
    benchmark::DoNotOptimize(sum);
    state.SetItemsProcessed(static_cast<int64_t>(calls));
}
void BM_NthInterestingInRegion(benchmark::State& state) {
    const bool totals = state.range(0) != 0;
    constexpr uint64_t kOneIn = 512, kRegionPages = 40000;
    System sys(load_preset("haswell-2s"), load_profile("v6.12"), 42);
    Rng rng(7, "bench.walk");
    Vma& vma = walk_vma(sys, kOneIn, rng);
    constexpr size_t kRegions = 256;
    std::vector<Region> regions(kRegions);
    std::vector<uint64_t> n(kRegions);
    for (size_t k = 0; k < kRegions; ++k) {
        Region& r = regions[k];
        r.vma = &vma;
        r.first = rng.below(vma.nr_pages() - kRegionPages);
        r.count = kRegionPages;
        r.present = vma.present.count(r.first, r.first + r.count);
        r.protnone = vma.protnone.count(r.first, r.first + r.count);
        n[k] = r.protnone + rng.below(uint64_t{1} << 20);
    }
    uint64_t sum = 0, calls = 0;
    for (auto _ : state) {
        for (size_t k = 0; k < kRegions; ++k) {
            const Region& r = regions[k];
            sum += totals ? nth_interesting_in_region(r, true, n[k])
                          : nth_interesting(vma, r.first, r.first + r.count, true, n[k]);
        }
        calls += kRegions;
    }
    benchmark::DoNotOptimize(sum);
    state.SetItemsProcessed(static_cast<int64_t>(calls));
}
BENCHMARK(BM_NthInterestingInRegion)->ArgName("totals")->Arg(0)->Arg(1);

BENCHMARK(BM_NthInteresting)
    ->ArgNames({"one_in", "skip"})
    ->Args({8, 0})
    ->Args({8, 1})
    ->Args({512, 1});

}  // namespace
}  // namespace numasim
