#include "mm/migrate_syscall.h"

#include <bit>

#include "kernel/system.h"
#include "kernel/tracepoints.h"
#include "mm/lru_add.h"
#include "mm/migrate.h"

namespace numasim {

namespace {

bool node_isset(uint64_t mask, int n) {
    return (mask >> n) & 1;
}

// migrate_to_node(): every folio of `mm` on `source` that only this process maps, in address
// order (queue_pages_range over the whole address space), to `dest`. A PMD-mapped THP moves
// whole, and the folios found are one migrate_pages() call (MIGRATE_SYNC, MR_SYSCALL) by
// `caller`. Returns the pages that failed to move.
uint64_t migrate_to_node(System& sys, Mm& mm, int source, int dest, int cpu, double& kernel_ns,
                         const Task* caller) {
    uint64_t moved = 0, failed = 0, thp_moved = 0, thp_failed = 0;
    bool started = false;
    for (const auto& vp : mm.vmas) {
        Vma& v = *vp;
        // vma_migratable(): no I/O or raw PFN mappings, no hugetlbfs here.
        if (v.vm_flags & (VM_IO | VM_PFNMAP | VM_MIXEDMAP | VM_HUGETLB)) continue;
        const uint64_t n = v.nr_pages();
        for (uint64_t i = v.present.find_next(0, n); i < n; i = v.present.find_next(i + 1, n)) {
            const PageFrame& f = v.frame(i);
            uint64_t first = i, nr = 1, block = 0;
            if (v.pmd_mapped_at(i, block)) {
                first = block;
                nr = v.pages.pmd_nr();
            }
            if (f.nid == source && f.mapcount <= 1) {
                if (!started) {
                    started = true;
                    const Rq& rq = sys.rqs[static_cast<size_t>(cpu)];
                    trace_mm_migrate_pages_start(sys, cpu, caller ? caller : rq.curr, rq.clock,
                                                 MigrateMode::Sync, MigrateReason::Syscall);
                }
                const bool ok =
                    migrate_syscall_folio(sys, v, first, nr, dest, cpu, kernel_ns) == MIGRATE_OK;
                (ok ? moved : failed) += nr;
                if (nr > 1) ++(ok ? thp_moved : thp_failed);
            }
            i = first + nr - 1;
        }
    }
    if (started) {
        ++sys.counters.mm_migrate_pages;
        trace_mm_migrate_pages_syscall(sys, cpu, caller, moved, failed, thp_moved, thp_failed);
    }
    return failed;
}

}  // namespace

int node_remap(int s, uint64_t from, uint64_t to) {
    const int ord = std::popcount(from & ((uint64_t{1} << s) - 1));
    int k = ord % std::popcount(to);
    for (int n = 0; n < 64; ++n)
        if (node_isset(to, n) && k-- == 0) return n;
    return s;
}

uint64_t do_migrate_pages(System& sys, Mm& mm, uint64_t from, uint64_t to, int cpu,
                          double& kernel_ns, const Task* caller) {
    // lru_cache_disable(): every CPU's LRU add batch drains, so that each folio can be isolated.
    lru_add_drain_all(sys);
    uint64_t busy = 0;
    // Source nodes are taken in an order that does not move pages onto a node still to be
    // emptied when that can be avoided: a source whose destination is no longer a source goes
    // first, else the last candidate found (the kernel's loop over `tmp`).
    uint64_t tmp = from;
    while (tmp) {
        int source = -1, dest = 0;
        for (int s = 0; s < 64; ++s) {
            if (!node_isset(tmp, s)) continue;
            // Between masks of different weights, a node in both stays where it is.
            if (std::popcount(from) != std::popcount(to) && node_isset(to, s)) continue;
            const int d = node_remap(s, from, to);
            if (s == d) continue;
            source = s;
            dest = d;
            if (!node_isset(tmp, dest)) break;
        }
        if (source < 0) break;
        tmp &= ~(uint64_t{1} << source);
        busy += migrate_to_node(sys, mm, source, dest, cpu, kernel_ns, caller);
    }
    return busy;
}

}  // namespace numasim
