// Reclaim's LRU walk (mm/vmscan.h, mm/lru_index.h) on a tiered machine, the cost behind
// bench-targets.sh's pmbench-pmem-4x row: most of the address space it walks is on other nodes.
#include <benchmark/benchmark.h>

#include <memory>
#include <vector>

#include "engine/process.h"
#include "kernel/system.h"
#include "machine/presets.h"
#include "mm/fault.h"
#include "mm/lru_add.h"
#include "mm/lru_cursor.h"
#include "mm/lru_index.h"
#include "mm/migrate.h"
#include "mm/mm.h"
#include "mm/page_alloc.h"
#include "mm/vmscan.h"
#include "numab/profile.h"
#include "workload/phase_list.h"

namespace numasim {
namespace {

// cascadelake-2s-pmem: node 0 is DRAM, node 2 the PMEM it demotes to.
constexpr int kDram = 0, kPmem = 2;

// A 1 GiB VMA of cascadelake-2s-pmem whose pages are on node 0 one in `one_in`, the rest
// demoted to node 2 (one in 9 is the pmbench-pmem-4x row's share, 4 GiB of DRAM per socket
// against 32 GiB of PMEM). Null, after SkipWithError, if node 2 has no room.
struct TieredVma {
    System sys{load_preset("cascadelake-2s-pmem"), load_profile("v6.6"), 1};
    Vma* vma = nullptr;
    Region* region = nullptr;
    PhaseList program{std::vector<Phase>{}};

    bool setup(benchmark::State& state, uint64_t one_in) {
        sys.set_kernel_release("v6.6");  // the memory tiers and demotion targets of v6.6
        sys.knobs.demotion_enabled = true;
        Mm& mm = mm_create(sys);
        vma = &do_mmap(sys, mm, uint64_t{1} << 30, VM_READ | VM_WRITE, "data");
        region = &add_region(sys, *vma, 0, vma->nr_pages(), "data");
        Task& p = create_process(sys, mm, nullptr, "main", &program, 0, 0);
        for (uint64_t i = 0; i < vma->nr_pages(); ++i)
            handle_mm_fault(sys, p, *vma, i, true);
        lru_add_drain_all(sys);
        for (uint64_t i = 0; i < vma->nr_pages(); ++i) {
            if (i % one_in == 0) continue;
            if (alloc_demote_page(sys, kPmem, uint64_t{1} << kPmem, 0, kDram) != kPmem) {
                state.SkipWithError("node 2 is full");
                return false;
            }
            migrate_demote_folio(sys, *vma, i, 1, kPmem);
        }
        return true;
    }
};

// BM_ShrinkNode: one shrink_node() pass of SWAP_CLUSTER_MAX pages over node 0 of a TieredVma.
// Every page is accessed between passes, so nothing is demoted: pages go from inactive to
// referenced to active and back, and the walk goes on round the VMA. items = pages scanned
// (inactive and active lists); `vma_pages_per_scanned` = how many pages of the VMA the walk
// steps over for each.
void BM_ShrinkNode(benchmark::State& state) {
    const auto one_in = static_cast<uint64_t>(state.range(0));
    TieredVma t;
    if (!t.setup(state, one_in)) return;
    System& sys = t.sys;
    const uint64_t before = sys.counters.pgscan_kswapd + sys.counters.pgrefill;
    for (auto _ : state) {
        t.region->accesses.all += 1000;  // e^-1000 is 0 in a double: every page was accessed
        benchmark::DoNotOptimize(
            shrink_node(sys, kDram, SWAP_CLUSTER_MAX, SWAP_CLUSTER_MAX, ReclaimBy::Kswapd));
    }
    const uint64_t scanned = sys.counters.pgscan_kswapd + sys.counters.pgrefill - before;
    state.SetItemsProcessed(static_cast<int64_t>(scanned));
    state.counters["vma_pages_per_scanned"] = static_cast<double>(one_in);
}
BENCHMARK(BM_ShrinkNode)->ArgName("one_in")->Arg(1)->Arg(9)->Arg(64);

// BM_LruCursor: the walk of the LRU index (mm/lru_cursor.h) alone, round node 0's inactive
// list of a TieredVma, one folio a call from one cursor as shrink_inactive_list takes them.
// items = pages met; its cost per page should not grow with `one_in`, the VMA's pages passed
// per page met. `index_bytes_per_page`: the bitmaps' host memory per page of the object.
void BM_LruCursor(benchmark::State& state) {
    const auto one_in = static_cast<uint64_t>(state.range(0));
    TieredVma t;
    if (!t.setup(state, one_in)) return;
    Vma& v = *t.vma;
    LruCursor lru(v, kDram, false);
    uint64_t from = 0, met = 0, first = 0, nr = 0;
    for (auto _ : state) {
        if (!lru.next(from, first, nr)) {
            from = 0;  // round again
            continue;
        }
        from = first + nr;
        met += nr;
    }
    state.SetItemsProcessed(static_cast<int64_t>(met));
    state.counters["vma_pages_per_met"] = static_cast<double>(one_in);
    state.counters["index_bytes_per_page"] =
        static_cast<double>(v.object->lru.memory_bytes()) / static_cast<double>(v.object->nr_pages);
}
BENCHMARK(BM_LruCursor)->ArgName("one_in")->Arg(1)->Arg(9)->Arg(64);

}  // namespace
}  // namespace numasim
