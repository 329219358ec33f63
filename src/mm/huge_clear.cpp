#include "mm/huge_clear.h"

#include <algorithm>

#include "cost/constants.h"
#include "kernel/system.h"
#include "mm/page_alloc.h"

namespace numasim {

bool HugeClear::lost_by(int pid) const {
    return std::find(losers.begin(), losers.end(), pid) != losers.end();
}

void prune_huge_clears(Vma& vma, Nanos horizon) {
    std::erase_if(vma.huge_clears, [horizon](const HugeClear& c) { return c.end <= horizon; });
}

void note_huge_clear(Vma& vma, uint64_t first, const Task& p, Nanos start, Nanos ns,
                     Nanos horizon) {
    prune_huge_clears(vma, horizon);
    // A stream over this mapping is no longer quiet (Engine::stream_quiet): a CPU that defers
    // its ticks must look again.
    QuietStamp::bump();
    vma.huge_clears.push_back(
        HugeClear{.first = first, .start = start, .end = start + ns, .owner = p.pid, .losers = {}});
}

double lose_huge_clear(System& sys, Task& p, Vma& vma, uint64_t first) {
    ++sys.counters[Vm::pgfault];
    ++p.nr_faults;
    const double ns = sys.cost.cycles_ns(sys.cost.k().ANON_FAULT_CYCLES);
    const int nid = alloc_pages_vma(sys, p, vma, first, vma.pages.pmd_order, p.cpu);
    if (nid < 0) return ns;
    free_pages(sys, nid, vma.pages.pmd_nr());
    return ns + sys.cost.clear_ns(sys.cpu_to_node(p.cpu), nid, vma.pages.pmd_size());
}

}  // namespace numasim
