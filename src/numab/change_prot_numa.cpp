// change_prot_numa() (mm/mempolicy.c) -> change_protection(MM_CP_PROT_NUMA) (mm/mprotect.c):
// make the present PTEs of a range PROT_NONE so the next access takes a NUMA hinting fault.
//
// The walk works a bitmap word (64 PTEs) at a time: candidates are present & ~protnone. Only
// when a rule needs the folio does it look at frames, page by page:
//   - rule 3, COW-shared folio: the VMA is a private COW mapping whose object has other
//     mappers, and the page still lives in that shared object;
//   - rule 4, dirty file-LRU folio: the page lives in a file object;
//   - rule 5, target_node: a single-threaded process, private VMA: pages already on the node
//     the task runs on are left alone.
// Rule 2 (zero page, KSM, ZONE_DEVICE) has nothing to match in the simulator. Rules 6-7 are
// tiering mode's, on a machine with a slower tier: without NUMA_BALANCING_NORMAL (mode 2) a
// folio on a top-tier node is left alone (rule 6), and in tiering mode a slow-tier folio that is
// made PROT_NONE gets the scan time in ms in its cpupid field (rule 7, folio_xchg_access_time).
// On a machine whose memory is all top tier, mode 2 skips every folio, and no walk is needed.
// PMD-mapped THPs are one update of HPAGE_PMD_NR pages (PageGeometry::pmd_nr; +1
// numa_huge_pte_updates), without rules 3 and 5. A THP only partly inside the range is split first
// (its pmd_mapped bit cleared) and then handled as PTEs.
#include <algorithm>
#include <bit>

#include "cost/constants.h"
#include "mm/fault.h"
#include "mm/mm.h"
#include "mm/pghot.h"
#include "mm/tlb.h"
#include "numab/internal.h"

namespace numasim {

using namespace numab;

namespace {

struct Walk {
    System& sys;
    Vma& vma;
    int target_node;  // NUMA_NO_NODE unless rule 5 applies
    bool check_cow;   // rule 3 may apply
    bool check_file;  // rule 4 may apply
    bool tiering;     // rules 6-7 may apply: tiering mode on a machine with a slower tier
    unsigned now_ms;  // the scan time rule 7 stores
    bool pghot;       // the pghot knob decides promotion: rule 7's time is not kept
    unsigned long updated = 0;
    unsigned long huge_updates = 0;
    uint64_t walked = 0;                  // present PTEs looked at (for the cost)
    uint64_t run_first = 0, run_end = 0;  // pending range for account_region_protnone

    void flush_run() {
        if (run_end > run_first) account_region_protnone(vma, run_first, run_end - run_first, +1);
        run_first = run_end = 0;
    }
    void add_run(uint64_t first, uint64_t end) {
        if (run_end == first && run_end > run_first) {
            run_end = end;
            return;
        }
        flush_run();
        run_first = first;
        run_end = end;
    }

    bool cow_shared(const PageFrame& f) const {
        // v4.16: page_mapcount() != 1; v6.0-6.9: page_count() != 1; v6.10+:
        // folio_likely_mapped_shared(). Without GUP or swap cache the refcount equals the
        // mapcount here, and for a small folio "likely mapped shared" is mapcount > 1, so the
        // three tests agree in the simulator.
        switch (sys.knobs.cow_shared_test) {
            case CowSharedTest::Mapcount:
                return f.mapcount != 1;
            case CowSharedTest::Refcount:
                return f.mapcount != 1;
            case CowSharedTest::LikelyMappedShared:
                return f.mapcount > 1;
        }
        return false;
    }

    bool skip_page(uint64_t idx) const {
        const bool in_object = vma.shares_object_page(idx);
        const PageFrame& f = vma.frame(idx);
        if (check_cow && in_object && cow_shared(f)) return true;  // rule 3
        if (check_file && in_object && vma.object->is_file && (f.flags & PF_DIRTY))
            return true;                                                       // 4
        if (target_node != NUMA_NO_NODE && f.nid == target_node) return true;  // rule 5
        if (tiering && !sys.knobs.normal_mode() && sys.node_is_toptier(f.nid)) return true;  // 6
        return false;
    }

    // Rule 7 for the folio at page idx, which is being made PROT_NONE. With pghot nothing reads
    // the scan time and the field holds the page's hotness record instead (mm/pghot.h).
    void stamp_access_time(uint64_t idx) {
        PageFrame& f = vma.frame(idx);
        if (tiering && !pghot && !sys.node_is_toptier(f.nid)) folio_xchg_access_time(f, now_ms);
    }

    // PTE-level walk of [s, e).
    void ptes(uint64_t s, uint64_t e) {
        if (s >= e) return;
        const bool per_page = check_cow || check_file || tiering || target_node != NUMA_NO_NODE;
        uint64_t* pn = vma.protnone.data();
        for (uint64_t w = s >> 6; w <= (e - 1) >> 6; ++w) {
            const unsigned lo = w == (s >> 6) ? static_cast<unsigned>(s & 63) : 0;
            const unsigned hi =
                w == ((e - 1) >> 6) ? static_cast<unsigned>(((e - 1) & 63) + 1) : 64;
            const uint64_t mask = word_mask(lo, hi);
            const uint64_t present = vma.present.word(w) & mask;
            if (!present) continue;
            walked += static_cast<uint64_t>(std::popcount(present));
            uint64_t cand = present & ~pn[w];  // rule 1: already protnone
            if (per_page)
                for (uint64_t m = cand; m; m &= m - 1) {
                    const uint64_t bit = static_cast<uint64_t>(std::countr_zero(m));
                    if (skip_page((w << 6) + bit)) cand &= ~(uint64_t{1} << bit);
                }
            if (!cand) continue;
            if (tiering)
                for (uint64_t m = cand; m; m &= m - 1)
                    stamp_access_time((w << 6) + static_cast<uint64_t>(std::countr_zero(m)));
            pn[w] |= cand;
            updated += static_cast<unsigned long>(std::popcount(cand));
            // Record the runs of set bits for the region counters.
            for (uint64_t m = cand; m;) {
                const unsigned b = static_cast<unsigned>(std::countr_zero(m));
                const unsigned len = static_cast<unsigned>(std::countr_one(m >> b));
                add_run((w << 6) + b, (w << 6) + b + len);
                m = len + b >= 64 ? 0 : m & ~word_mask(b, b + len);
            }
        }
    }

    // change_huge_pmd(prot_numa) of the block starting at page `first`.
    void pmd(uint64_t first) {
        walked += 1;
        if (!vma.present.test(first) || vma.protnone.test(first)) return;  // already protnone
        if (tiering) {  // rules 6-7 apply to the THP's folio as a whole
            if (!sys.knobs.normal_mode() && sys.node_is_toptier(vma.frame(first).nid)) return;
            stamp_access_time(first);
        }
        const uint64_t nr = vma.pages.pmd_nr();
        vma.protnone.set_range(first, first + nr);
        add_run(first, first + nr);
        updated += nr;
        ++huge_updates;
    }
};

}  // namespace

unsigned long change_prot_numa(System& sys, Task& current, Vma& vma, uint64_t start, uint64_t end,
                               double& kernel_ns) {
    if (end <= start || !vma.present.size()) return 0;
    const bool tiering = sys.knobs.tiering_mode() && sys.has_slow_tier;
    if (!sys.knobs.normal_mode() && !tiering) return 0;  // rule 6: every node is top-tier
    const uint64_t first = vma.page_index(start), last = vma.page_index(end);

    Walk walk{sys,   vma,     NUMA_NO_NODE,          false,
              false, tiering, jiffies_to_msecs(sys), pghot_active(sys)};
    // Rule 5: only for a private VMA of a single-threaded process (mm_users == 1).
    if (!(vma.vm_flags & VM_SHARED) && vma.mm && vma.mm->mm_users == 1)
        walk.target_node = sys.cpu_to_node(current.cpu);
    walk.check_cow = sys.knobs.skip_shared_cow && vma.is_private_cow() && vma.object &&
                     vma.object->mappers.size() > 1;
    walk.check_file = vma.object && vma.object->is_file;

    uint64_t pos = first;
    if (vma.pmd_mapped.size()) {
        const uint64_t b_end =
            std::min<uint64_t>(vma.pmd_index(last - 1) + 1, vma.pmd_mapped.size());
        for (uint64_t b = vma.pmd_mapped.find_next(vma.pmd_index(first), b_end); b < b_end;
             b = vma.pmd_mapped.find_next(b + 1, b_end)) {
            const uint64_t bfirst =
                vma.page_index(((vma.start >> vma.pages.pmd_shift()) + b) << vma.pages.pmd_shift());
            const uint64_t blast = bfirst + vma.pages.pmd_nr();
            if (bfirst < first || blast > last) {
                vma.pmd_mapped.clear(b);  // __split_huge_pmd: the PTE walk handles it
                continue;
            }
            walk.ptes(pos, bfirst);
            walk.pmd(bfirst);
            pos = blast;
        }
    }
    walk.ptes(pos, last);
    walk.flush_run();

    // Cost: one PTE_UPDATE per entry changed (a PMD is one entry), PTE_WALK per present entry
    // looked at and left alone.
    const uint64_t entries_changed = walk.updated - walk.huge_updates * (vma.pages.pmd_nr() - 1);
    const uint64_t entries_left = walk.walked - entries_changed;
    kernel_ns +=
        sys.cost.cycles_ns(sys.cost.k().PTE_UPDATE_CYCLES * static_cast<double>(entries_changed) +
                           sys.cost.k().PTE_WALK_CYCLES * static_cast<double>(entries_left));
    // tlb_finish_mmu(): one flush of the changed range on every CPU the mm may be cached on.
    if (walk.updated && vma.mm) kernel_ns += flush_tlb_mm_range(sys, *vma.mm, current.cpu);
    if (walk.updated) sys.counters[Vm::numa_pte_updates] += walk.updated;
    if (walk.huge_updates) sys.counters[Vm::numa_huge_pte_updates] += walk.huge_updates;
    return walk.updated;
}

}  // namespace numasim
