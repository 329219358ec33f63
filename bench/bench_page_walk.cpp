// BM_NthInteresting: nth_interesting (engine/page_walk.h), the search behind every random
// stream's step, over a 1 GiB VMA (262,144 pages of 4 KiB on haswell-2s) whose pages are all
// present and one in `one_in` PROT_NONE, drawn at random. Two kinds of call, as perf bench
// numa's chunked walk (Engine::touch_chunks) makes them:
//   kind 0: the pages of one chunk, [from, from + 2), the first interesting one (n = 0);
//   kind 1: a skip from a random page to the region's end past n interesting pages, n drawn
//           from 0 to 31 (a geometric draw over two cells per page of interest).
// items = calls. The starts and skips are drawn once, outside the timed loop.
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

void BM_NthInteresting(benchmark::State& state) {
    const uint64_t one_in = static_cast<uint64_t>(state.range(0));
    const bool skip = state.range(1) != 0;
    System sys(load_preset("haswell-2s"), load_profile("v6.12"), 42);
    Mm& mm = mm_create(sys);
    Vma& vma = do_mmap(sys, mm, uint64_t{1} << 30, VM_READ | VM_WRITE, "walk");
    const uint64_t pages = vma.nr_pages();
    // Present everywhere, as after first touch; the counts kept as change_prot_numa keeps them.
    vma.present.set_range(0, pages);
    vma.init_block_counts();
    Rng rng(7, "bench.walk");
    for (uint64_t i = 0; i < pages; ++i)
        if (rng.below(one_in) == 0) {
            vma.protnone.set(i);
            vma.count_protnone(i, 1, +1);
        }
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
BENCHMARK(BM_NthInteresting)
    ->ArgNames({"one_in", "skip"})
    ->Args({8, 0})
    ->Args({8, 1})
    ->Args({512, 1});

}  // namespace
}  // namespace numasim
