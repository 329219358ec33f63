#include "mm/page_alloc.h"

#include <stdexcept>
#include <string>

#include "kernel/system.h"
#include "mm/huge_memory.h"
#include "mm/vma.h"
#include "mm/vmscan.h"

namespace numasim {

namespace {

// Interleave node for page `idx`: the kernel's offset_il_node() walks the policy's nodes by the
// page offset, so consecutive pages rotate over the node set.
int interleave_nid(const MemPolicy& pol, const Vma& vma, uint64_t idx) {
    const int w = pol.weight();
    if (w == 0) return -1;
    uint64_t target = (vma.pgoff + idx) % static_cast<uint64_t>(w);
    for (int nid = 0; nid < 64; ++nid)
        if (pol.has_node(nid) && target-- == 0) return nid;
    return -1;
}

// zone_statistics(): hit/miss/foreign by preferred node, local/other by the CPU's node, for `n`
// allocations alike.
void zone_statistics(System& sys, int preferred, int nid, int cpu_nid, uint64_t n = 1) {
    if (nid == preferred)
        sys.counters[Vm::numa_hit] += n;
    else {
        sys.counters[Vm::numa_miss] += n;
        sys.counters[Vm::numa_foreign] += n;
    }
    sys.counters[nid == cpu_nid ? Vm::numa_local : Vm::numa_other] += n;
}

bool node_has_room(const NodeMemory& m, uint64_t nr, uint64_t wmark) {
    return m.free_pages >= nr && m.free_pages - nr >= wmark;
}

// One pass along the preferred node's zonelist at the low (`at_min` false) or min watermark.
// Returns the node, or -1.
int alloc_zonelist_pass(System& sys, int preferred, uint64_t allowed, uint64_t nr, int cpu_nid,
                        bool at_min) {
    for (int nid : sys.mem.zonelist[preferred]) {
        if (!((allowed >> nid) & 1)) continue;
        NodeMemory& m = sys.mem.nodes[nid];
        if (!node_has_room(m, nr, at_min ? m.wmark_min : m.wmark_low)) continue;
        m.free_pages -= nr;
        zone_statistics(sys, preferred, nid, cpu_nid);
        sys.counters[Vm::pgalloc] += nr;
        return nid;
    }
    return -1;
}

// What the slow path of the allocator may do for an allocation, from its gfp mask.
struct AllocMask {
    bool kswapd_reclaim = true;  // __GFP_KSWAPD_RECLAIM: wake_all_kswapds
    // __GFP_DIRECT_RECLAIM, and no __GFP_NORETRY on a huge page: a costly __GFP_NORETRY
    // allocation stops when compaction is skipped, and compaction is always skipped here (the
    // model has no fragmentation, so an allocation that failed at min left no zone with the
    // order-0 pages compaction_suitable() asks for).
    bool direct_reclaim = true;
    bool oom = true;  // a failure is the out_of_memory() case (not for a THP)
};
// A user or kernel base page (GFP_HIGHUSER_MOVABLE, GFP_KERNEL).
constexpr AllocMask kBasePageMask{};

// The fast path at the low watermark, then the slow path at min: after waking the kswapds
// (wake_all_kswapds, with demotion_enabled) and, failing that, after direct reclaim
// (__alloc_pages_direct_reclaim) by the allocating CPU's task, as `mask` allows. Returns the
// node, or -1 (counted as out of memory if `mask` says so).
int alloc_along_zonelist(System& sys, int preferred, uint64_t allowed, int order,
                         const ReclaimRequest& req, AllocMask mask = kBasePageMask) {
    const uint64_t nr = uint64_t{1} << order;
    const int cpu_nid = sys.cpu_to_node(req.cpu);
    int nid = alloc_zonelist_pass(sys, preferred, allowed, nr, cpu_nid, false);
    if (nid >= 0) return nid;
    if (sys.knobs.demotion_enabled && mask.kswapd_reclaim)
        for (int n : sys.mem.zonelist[preferred])
            if ((allowed >> n) & 1) wakeup_kswapd(sys, n, req);
    nid = alloc_zonelist_pass(sys, preferred, allowed, nr, cpu_nid, true);
    if (nid >= 0) return nid;
    if (mask.direct_reclaim && try_to_free_pages(sys, preferred, allowed, req))
        nid = alloc_zonelist_pass(sys, preferred, allowed, nr, cpu_nid, true);
    if (nid < 0 && mask.oom) ++sys.counters.oom_alloc_failures;
    return nid;
}

}  // namespace

MemPolicy get_vma_policy(const System& sys, const Task& p, const Vma& vma, int cpu) {
    // MPOL_DEFAULT on a VMA means "no VMA policy" (mbind(MPOL_DEFAULT) removes it).
    if (vma.policy && vma.policy->mode != MpolMode::Default) return *vma.policy;
    if (p.has_mempolicy && p.mempolicy.mode != MpolMode::Default) return p.mempolicy;
    // preferred_node_policy[numa_node_id()]: MPOL_PREFERRED on this node with MOF|MORON.
    MemPolicy def;
    def.mode = MpolMode::Preferred;
    def.nodes = uint64_t{1} << sys.cpu_to_node(cpu);
    def.flags = MPOL_F_MOF | MPOL_F_MORON;
    return def;
}

namespace {

// Where the policy asks for page `idx`: the preferred node, the allowed nodes, and whether it
// interleaves.
struct PolicyTarget {
    int preferred;
    uint64_t allowed = ~uint64_t{0};
    bool interleave = false;
    // A THP may be tried on `preferred` alone first (mm/huge_memory.h, ThpFaultNodes): the
    // policy does not interleave and allows hpage_node, the preferred node of MPOL_PREFERRED or
    // else the local one (so not a bind mask without the local node).
    bool thp_thisnode = true;
};

PolicyTarget policy_target(const System& sys, const Task& p, const Vma& vma, uint64_t idx,
                           int cpu) {
    const MemPolicy pol = get_vma_policy(sys, p, vma, cpu);
    const int cpu_nid = sys.cpu_to_node(cpu);
    PolicyTarget t{cpu_nid};
    int& preferred = t.preferred;
    switch (pol.mode) {
        case MpolMode::Default:
        case MpolMode::Local:
            break;
        case MpolMode::Preferred:
            preferred = pol.first_node();
            break;
        case MpolMode::Bind:
            t.allowed = pol.nodes;
            t.thp_thisnode = pol.has_node(cpu_nid);
            preferred = t.thp_thisnode ? cpu_nid : -1;
            if (preferred < 0)  // nearest allowed node to the CPU
                for (int nid : sys.mem.zonelist[cpu_nid])
                    if (pol.has_node(nid)) {
                        preferred = nid;
                        break;
                    }
            break;
        case MpolMode::Interleave:
            preferred = interleave_nid(pol, vma, idx);
            t.interleave = true;
            t.thp_thisnode = false;
            break;
    }
    if (preferred < 0) preferred = cpu_nid;
    return t;
}

}  // namespace

int policy_node(const System& sys, const Task& p, const Vma& vma, uint64_t idx, int cpu) {
    return policy_target(sys, p, vma, idx, cpu).preferred;
}

namespace {

// A THP for a fault in `vma` (vma_alloc_folio in v6.1 and v6.6, alloc_pages_mpol in v6.12,
// alloc_pages_vma in v4.18 and v4.19), with the gfp mask vma_thp_gfp_mask() gives it: on the
// policy's node alone first where the policy allows it, and then on every allowed node only
// where the release and the mask say so (ThpFaultNodes). A failure is no out-of-memory: the
// fault falls back to a base page.
int alloc_thp(System& sys, const PolicyTarget& t, const Vma& vma, int order,
              const ReclaimRequest& req) {
    const ThpGfp gfp =
        vma_thp_gfp_mask(sys.knobs.transparent_hugepage_defrag, vma.vm_flags & VM_HUGEPAGE);
    const AllocMask mask{gfp.kswapd_reclaim, gfp.direct_reclaim && !gfp.noretry, false};
    if (!t.thp_thisnode) return alloc_along_zonelist(sys, t.preferred, t.allowed, order, req, mask);
    const uint64_t thisnode = uint64_t{1} << t.preferred;  // __GFP_THISNODE
    if (sys.thp_fault_nodes == ThpFaultNodes::ThisNodeOnly)
        return alloc_along_zonelist(sys, t.preferred, thisnode, order, req, mask);
    // The first try adds __GFP_NORETRY: no direct reclaim, whatever the mask.
    const AllocMask first{gfp.kswapd_reclaim, false, false};
    const int nid = alloc_along_zonelist(sys, t.preferred, thisnode, order, req, first);
    if (nid >= 0 || !gfp.direct_reclaim) return nid;
    return alloc_along_zonelist(sys, t.preferred, t.allowed, order, req, mask);
}

}  // namespace

int alloc_pages_vma(System& sys, const Task& p, const Vma& vma, uint64_t idx, int order, int cpu) {
    const PolicyTarget t = policy_target(sys, p, vma, idx, cpu);
    const ReclaimRequest req{cpu, order, TraceGfp::HighuserMovableZero};
    // A user page of a higher order is a THP.
    const int nid = order > 0 ? alloc_thp(sys, t, vma, order, req)
                              : alloc_along_zonelist(sys, t.preferred, t.allowed, order, req);
    if (t.interleave && nid >= 0 && nid == t.preferred) ++sys.counters[Vm::numa_interleave];
    return nid;
}

void alloc_pages_vma_repeat(System& sys, const Task& p, const Vma& vma, int nid, uint64_t n,
                            int cpu) {
    // Not interleaving, the target does not depend on the page.
    const PolicyTarget t = policy_target(sys, p, vma, 0, cpu);
    NodeMemory& m = sys.mem.nodes[nid];
    if (t.interleave || !node_has_room(m, n, m.wmark_low))
        throw std::logic_error("alloc_pages_vma_repeat: the pages would not all take node " +
                               std::to_string(nid));
    m.free_pages -= n;
    zone_statistics(sys, t.preferred, nid, sys.cpu_to_node(cpu), n);
    sys.counters[Vm::pgalloc] += n;
}

int alloc_pages_node(System& sys, int nid, int order, int cpu) {
    return alloc_along_zonelist(sys, nid, ~uint64_t{0}, order, {cpu, order, TraceGfp::Kernel});
}

bool alloc_pages_thisnode(System& sys, int nid, int order, int cpu) {
    const uint64_t nr = uint64_t{1} << order;
    NodeMemory& m = sys.mem.nodes[nid];
    // migrate_balanced_pgdat(): the target must stay above its high watermark after the copy.
    if (!node_has_room(m, nr, m.wmark_high)) return false;
    m.free_pages -= nr;
    zone_statistics(sys, nid, nid, sys.cpu_to_node(cpu));
    sys.counters[Vm::pgalloc] += nr;
    return true;
}

int alloc_demote_page(System& sys, int target, uint64_t allowed, int order, int cpu_nid) {
    const uint64_t nr = uint64_t{1} << order;
    const int nid = alloc_zonelist_pass(sys, target, allowed, nr, cpu_nid, false);
    return nid >= 0 ? nid : alloc_zonelist_pass(sys, target, allowed, nr, cpu_nid, true);
}

void free_pages(System& sys, int nid, uint64_t nr) {
    sys.mem.nodes[nid].free_pages += nr;
    sys.counters[Vm::pgfree] += nr;
}

}  // namespace numasim
