// NUMA hinting faults (mm/memory.c, mm/huge_memory.c, mm/mempolicy.c, kernel/sched/fair.c):
// do_numa_page / do_huge_pmd_numa_page with numa_migrate_check, mpol_misplaced and
// should_numa_migrate_memory, in their v6.12 shape.
#include "mm/fault.h"

#include <algorithm>

#include "cost/constants.h"
#include "mm/fault_locks.h"
#include "mm/lru_index.h"
#include "mm/migrate.h"
#include "mm/mm.h"
#include "mm/page_alloc.h"
#include "mm/pghot.h"
#include "numab/internal.h"
#include "numab/placement_policy.h"

namespace numasim {

using namespace numab;

namespace {

// Whether the restored PTE may be writable: pte_write() of the saved protection, or
// can_change_pte_writable() for an exclusive anonymous page of a writable private mapping.
bool pte_writable(const Vma& vma, const PageFrame& f) {
    if (!(vma.vm_flags & VM_WRITE)) return false;
    if (vma.vm_flags & VM_SHARED) return true;
    return f.mapcount <= 1;
}

// numa_migrate_check() (v6.12; numa_migrate_prep() plus inline flag code before).
int numa_migrate_check(System& sys, Task& p, Vma& vma, uint64_t idx, bool thp, bool writable,
                       int nid, int* flags, cpupid_t* last_cpupid) {
    const PageFrame& f = vma.frame(idx);
    if (!writable) *flags |= TNF_NO_GROUP;  // read-only faults never group tasks
    // Memory shared between processes through a shared mapping. Before v6.12 the huge-PMD path
    // never set it (knobs.thp_sets_tnf_shared).
    if (f.mapcount > 1 && (vma.vm_flags & VM_SHARED) && (!thp || sys.knobs.thp_sets_tnf_shared))
        *flags |= TNF_SHARED;
    // In tiering mode a slow-tier folio's cpupid field holds its scan time, not a (cpu, pid):
    // the fault goes on as a first one. Before v6.12 the huge PMD path read the field anyway.
    const bool access_time = sys.knobs.tiering_mode() && !sys.node_is_toptier(nid);
    *last_cpupid = access_time && (!thp || sys.promotion.huge_pmd_unsets_access_time)
                       ? CPUPID_UNSET
                       : f.last_cpupid();
    vma_set_access_pid_bit(sys, vma, p);
    ++sys.counters[Vm::numa_hint_faults];
    ++p.numa_hint_faults;
    if (nid == sys.cpu_to_node(p.cpu)) {
        ++sys.counters[Vm::numa_hint_faults_local];
        ++p.numa_hint_faults_local;
        *flags |= TNF_FAULT_LOCAL;
    }
    return mpol_misplaced(sys, p, vma, idx, nid, p.cpu);
}

void restore_ptes(Vma& vma, uint64_t first, uint64_t nr) {
    vma.protnone.clear_range(first, first + nr);
    account_region_protnone(vma, first, nr, -1);
}

// cpupid_to_nid(): the node of the CPU recorded in the tag (none for an out-of-range CPU).
int cpupid_nid(const System& sys, cpupid_t c) {
    const int cpu = cpupid_to_cpu(c);
    return cpu < sys.nr_cpus() ? sys.cpu_to_node(cpu) : NUMA_NO_NODE;
}

// nth (0-based) node set in `mask`.
int nth_node(uint64_t mask, uint64_t n) {
    for (int nid = 0; nid < 64; ++nid)
        if ((mask >> nid) & 1) {
            if (n == 0) return nid;
            --n;
        }
    return NUMA_NO_NODE;
}

// The placement policy's answer where the kernel would call should_numa_migrate_memory: the
// folio is tagged with this fault as the kernel tags it, and the policy is given the old tag.
int policy_numa_fault(System& sys, const PlacementPolicy& policy, Task& p, Vma& vma, uint64_t idx,
                      int folio_nid, int this_cpu, const MemPolicy& pol) {
    PageFrame& f = vma.frame(idx);
    NumaFaultInfo info{};
    info.address = vma.start + (idx << sys.pages().shift);
    info.page_nid = folio_nid;
    info.cpu = this_cpu;
    info.last_cpupid = f.last_cpupid();
    f.set_last_cpupid(cpu_pid_to_cpupid(this_cpu, p.pid));
    // MPOL_BIND with MPOL_F_NUMA_BALANCING keeps the page within its nodes; otherwise any node
    // with memory may take it.
    for (int nid = 0; nid < sys.nr_nodes() && nid < 64; ++nid)
        if (node_has_memory(sys, nid) && (pol.mode != MpolMode::Bind || pol.has_node(nid)))
            info.allowed_nodes |= uint64_t{1} << nid;
    info.shared = f.mapcount > 1 && (vma.vm_flags & VM_SHARED);
    info.writable = pte_writable(vma, f);
    return policy.numa_fault(sys, p, info);
}

}  // namespace

bool should_numa_migrate_memory(System& sys, Task& p, Vma& vma, uint64_t idx, int src_nid,
                                int dst_cpu) {
    const NumaGroup* ng = p.numa_group;
    const int dst_nid = sys.cpu_to_node(dst_cpu);
    if (!node_has_memory(sys, dst_nid)) return false;
    PageFrame& f = vma.frame(idx);
    // Tiering mode: a slow-tier folio is promoted if it is hot, whatever the task's placement.
    if (sys.knobs.tiering_mode() && !sys.node_is_toptier(src_nid)) {
        uint64_t block = 0;
        const uint64_t nr = vma.pmd_mapped_at(idx, block) ? vma.pages.pmd_nr() : 1;
        return numa_promote_hot_folio(sys, f, dst_nid, nr);
    }

    // Tag the folio with this fault and read the previous tag.
    const cpupid_t last_cpupid = f.last_cpupid();
    f.set_last_cpupid(cpu_pid_to_cpupid(dst_cpu, p.pid));
    // Outside tiering mode a slow-tier folio's tag may still be a scan time from when the mode
    // was on, or never set: a tag whose CPU is not a CPU is not acted on.
    if (!sys.knobs.tiering_mode() && !sys.node_is_toptier(src_nid) &&
        !cpupid_valid(last_cpupid, sys.nr_cpus()))
        return false;

    // Early in a task's life, first touches and private faults migrate at once (two passes of
    // the two-stage filter below take NUMA_EARLY_SCAN_SEQ scan sequences).
    // A policy that times placement (kNumaPlacement) says what early is.
    const PlacementPolicy* pol = sys.placement_policy;
    const bool early = pol && pol->has(PlacementPolicy::kNumaPlacement)
                           ? pol->numa_early_life(sys, p)
                           : p.numa_scan_seq <= NUMA_EARLY_SCAN_SEQ;
    if ((p.numa_preferred_nid == NUMA_NO_NODE || early) &&
        (cpupid_pid_unset(last_cpupid) || cpupid_match_pid(p.pid, last_cpupid)))
        return true;

    // Two-stage filter: two consecutive faults must come from the same node, which squares the
    // probability of acting on an unlikely task<->page relation.
    if (!cpupid_pid_unset(last_cpupid) && cpupid_nid(sys, last_cpupid) != dst_nid) return false;
    if (cpupid_match_pid(p.pid, last_cpupid)) return true;  // private fault
    if (!ng) return true;  // shared, but the group is not set up yet

    // The destination node does much more of the group's work: move.
    if (group_faults_cpu(sys, *ng, dst_nid) >
        group_faults_cpu(sys, *ng, src_nid) * ACTIVE_NODE_FRACTION)
        return true;
    // Spread memory like the CPU use, with 3/4 hysteresis.
    return group_faults_cpu(sys, *ng, dst_nid) * group_faults(sys, p, src_nid) * 3 >
           group_faults_cpu(sys, *ng, src_nid) * group_faults(sys, p, dst_nid) * 4;
}

int mpol_misplaced(System& sys, Task& p, Vma& vma, uint64_t idx, int folio_nid, int this_cpu) {
    const int thisnid = sys.cpu_to_node(this_cpu);
    MemPolicy pol = get_vma_policy(sys, p, vma, this_cpu);
    const uint16_t flags = effective_mpol_flags(pol);
    if (!(flags & MPOL_F_MOF)) return NUMA_NO_NODE;
    int polnid = NUMA_NO_NODE;
    switch (pol.mode) {
        case MpolMode::Interleave:
            // interleave_nid() with the VMA offset as the interleave index.
            polnid = pol.nodes ? nth_node(pol.nodes,
                                          (vma.pgoff + idx) % static_cast<uint64_t>(pol.weight()))
                               : thisnid;
            break;
        case MpolMode::Default:  // the per-node default: preferred on this CPU's node
            if (folio_nid == thisnid) return NUMA_NO_NODE;
            polnid = thisnid;
            break;
        case MpolMode::Preferred:
            if (pol.has_node(folio_nid)) return NUMA_NO_NODE;
            polnid = pol.first_node();
            break;
        case MpolMode::Local:
            polnid = thisnid;
            break;
        case MpolMode::Bind:
            // With MPOL_F_NUMA_BALANCING: optimise placement among the bound nodes.
            if (flags & MPOL_F_MORON) {
                if (pol.has_node(thisnid)) break;
                return NUMA_NO_NODE;
            }
            if (pol.has_node(folio_nid)) return NUMA_NO_NODE;
            for (int n : sys.mem.zonelist[thisnid])  // nearest allowed node
                if (pol.has_node(n)) {
                    polnid = n;
                    break;
                }
            break;
    }
    // Migrate toward the faulting CPU's node, through the cpupid filter, or where the placement
    // policy says if it decides hinting faults (one pointer test per fault, none per page).
    if (flags & MPOL_F_MORON) {
        const PlacementPolicy* policy = sys.placement_policy;
        if (policy && policy->has(PlacementPolicy::kNumaFault) && sys.node_is_toptier(folio_nid)) {
            const int nid = policy_numa_fault(sys, *policy, p, vma, idx, folio_nid, this_cpu, pol);
            return nid != folio_nid ? nid : NUMA_NO_NODE;
        }
        polnid = thisnid;
        if (!should_numa_migrate_memory(sys, p, vma, idx, folio_nid, this_cpu)) return NUMA_NO_NODE;
    }
    return folio_nid != polnid ? polnid : NUMA_NO_NODE;
}

double do_numa_page(System& sys, Task& p, Vma& vma, uint64_t idx, bool write,
                    NumaFaultOutcome* outcome) {
    (void)write;  // writability comes from the saved protection, not the access (see pte_writable)
    if (outcome) {
        outcome->repeatable = outcome->migrated = false;
        outcome->run_limit = UINT64_MAX;
    }
    if (!vma.protnone.size() || !vma.protnone.test(idx)) return 0;  // PTE changed meanwhile
    // The caller (the engine's fault path) counts pgfault and the task's faults, as
    // handle_mm_fault() does in the kernel before dispatching here.
    double ns = sys.cost.cycles_ns(sys.cost.k().HINT_FAULT_CYCLES);

    // do_huge_pmd_numa_page() for a PMD-mapped THP, do_numa_page() otherwise.
    uint64_t first = idx, nr = 1, bfirst;
    bool thp = false;
    if (vma.pmd_mapped_at(idx, bfirst)) {
        thp = true;
        first = bfirst;
        nr = vma.pages.pmd_nr();
    }
    const PageFrame& f = vma.frame(first);
    if (!(f.flags & PF_ALLOC)) {  // no folio behind the PTE: restore without accounting
        restore_ptes(vma, first, nr);
        return ns;
    }
    const int nid = f.nid;
    const bool in_thp = f.flags & PF_THP;  // before a migration splits its mappings
    int flags = 0;
    cpupid_t last_cpupid = CPUPID_UNSET;
    const int target = numa_migrate_check(sys, p, vma, first, thp, pte_writable(vma, f), nid,
                                          &flags, &last_cpupid);
    // Whether a run of like pages may repeat this fault (fault runs): no allocation failed
    // whose cost depends on the folio (a migration sets its own bound below).
    bool repeatable = !thp;
    if (target != NUMA_NO_NODE && pghot_active(sys) && !sys.node_is_toptier(nid)) {
        // pghot: the fault reports the access and leaves the folio where it is; kmigrated
        // promotes it later (mm/pghot.h). The fault is accounted to the node it was bound for,
        // as the series' do_numa_page passes the target on to task_numa_fault.
        restore_ptes(vma, first, nr);
        pghot_record_access(sys, vma, first, target, PghotSrc::HintFaults);
        task_numa_fault(sys, p, last_cpupid, target, static_cast<int>(nr), flags);
        return ns;
    }
    if (target != NUMA_NO_NODE) {
        if (migrate_misplaced_folio_prepare(sys, vma, first, nr, target, p.cpu) != MIGRATE_OK) {
            flags |= TNF_MIGRATE_FAIL;
        } else if (migrate_misplaced_folio(sys, p, vma, first, nr, target, ns,
                                           outcome && !thp ? &outcome->migration : nullptr) ==
                   MIGRATE_OK) {
            // The new folio is mapped with the VMA's normal protection.
            restore_ptes(vma, first, nr);
            task_numa_fault(sys, p, last_cpupid, target, static_cast<int>(nr),
                            flags | TNF_MIGRATED);
            // Like pages migrate alike while the target stays above its watermark, nothing in
            // the rmap walk differs (the record's `alike`), and no THP needs splitting.
            if (outcome && !thp && !in_thp) {
                outcome->repeatable = outcome->migrated = true;
                outcome->run_limit = std::min(outcome->migration.alike, migrate_room(sys, target));
                outcome->nid = target;
                outcome->flags = flags | TNF_MIGRATED;
                outcome->last_cpupid = last_cpupid;
            }
            return ns;
        } else {
            // The folio was put back untouched, so the PTE is still the one we faulted on.
            flags |= TNF_MIGRATE_FAIL;
            repeatable = false;
        }
    }
    restore_ptes(vma, first, nr);
    task_numa_fault(sys, p, last_cpupid, nid, static_cast<int>(nr), flags);
    if (outcome && repeatable) {
        outcome->repeatable = true;
        outcome->nid = nid;
        outcome->flags = flags;
        outcome->last_cpupid = last_cpupid;
    }
    return ns;
}

double do_numa_access(System& sys, Task& p, Vma& vma, uint64_t idx) {
    // The posting repeats task_numa_work's VMA tests: a migratable VMA whose policy lets NUMA
    // balancing move pages, not a read-only file mapping, not PROT_NONE.
    if (!vma_suitable(p, vma) || !vma_is_accessible(vma)) return 0;
    if (!vma.mm || (vma.is_file() && (vma.vm_flags & (VM_READ | VM_WRITE)) == VM_READ)) return 0;
    if (!vma.present.test(idx)) return 0;  // no page behind the address
    const PageFrame& f = vma.frame(idx);
    if (!(f.flags & PF_ALLOC)) return 0;
    // Not on an LRU list yet (a CPU's add batch holds it): the posting leaves the sample alone.
    if (f.flags & PF_LRU_PENDING) return 0;
    // A compound page: the posting's TODO ("handle PTE-mapped THP"); THPs are left alone.
    if (f.flags & PF_THP) return 0;
    const int nid = f.nid;
    int flags = 0;
    cpupid_t last_cpupid = CPUPID_UNSET;
    // The sample gives the physical address: no PTE is read, so its writability is unknown and
    // a read-only page may group tasks too (no TNF_NO_GROUP), as the posting says.
    const int target = numa_migrate_check(sys, p, vma, idx, false, true, nid, &flags, &last_cpupid);
    double ns = 0;
    if (target != NUMA_NO_NODE) {
        if (migrate_misplaced_folio_prepare(sys, vma, idx, 1, target, p.cpu) == MIGRATE_OK &&
            migrate_misplaced_folio(sys, p, vma, idx, 1, target, ns) == MIGRATE_OK) {
            task_numa_fault(sys, p, last_cpupid, target, 1, flags | TNF_MIGRATED);
            return ns;
        }
        flags |= TNF_MIGRATE_FAIL;
    }
    task_numa_fault(sys, p, last_cpupid, nid, 1, flags);
    return ns;
}

bool numa_fault_run_allowed(const System& sys, const Task& p, const Vma& vma, uint64_t idx,
                            bool write) {
    uint64_t block = 0;
    if (vma.pmd_mapped_at(idx, block)) return false;  // the huge path: one fault for the THP
    const PageFrame& f = vma.frame(idx);
    if (!(f.flags & PF_ALLOC)) return false;
    // A slow-tier folio's fault reads more than its frame: the target node's promotion state in
    // tiering mode, and whether its tag is a valid cpupid otherwise.
    if (!sys.node_is_toptier(f.nid)) return false;
    // What the decision reads besides the frame: the policy (an interleaved one picks its node
    // by the page's offset), the task's placement and group state (task_numa_fault must change
    // neither), and for a write the copy-on-write state (do_wp_page must do nothing).
    if (get_vma_policy(sys, p, vma, p.cpu).mode == MpolMode::Interleave) return false;
    if (!task_numa_fault_only_counts(sys, p, f.last_cpupid(), pte_writable(vma, f))) return false;
    return !(write && do_wp_page_needed(vma, idx));
}

namespace {

// The end of numa_fault_run's search: one page table at most, because the fault-lock
// bookkeeping takes one PTE lock per table.
uint64_t fault_run_end(const Vma& vma, uint64_t idx, uint64_t hi) {
    const int table = vma.pages.pmd_order;
    return std::min(hi, ((idx >> table) + 1) << table);
}

// Whether page i is a PROT_NONE page whose state is `before`, as a page that shares the object
// page or not (`shares`).
bool like_protnone_page(const Vma& vma, uint64_t i, const PageFrame& before, bool shares) {
    if (!vma.present.test(i) || !vma.protnone.test(i) || vma.shares_object_page(i) != shares)
        return false;
    const PageFrame& g = vma.frame(i);
    return g.inv_cpupid == before.inv_cpupid && g.nid == before.nid && g.flags == before.flags &&
           g.mapcount == before.mapcount;
}

}  // namespace

bool numa_fault_run_possible(const Vma& vma, uint64_t idx, uint64_t hi) {
    return idx + 1 < fault_run_end(vma, idx, hi) &&
           like_protnone_page(vma, idx + 1, vma.frame(idx), vma.shares_object_page(idx));
}

uint64_t numa_fault_run(const Vma& vma, uint64_t idx, uint64_t hi, const PageFrame& before) {
    const uint64_t end = fault_run_end(vma, idx, hi);
    const bool shares = vma.shares_object_page(idx);
    uint64_t i = idx + 1;
    while (i < end && like_protnone_page(vma, i, before, shares))
        ++i;
    // A PMD-mapped THP after idx's block takes the huge path: the run stops before it.
    uint64_t block = 0;
    if (i > idx + 1 && vma.pmd_mapped_at(i - 1, block)) i = std::max(block, idx + 1);
    return i - idx - 1;
}

void repeat_numa_fault(System& sys, Task& p, Vma& vma, uint64_t idx, uint64_t nr,
                       const NumaFaultOutcome& outcome) {
    // numa_migrate_check(): the counters (the VMA's accessor bit for p is set already).
    sys.counters[Vm::numa_hint_faults] += nr;
    p.numa_hint_faults += nr;
    if (outcome.flags & TNF_FAULT_LOCAL) {
        sys.counters[Vm::numa_hint_faults_local] += nr;
        p.numa_hint_faults_local += nr;
    }
    // The frames were equal to idx's; its fault changed at most its tag, which
    // should_numa_migrate_memory would write alike into each of them, and, if it migrated, its
    // place in the LRU add batch, which the run's own migrations take in turn.
    PageFrame tagged = vma.frame(idx);
    if (outcome.migrated) tagged.flags &= static_cast<uint8_t>(~PF_LRU_PENDING);
    for (uint64_t i = idx + 1; i <= idx + nr; ++i) {
        PageFrame& f = vma.frame(i);
        const int was = lru_list_of(f);
        f = tagged;
        lru_index_note(vma, i, was, lru_list_of(f));
    }
    if (outcome.migrated)
        repeat_migrate_misplaced_folio(sys, p, vma, idx + 1, nr, outcome.migration);
    restore_ptes(vma, idx + 1, nr);
    task_numa_fault(sys, p, outcome.last_cpupid, outcome.nid, static_cast<int>(nr), outcome.flags);
}

}  // namespace numasim
