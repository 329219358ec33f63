#include "mm/page_alloc.h"

#include <stdexcept>
#include <string>

#include "kernel/system.h"
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

// The fast path at the low watermark, then the slow path at min: with demotion_enabled, after
// waking the kswapds (wake_all_kswapds) and, failing that, after direct reclaim
// (__alloc_pages_direct_reclaim) by the allocating CPU's task. Returns the node, or -1: out of
// memory. A THP (`thp`) wakes no kswapd (its gfp mask has no __GFP_KSWAPD_RECLAIM, alloc_pages_vma)
// and its failure is no out-of-memory: the fault falls back to a base page.
int alloc_along_zonelist(System& sys, int preferred, uint64_t allowed, int order,
                         const ReclaimRequest& req, bool thp = false) {
    const uint64_t nr = uint64_t{1} << order;
    const int cpu_nid = sys.cpu_to_node(req.cpu);
    int nid = alloc_zonelist_pass(sys, preferred, allowed, nr, cpu_nid, false);
    if (nid >= 0) return nid;
    if (sys.knobs.demotion_enabled && !thp)
        for (int n : sys.mem.zonelist[preferred])
            if ((allowed >> n) & 1) wakeup_kswapd(sys, n, req);
    nid = alloc_zonelist_pass(sys, preferred, allowed, nr, cpu_nid, true);
    if (nid >= 0) return nid;
    if (try_to_free_pages(sys, preferred, allowed, req))
        nid = alloc_zonelist_pass(sys, preferred, allowed, nr, cpu_nid, true);
    if (nid < 0 && !thp) ++sys.counters.oom_alloc_failures;
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
            preferred = pol.has_node(cpu_nid) ? cpu_nid : -1;
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
            break;
    }
    if (preferred < 0) preferred = cpu_nid;
    return t;
}

}  // namespace

int policy_node(const System& sys, const Task& p, const Vma& vma, uint64_t idx, int cpu) {
    return policy_target(sys, p, vma, idx, cpu).preferred;
}

int alloc_pages_vma(System& sys, const Task& p, const Vma& vma, uint64_t idx, int order, int cpu) {
    const PolicyTarget t = policy_target(sys, p, vma, idx, cpu);
    // A user page of a higher order is a THP: vma_thp_gfp_mask() builds its mask from
    // GFP_TRANSHUGE_LIGHT, which clears __GFP_RECLAIM, and adds __GFP_KSWAPD_RECLAIM back only
    // with the `defer` or `defer+madvise` defrag settings. Every profile's default is `madvise`
    // (since v4.6), which adds only __GFP_DIRECT_RECLAIM, for a madvised VMA: a THP fault never
    // wakes kswapd, and falls back to a base page, which does.
    const int nid = alloc_along_zonelist(sys, t.preferred, t.allowed, order,
                                         {cpu, order, TraceGfp::HighuserMovableZero}, order > 0);
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
