// Reclaim's LRU walk (mm/vmscan.h) on a tiered machine, the cost behind bench-targets.sh's
// pmbench-pmem-4x row: most of the address space it walks is on other nodes.
#include <benchmark/benchmark.h>

#include <memory>
#include <vector>

#include "engine/process.h"
#include "kernel/system.h"
#include "machine/presets.h"
#include "mm/fault.h"
#include "mm/lru_add.h"
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

// BM_ShrinkNode: one shrink_node() pass of SWAP_CLUSTER_MAX pages over node 0, whose pages are
// one in `one_in` of a 1 GiB VMA (the rest demoted to node 2 beforehand: one in 9 is the
// pmbench-pmem-4x row's share, 4 GiB of DRAM per socket against 32 GiB of PMEM). Every page
// is accessed between passes, so nothing is demoted: pages go from inactive to referenced to
// active and back, and the walk goes on round the VMA. items = pages scanned (inactive and
// active lists); `vma_pages_per_scanned` = how many pages of the VMA the walk steps over for
// each.
void BM_ShrinkNode(benchmark::State& state) {
    const auto one_in = static_cast<uint64_t>(state.range(0));
    System sys(load_preset("cascadelake-2s-pmem"), load_profile("v6.6"), 1);
    sys.set_kernel_release("v6.6");  // the memory tiers and demotion targets of v6.6
    sys.knobs.demotion_enabled = true;
    Mm& mm = mm_create(sys);
    Vma& vma = do_mmap(sys, mm, uint64_t{1} << 30, VM_READ | VM_WRITE, "data");
    Region& r = add_region(sys, vma, 0, vma.nr_pages(), "data");
    PhaseList program{std::vector<Phase>{}};
    Task& p = create_process(sys, mm, nullptr, "main", &program, 0, 0);
    for (uint64_t i = 0; i < vma.nr_pages(); ++i)
        handle_mm_fault(sys, p, vma, i, true);
    lru_add_drain_all(sys);
    for (uint64_t i = 0; i < vma.nr_pages(); ++i) {
        if (i % one_in == 0) continue;
        if (alloc_demote_page(sys, kPmem, uint64_t{1} << kPmem, 0, kDram) != kPmem) {
            state.SkipWithError("node 2 is full");
            return;
        }
        migrate_demote_folio(sys, vma, i, 1, kPmem);
    }
    const uint64_t before = sys.counters.pgscan_kswapd + sys.counters.pgrefill;
    for (auto _ : state) {
        r.accesses.all += 1000;  // e^-1000 is 0 in a double: every page was accessed
        benchmark::DoNotOptimize(
            shrink_node(sys, kDram, SWAP_CLUSTER_MAX, SWAP_CLUSTER_MAX, ReclaimBy::Kswapd));
    }
    const uint64_t scanned = sys.counters.pgscan_kswapd + sys.counters.pgrefill - before;
    state.SetItemsProcessed(static_cast<int64_t>(scanned));
    state.counters["vma_pages_per_scanned"] = static_cast<double>(one_in);
}
BENCHMARK(BM_ShrinkNode)->ArgName("one_in")->Arg(1)->Arg(9);

}  // namespace
}  // namespace numasim
