#include "mm/migrate.h"

#include <algorithm>
#include <stdexcept>

#include "cost/constants.h"
#include "kernel/system.h"
#include "kernel/tracepoints.h"
#include "mm/fault.h"
#include "mm/lru_add.h"
#include "mm/lru_index.h"
#include "mm/migrate_cost.h"
#include "mm/page_alloc.h"
#include "mm/vmscan.h"

namespace numasim {

namespace {

// Moves the region totals of the pages of [first, first + nr) that `m` maps from the shared
// object (present, not privately copied), a run of such pages at a time.
void account_mapped_runs(Vma& m, uint64_t first, uint64_t nr, int from, int to) {
    uint64_t i = first;
    const uint64_t end = first + nr;
    while (i < end) {
        i = m.present.find_next(i, end);
        while (i < end && !m.shares_object_page(i))
            i = m.present.find_next(i + 1, end);
        if (i >= end) break;
        uint64_t j = i + 1;
        while (j < end && m.present.test(j) && m.shares_object_page(j))
            ++j;
        account_region_move(m, i, j - i, from, to);
        i = j;
    }
}

// How many mappings' windows hold object page i: the mappers linked to the totals of each range
// that holds it. The windows are counted per range, so this needs no walk over the mappers.
unsigned covering_mappers(const MemObject& o, uint64_t i) {
    unsigned covering = 0;
    for (const auto& t : o.range_totals)
        if (t->window_mappers && i >= t->first && i - t->first < t->count)
            covering += t->window_mappers;
    return covering;
}

// Whether the mappings of o.unmapped_hint are all those that cover a page of [obj, obj + nr)
// without mapping it from the object (absent there, or a private copy). Page i's mapcount counts
// the mappings that do map it (exact: the invariant checker recomputes it), so the others number
// covering - mapcount, and the hint must account for that many at every page. With an empty hint
// this asks whether every mapping maps the pages.
bool unmapped_hint_complete(const MemObject& o, uint64_t obj, uint64_t nr) {
    for (uint64_t i = obj; i < obj + nr; ++i) {
        unsigned unmapped = 0;
        for (const Vma* m : o.unmapped_hint) {
            const uint64_t j = i - m->pgoff;
            if (m->window().holds(i) && (!m->present.test(j) || !m->shares_object_page(j)))
                ++unmapped;
        }
        if (o.frames[i].mapcount + unmapped != covering_mappers(o, i)) return false;
    }
    return true;
}

// Whether every mapper reads its totals through the object (made by do_mmap or fork).
bool all_mappers_linked(const MemObject& o) {
    size_t linked = 0;
    for (const auto& t : o.range_totals)
        linked += t->window_mappers;
    return linked == o.mappers.size();
}

// Takes the move of the object's pages [first, first + nr) of m's window back out of m's own
// part where m does not map them from the object (absent, or a private copy): the object's
// totals counted the move for every mapping. Returns whether there were such pages.
bool unaccount_unmapped(Vma& m, uint64_t first, uint64_t nr, int from, int to) {
    // A run of such pages at a time: from the next absent or private page to the next page
    // that is present and shared, found a word of the bitmaps at a time.
    const uint64_t end = first + nr;
    const bool copies = m.own_mask.size();
    uint64_t i = first;
    bool found = false;
    while (i < end) {
        i = std::min(m.present.find_next_zero(i, end), copies ? m.own_mask.find_next(i, end) : end);
        if (i >= end) break;
        found = true;
        uint64_t j = i + 1;
        while (j < end) {
            j = m.present.find_next(j, end);
            if (j >= end || !copies || !m.own_mask.test(j)) break;
            j = m.own_mask.find_next_zero(j, end);
        }
        account_region_move(m, i, j - i, to, from);
        i = j;
    }
    return found;
}

// Calls fn(m, first, n) if mapper m's window `w` holds some of the object pages [obj, obj + nr):
// its pages [first, first + n).
template <class Fn>
void mapper_part(Vma& m, MemObject::Window w, uint64_t obj, uint64_t nr, Fn fn) {
    const uint64_t lo = std::max(obj, w.first), hi = std::min(obj + nr, w.end);
    if (lo < hi) fn(m, lo - w.first, hi - lo);
}

// mapper_part for every mapper of the object, in reverse-map order.
template <class Fn>
void for_each_mapper_part(const MemObject& o, uint64_t obj, uint64_t nr, Fn fn) {
    for (size_t k = 0; k < o.mappers.size(); ++k)
        mapper_part(*o.mappers[k], o.windows[k], obj, nr, fn);
}

// Every mapping that sees the moved frames has its totals moved: once in the object's totals of
// every range that holds the pages (ObjectRangeTotals), which all mappings read. Only when some
// mapping covers the pages without mapping them from the object (a parent that never touched
// them, a private copy) is it taken back out for those mappings. Which mappings those are, the
// last walk that found them says (MemObject::unmapped_hint) if the mapcounts confirm it: they are
// nearly always the same few, and a walk over hundreds of mappers would check each one's PTE
// bits to find them again. Otherwise the walk checks every mapper, as the kernel's rmap walk
// would, and remembers the ones it updated.
void account_move(Vma& vma, uint64_t idx, uint64_t nr, int from, int to) {
    MemObject& o = *vma.object;
    if (!vma.shares_object_page(idx) || o.mappers.size() <= 1)
        return account_region_move(vma, idx, nr, from, to);
    if (!all_mappers_linked(o)) {
        for_each_mapper_part(o, vma.pgoff + idx, nr, [&](Vma& m, uint64_t first, uint64_t n) {
            account_mapped_runs(m, first, n, from, to);
        });
        return;
    }
    const uint64_t obj = vma.pgoff + idx;
    for (auto& t : o.range_totals) {
        const uint64_t lo = std::max(obj, t->first), hi = std::min(obj + nr, t->first + t->count);
        if (lo >= hi) continue;
        t->moved[static_cast<size_t>(from)] -= hi - lo;
        t->moved[static_cast<size_t>(to)] += hi - lo;
        t->stamp.bump();
    }
    if (unmapped_hint_complete(o, obj, nr)) {
        for (Vma* m : o.unmapped_hint)
            mapper_part(*m, m->window(), obj, nr, [&](Vma& v, uint64_t first, uint64_t n) {
                unaccount_unmapped(v, first, n, from, to);
            });
        return;
    }
    o.unmapped_hint.clear();
    for_each_mapper_part(o, obj, nr, [&](Vma& m, uint64_t first, uint64_t n) {
        if (unaccount_unmapped(m, first, n, from, to)) o.unmapped_hint.push_back(&m);
    });
}

// A page of a THP that migrates on its own (its own mapping already maps it with PTEs) takes the
// THP apart: every other mapping that still maps its block with a PMD maps it with PTEs too.
void split_mappings(Vma& vma, uint64_t idx) {
    if (!vma.shares_object_page(idx)) return split_huge_pmd(vma, idx);
    const MemObject& o = *vma.object;
    const uint64_t obj = vma.pgoff + idx;
    for (size_t k = 0; k < o.mappers.size(); ++k) {
        Vma& m = *o.mappers[k];
        const MemObject::Window w = o.windows[k];
        if (w.holds(obj) && m.shares_object_page(obj - w.first)) split_huge_pmd(m, obj - w.first);
    }
}

// remove_migration_ptes() for the mappings other than the faulting one: each gets a PTE made
// from its VMA's protection, so a NUMA hint (PROT_NONE) it held on the folio's pages [idx, idx +
// nr) of `vma` is gone with the migration. The faulting mapping's hint is its fault's to clear.
// Pages a mapping holds a private copy of are another folio and keep theirs.
void remove_migration_ptes(Vma& vma, uint64_t idx, uint64_t nr) {
    if (!vma.shares_object_page(idx)) return;
    MemObject& o = *vma.object;
    if (o.mappers.size() < 2) return;
    const uint64_t obj = vma.pgoff + idx;
    for (size_t k = 0; k < o.mappers.size(); ++k) {
        Vma& m = *o.mappers[k];
        const MemObject::Window w = o.windows[k];
        if (&m == &vma || !w.holds(obj) || !m.protnone.size()) continue;
        const uint64_t first = obj - w.first;
        const uint64_t end = std::min({first + nr, w.end - w.first, m.protnone.size()});
        if (!m.protnone.any(first, end)) continue;  // most mappings hold no hint there
        if (!m.own_mask.size()) {
            clear_protnone(m, first, end);
            continue;
        }
        for (uint64_t i = m.own_mask.find_next_zero(first, end); i < end;) {
            const uint64_t stop = m.own_mask.find_next(i, end);
            clear_protnone(m, i, stop);
            i = stop < end ? m.own_mask.find_next_zero(stop, end) : end;
        }
    }
}

// What a NUMA migration of nr pages from `from` to `to` adds to the promotion counter: a move
// from a slower tier to the top tier is a promotion (in tiering mode only since v6.12).
void count_promotion(System& sys, int from, int to, uint64_t nr) {
    if (sys.node_is_toptier(from) || !sys.node_is_toptier(to)) return;
    if (sys.promotion.pgpromote_success_tiering_only && !sys.knobs.tiering_mode()) return;
    sys.counters.pgpromote_success[static_cast<size_t>(to)] += nr;
}

// folio_migrate_flags(): the new folio keeps the old one's cpupid, except in tiering mode across
// the top-tier boundary, where a scan time and a cpupid would be read as each other.
void migrate_cpupid(const System& sys, Vma& vma, uint64_t idx, uint64_t nr, int from, int to) {
    if (!sys.knobs.tiering_mode() || sys.node_is_toptier(from) == sys.node_is_toptier(to)) return;
    for (uint64_t i = idx; i < idx + nr; ++i)
        vma.frame(i).set_last_cpupid(CPUPID_UNSET);
}

// The frames of pages [idx, idx + nr) of `vma` are on `target` now, on the same LRU list there.
void move_frames(Vma& vma, uint64_t idx, uint64_t nr, int target) {
    for (uint64_t i = idx; i < idx + nr; ++i) {
        PageFrame& f = vma.frame(i);
        const int was = lru_list_of(f);
        f.nid = static_cast<uint8_t>(target);
        lru_index_note(vma, i, was, lru_list_of(f));
    }
}

// The move itself, as demotion and the migrate_pages() system call make it (no NUMA-fault
// counters): the frames go to `target`, with their LRU and node accounting, and every mapping's
// PTE is remade from its VMA's protection, so no NUMA hint on the folio survives.
void move_folio_frames(System& sys, Vma& vma, uint64_t idx, uint64_t nr, int target) {
    PageFrame& head = vma.frame(idx);
    const int from = head.nid;
    move_frames(vma, idx, nr, target);
    migrate_cpupid(sys, vma, idx, nr, from, target);
    lru_move_page(sys, head.flags, from, target, nr);
    free_pages(sys, from, nr);
    account_move(vma, idx, nr, from, target);
    if (vma.protnone.size() && vma.protnone.any(idx, idx + nr)) clear_protnone(vma, idx, idx + nr);
    remove_migration_ptes(vma, idx, nr);
    sys.counters[Vm::pgmigrate_success] += nr;
    if (nr > 1) ++sys.counters[Vm::thp_migration_success];
}

// migrate_pages()'s start for a NUMA hinting fault's migration by `p`.
void trace_misplaced_start(System& sys, const Task& p) {
    trace_mm_migrate_pages_start(sys, p.cpu, &p, sys.rqs[static_cast<size_t>(p.cpu)].clock,
                                 MigrateMode::Async, MigrateReason::NumaMisplaced);
}

}  // namespace

int migrate_misplaced_folio_prepare(System& sys, Vma& vma, uint64_t idx, uint64_t nr, int target,
                                    int cpu) {
    const PageFrame& f = vma.frame(idx);
    const bool file = vma.shares_object_page(idx) && vma.object->is_file;
    // Shared libraries: file pages of executable mappings used by several processes stay put.
    if (file && (vma.vm_flags & VM_EXEC) && f.mapcount > 1) return MIGRATE_EACCES;
    if (file && (f.flags & PF_DIRTY)) return MIGRATE_EAGAIN;
    // v6.6 and before refused to migrate a THP mapped by more than one process.
    if (nr > 1 && sys.knobs.thp_mapcount_check && f.mapcount > 1) return MIGRATE_EAGAIN;
    // migrate_balanced_pgdat(): the target must stay above its high watermark plus nr.
    const NodeMemory& m = sys.mem.nodes[target];
    if (m.free_pages < m.wmark_high + nr) {
        // In tiering mode the target's kswapd is woken to demote and make room (wakeup_kswapd on
        // its highest zone); it works from the next tick on (mm/vmscan.h), and this folio tries
        // again at a later fault.
        if (sys.knobs.tiering_mode()) {
            ++sys.counters.wakeup_kswapd_calls;
            const int order = nr > 1 ? vma.pages.pmd_order : 0;
            wakeup_kswapd(sys, target, {cpu, order, TraceGfp::None});
        }
        return MIGRATE_EAGAIN;
    }
    // folio_isolate_lru(): a folio still in some CPU's LRU add batch is not on the LRU.
    if (f.flags & PF_LRU_PENDING) return MIGRATE_EAGAIN;
    return MIGRATE_OK;
}

int migrate_misplaced_folio(System& sys, Task& p, Vma& vma, uint64_t idx, uint64_t nr, int target,
                            double& kernel_ns, MigrateCostRecord* record) {
    ++sys.counters.mm_migrate_pages;
    trace_misplaced_start(sys, p);
    const bool thp = nr > 1;
    PageFrame& head = vma.frame(idx);
    const int from = head.nid;
    if (!alloc_pages_thisnode(sys, target, thp ? vma.pages.pmd_order : 0, p.cpu)) {
        sys.counters[Vm::pgmigrate_fail] += nr;
        if (thp) ++sys.counters[Vm::thp_migration_fail];
        trace_mm_migrate_pages(sys, p, 0, nr, 0, thp ? 1 : 0);
        kernel_ns += sys.cost.k().MIGRATE_FOLIO_OVERHEAD_NS * 0.1;  // isolation and putback only
        return MIGRATE_EAGAIN;
    }
    const unsigned mapcount = head.mapcount;
    if (!thp && (head.flags & PF_THP)) split_mappings(vma, idx);
    move_frames(vma, idx, nr, target);
    migrate_cpupid(sys, vma, idx, nr, from, target);
    // The new folio goes to the LRU through this CPU's add batch (migrate_folio_move). The old
    // one was isolated, so off every batch (a caller that skipped the isolation leaves its slot
    // to a freed folio).
    lru_add_forget(sys, head);
    lru_move_page(sys, head.flags, from, target, nr);
    if (thp)
        folio_add_lru_large(sys, p.cpu);
    else
        folio_add_lru(sys, p.cpu, &head);
    free_pages(sys, from, nr);
    account_move(vma, idx, nr, from, target);
    sys.counters[Vm::pgmigrate_success] += nr;
    sys.counters[Vm::numa_pages_migrated] += nr;
    count_promotion(sys, from, target, nr);
    if (thp) ++sys.counters[Vm::thp_migration_success];
    trace_mm_migrate_pages(sys, p, nr, 0, thp ? 1 : 0, 0);
    kernel_ns += migrate_folio_cost(sys, p, vma, idx, nr, from, target, mapcount, record);
    remove_migration_ptes(vma, idx, nr);
    return MIGRATE_OK;
}

uint64_t migrate_room(const System& sys, int target) {
    // The k-th page after passes while free_pages - (k - 1) >= wmark_high + 1.
    const NodeMemory& m = sys.mem.nodes[target];
    return m.free_pages > m.wmark_high ? m.free_pages - m.wmark_high : 0;
}

void repeat_migrate_misplaced_folio(System& sys, Task& p, Vma& vma, uint64_t idx, uint64_t nr,
                                    const MigrateCostRecord& record) {
    if (nr > migrate_room(sys, record.to))
        throw std::logic_error("repeat_migrate_misplaced_folio: the run passes the watermark");
    sys.counters.mm_migrate_pages += nr;
    for (uint64_t k = 0; k < nr; ++k)
        alloc_pages_thisnode(sys, record.to, 0, p.cpu);
    for (uint64_t i = idx; i < idx + nr; ++i)  // each new folio as migrate_misplaced_folio's
        lru_add_forget(sys, vma.frame(i));
    folio_add_lru(sys, p.cpu, &vma.frame(idx), nr);
    lru_move_page(sys, vma.frame(idx).flags, record.from, record.to, nr);  // the frames are alike
    free_pages(sys, record.from, nr);
    account_move(vma, idx, nr, record.from, record.to);
    sys.counters[Vm::pgmigrate_success] += nr;
    sys.counters[Vm::numa_pages_migrated] += nr;
    count_promotion(sys, record.from, record.to, nr);
    for (uint64_t k = 0; k < nr; ++k) {
        trace_misplaced_start(sys, p);
        trace_mm_migrate_pages(sys, p, 1, 0, 0, 0);
    }
    repeat_migrate_folio_cost(sys, record, nr);
    remove_migration_ptes(vma, idx, nr);
}

void migrate_demote_folio(System& sys, Vma& vma, uint64_t idx, uint64_t nr, int target) {
    move_folio_frames(sys, vma, idx, nr, target);
}

int migrate_kmigrated_folio(System& sys, Vma& vma, uint64_t idx, uint64_t nr, int target, int cpu) {
    const int from = vma.frame(idx).nid;
    if (!alloc_pages_thisnode(sys, target, nr > 1 ? vma.pages.pmd_order : 0, cpu)) {
        sys.counters[Vm::pgmigrate_fail] += nr;
        if (nr > 1) ++sys.counters[Vm::thp_migration_fail];
        return MIGRATE_EAGAIN;
    }
    move_folio_frames(sys, vma, idx, nr, target);
    sys.counters[Vm::numa_pages_migrated] += nr;
    count_promotion(sys, from, target, nr);
    return MIGRATE_OK;
}

int migrate_syscall_folio(System& sys, Vma& vma, uint64_t idx, uint64_t nr, int target, int cpu,
                          double& kernel_ns) {
    PageFrame& head = vma.frame(idx);
    const int from = head.nid;
    const bool thp = nr > 1;
    if (!alloc_pages_thisnode(sys, target, thp ? vma.pages.pmd_order : 0, cpu)) {
        sys.counters[Vm::pgmigrate_fail] += nr;
        if (thp) ++sys.counters[Vm::thp_migration_fail];
        kernel_ns += sys.cost.k().MIGRATE_FOLIO_OVERHEAD_NS * 0.1;  // isolation and putback only
        return MIGRATE_EAGAIN;
    }
    // The cost reads the PTEs as the unmap finds them: a PROT_NONE one needs no TLB flush.
    kernel_ns += migrate_folio_cost(sys, nullptr, cpu, vma, idx, nr, from, target, head.mapcount);
    move_folio_frames(sys, vma, idx, nr, target);
    return MIGRATE_OK;
}

}  // namespace numasim
