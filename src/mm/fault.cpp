#include "mm/fault.h"

#include <algorithm>

#include "cost/constants.h"
#include "kernel/system.h"
#include "mm/huge_memory.h"
#include "mm/lru_add.h"
#include "mm/lru_index.h"
#include "mm/page_alloc.h"

namespace numasim {

namespace {

// THP is used for anonymous memory whose VMA allows it under the THP mode (mm/huge_memory.h) and
// whose PMD-sized block lies wholly inside the VMA and is still empty
// (do_huge_pmd_anonymous_page).
bool thp_fault_block(const System& sys, const Vma& vma, uint64_t idx, uint64_t& first) {
    if (!thp_vma_allowable(sys.knobs.transparent_hugepage_enabled, vma.vm_flags)) return false;
    uint64_t last;
    if (!vma.thp_block(idx, first, last)) return false;
    if (vma.present.any(first, last)) return false;
    // A shared mapping whose pages another mapping already brought in maps those pages.
    if (vma.vm_flags & VM_SHARED)
        for (uint64_t i = first; i < last; ++i)
            if (vma.object->frames[vma.pgoff + i].flags & PF_ALLOC) return false;
    return true;
}

PageFrame& new_frame_slot(Vma& vma, uint64_t idx, bool& in_own) {
    // New anonymous pages of a private mapping that was forked belong to this mm alone; file
    // pages always enter the shared page cache first.
    in_own = !vma.is_file() && !(vma.vm_flags & VM_SHARED) && vma.own_mask.size() > 0;
    if (in_own) {
        vma.own_mask.set(idx);
        return vma.own_object().frames[idx];
    }
    return vma.object->frames[vma.pgoff + idx];
}

// The object that holds this mapping's private copies, and its mask, made on the first copy
// (the mask may exist already: a fork sizes it).
MemObject& ensure_own(Vma& vma) {
    MemObject& own = vma.own_object();
    if (vma.own_mask.size()) return own;
    vma.own_mask = Bitmap(vma.nr_pages());
    QuietStamp::bump();  // its writes may now find pages still shared
    return own;
}

// Pages [first, first + nr) of `vma`, absent until now, get new frames on `nid` with `flags`,
// each mapped once: in the mapping's own copies if `private_copy` (a private write to a file
// page), else where new_frame_slot() puts them. Then the present bits, rss and region totals.
void map_new_frames(Vma& vma, uint64_t first, uint64_t nr, int nid, uint8_t flags,
                    bool private_copy) {
    for (uint64_t i = first; i < first + nr; ++i) {
        bool own;
        PageFrame& f = private_copy ? (vma.own_mask.set(i), vma.own_object().frames[i])
                                    : new_frame_slot(vma, i, own);
        const int was = lru_list_of(f);
        f = PageFrame{};
        f.nid = static_cast<uint8_t>(nid);
        f.flags = flags;
        f.mapcount = 1;
        lru_index_note(vma, i, was, lru_list_of(f));
    }
    vma.present.set_range(first, first + nr);
    vma.mm->rss_pages += nr;
    account_region_pages(vma, first, nr, nid, +1);
}

double clear_ns(const System& sys, int cpu, int nid, double bytes) {
    return sys.cost.clear_ns(sys.cpu_to_node(cpu), nid, bytes);
}

}  // namespace

void split_huge_pmd(Vma& vma, uint64_t idx) {
    uint64_t first;
    if (!vma.pmd_mapped_at(idx, first)) return;
    vma.pmd_mapped.clear(vma.pmd_index(first));
    // Each new PTE is made from the VMA's protection (__split_huge_pmd_locked): a NUMA hint on
    // the PMD is not carried over to the PTEs.
    clear_protnone(vma, first, first + vma.pages.pmd_nr());
}

void clear_protnone(Vma& vma, uint64_t first, uint64_t end) {
    end = std::min(end, vma.protnone.size());
    if (first >= end) return;
    for (uint64_t i = vma.protnone.find_next(first, end); i < end;) {
        const uint64_t stop = vma.protnone.find_next_zero(i, end);
        vma.protnone.clear_range(i, stop);
        account_region_protnone(vma, i, stop - i, -1);
        i = stop < end ? vma.protnone.find_next(stop, end) : end;
    }
}

void account_region_pages(Vma& vma, uint64_t first, uint64_t nr, int nid, int delta) {
    if (delta < 0) QuietStamp::bump();
    vma.count_present(first, nr, delta);
    if (vma.node_pages.size() <= static_cast<size_t>(nid))
        vma.node_pages.resize(static_cast<size_t>(nid) + 1);
    vma.node_pages[static_cast<size_t>(nid)] += delta * static_cast<int64_t>(nr);
    vma.for_each_region_in(first, nr, [&](Region& r, uint64_t n) {
        r.node_pages[nid] += delta * static_cast<int64_t>(n);
        r.present += delta * static_cast<int64_t>(n);
        r.stamp.bump();
    });
}

void account_region_move(Vma& vma, uint64_t first, uint64_t nr, int from, int to) {
    // Sized on demand like account_region_pages: a mapping built by hand (unit tests) may not
    // have counted its pages' node yet.
    const size_t need = static_cast<size_t>(std::max(from, to)) + 1;
    if (vma.node_pages.size() < need) vma.node_pages.resize(need);
    vma.node_pages[static_cast<size_t>(from)] -= nr;
    vma.node_pages[static_cast<size_t>(to)] += nr;
    vma.for_each_region_in(first, nr, [&](Region& r, uint64_t n) {
        r.node_pages[from] -= n;
        r.node_pages[to] += n;
        r.stamp.bump();
    });
}

void account_region_protnone(Vma& vma, uint64_t first, uint64_t nr, int delta) {
    if (delta > 0) QuietStamp::bump();
    vma.count_protnone(first, nr, delta);
    vma.for_each_region_in(
        first, nr, [&](Region& r, uint64_t n) { r.protnone += delta * static_cast<int64_t>(n); });
}

double handle_mm_fault(System& sys, Task& p, Vma& vma, uint64_t idx, bool write) {
    const int cpu = p.cpu;
    ++sys.counters[Vm::pgfault];
    ++p.nr_faults;
    double ns = sys.cost.cycles_ns(sys.cost.k().ANON_FAULT_CYCLES);
    if (vma.pte_nid < 0) vma.pte_nid = sys.cpu_to_node(cpu);  // pte_alloc_one(), local

    uint64_t first;
    if (thp_fault_block(sys, vma, idx, first)) {
        const int nid = alloc_pages_vma(sys, p, vma, first, vma.pages.pmd_order, cpu);
        if (nid >= 0) {
            map_new_frames(vma, first, vma.pages.pmd_nr(), nid, PF_ALLOC | PF_THP, false);
            vma.pmd_mapped.set(vma.pmd_index(first));
            folio_add_lru_large(sys, cpu);
            ++sys.counters[Vm::thp_fault_alloc];
            return ns + clear_ns(sys, cpu, nid, vma.pages.pmd_size());
        }
        // VM_FAULT_FALLBACK: the fault is handled again with a base page.
        ++sys.counters.thp_fault_fallback;
    }

    // A page of a shared object that another mapping already brought in is simply mapped.
    PageFrame& shared = vma.object->frames[vma.pgoff + idx];
    const bool private_write = write && !(vma.vm_flags & VM_SHARED);
    if ((shared.flags & PF_ALLOC) && (vma.is_file() || (vma.vm_flags & VM_SHARED)) &&
        !(private_write && vma.is_file())) {
        ++shared.mapcount;
        vma.present.set(idx);
        ++vma.mm->rss_pages;
        account_region_pages(vma, idx, 1, shared.nid, +1);
        return ns;
    }
    if (vma.is_file() && private_write && !(shared.flags & PF_ALLOC)) {
        // Read the file page into the page cache first; the write then copies it (COW).
        const int pc = alloc_pages_vma(sys, p, vma, idx, 0, cpu);
        if (pc < 0) return ns;
        const int was = lru_list_of(shared);
        shared.nid = static_cast<uint8_t>(pc);
        shared.flags = PF_ALLOC;
        vma.object->lru.note(vma.pgoff + idx, was, lru_list_of(shared));
        folio_add_lru(sys, cpu, &shared);
    }
    if (vma.is_file() && private_write) ensure_own(vma);
    const int nid = alloc_pages_vma(sys, p, vma, idx, 0, cpu);
    if (nid < 0) return ns;  // out of memory: the access is retried on a later tick
    map_new_frames(vma, idx, 1, nid, PF_ALLOC, vma.is_file() && private_write);
    folio_add_lru(sys, cpu, &vma.frame(idx));
    return ns + clear_ns(sys, cpu, nid, vma.pages.size());
}

uint64_t anon_fault_run(const System& sys, const Task& p, const Vma& vma, uint64_t idx,
                        uint64_t hi) {
    // The base-page path of an anonymous private mapping reads only the policy and the free
    // pages: not the object (whose frames only shared and file mappings look up), not the page.
    if (vma.is_file() || (vma.vm_flags & VM_SHARED) ||
        thp_vma_allowable(sys.knobs.transparent_hugepage_enabled, vma.vm_flags))
        return 0;
    // Whether idx's folio still waits in the LRU add batch does not matter to its neighbours.
    if (!vma.present.test(idx) || (vma.frame(idx).flags & ~PF_LRU_PENDING) != PF_ALLOC) return 0;
    if (get_vma_policy(sys, p, vma, p.cpu).mode == MpolMode::Interleave) return 0;
    // idx's node still above its low watermark for each page of the run: the zonelist walk's
    // first pass picks it again, since the nodes before it had no room for idx and free pages
    // only fall meanwhile.
    const NodeMemory& m = sys.mem.nodes[vma.frame(idx).nid];
    if (m.free_pages <= m.wmark_low) return 0;
    // One page table, as for hinting-fault runs: the fault-lock records take one PTE lock.
    const int table = vma.pages.pmd_order;
    const uint64_t end = std::min(hi, ((idx >> table) + 1) << table);
    const uint64_t absent = vma.present.find_next(idx + 1, end) - (idx + 1);
    return std::min(absent, m.free_pages - m.wmark_low);
}

double repeat_anon_fault(System& sys, Task& p, Vma& vma, uint64_t idx, uint64_t nr) {
    const int nid = vma.frame(idx).nid;
    alloc_pages_vma_repeat(sys, p, vma, nid, nr, p.cpu);
    map_new_frames(vma, idx + 1, nr, nid, PF_ALLOC, false);
    folio_add_lru(sys, p.cpu, &vma.frame(idx + 1), nr);
    sys.counters[Vm::pgfault] += nr;
    p.nr_faults += nr;
    return sys.cost.cycles_ns(sys.cost.k().ANON_FAULT_CYCLES) +
           sys.cost.clear_ns(sys.cpu_to_node(p.cpu), nid, vma.pages.size(), nr);
}

bool do_wp_page_needed(const Vma& vma, uint64_t idx) {
    // Only a private mapping of an object that others map (after fork, or a file) can hold a
    // page it must copy before writing.
    return vma.shares_object_page(idx) && !(vma.vm_flags & VM_SHARED) &&
           (vma.object->is_file || vma.object->mappers.size() > 1);
}

double do_wp_page(System& sys, Task& p, Vma& vma, uint64_t idx) {
    if (!do_wp_page_needed(vma, idx)) return 0;
    split_huge_pmd(vma, idx);
    PageFrame& old = vma.frame(idx);
    if (old.mapcount <= 1 && !vma.object->is_file) {
        // The other side already copied: this mapping owns the page now (reuse, no copy). The
        // frame moves to `own` so that later writes no longer look at it.
        MemObject& own = ensure_own(vma);
        PageFrame& mine = own.frames[idx];
        own.lru.note(idx, lru_list_of(mine), lru_list_of(old));
        vma.object->lru.note(vma.pgoff + idx, lru_list_of(old), kNoLru);
        mine = old;
        lru_add_forget(sys, old, &mine);  // a batch that holds the folio holds it there now
        old = PageFrame{};
        vma.own_mask.set(idx);
        return 0;
    }
    ++sys.counters[Vm::pgfault];
    ++p.nr_faults;
    const int nid = alloc_pages_vma(sys, p, vma, idx, 0, p.cpu);
    if (nid < 0) return 0;
    MemObject& own = ensure_own(vma);
    const int old_nid = old.nid;
    if (old.mapcount > 0) --old.mapcount;
    vma.own_mask.set(idx);
    PageFrame& f = own.frames[idx];
    const int was = lru_list_of(f);
    f = PageFrame{};
    f.nid = static_cast<uint8_t>(nid);
    f.flags = PF_ALLOC;
    f.mapcount = 1;
    own.lru.note(idx, was, lru_list_of(f));
    folio_add_lru(sys, p.cpu, &f);
    account_region_pages(vma, idx, 1, old_nid, -1);
    account_region_pages(vma, idx, 1, nid, +1);
    return sys.cost.cycles_ns(sys.cost.k().ANON_FAULT_CYCLES) +
           sys.cost.copy_ns(vma.pages.size(), old_nid, nid);
}

}  // namespace numasim
