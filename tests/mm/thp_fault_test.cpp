// THP faults (mm/huge_memory.h): the THP mode and the VMA's madvise flag, the gfp mask from
// `defrag`, and where the huge page comes from under each release, worked by hand on tiny-2n
// (2 GiB a node: min 1024, low 1548, high 2072 pages; a THP is 512 pages).
#include <gtest/gtest.h>

#include "mm/huge_memory.h"
#include "mm/vmscan.h"
#include "mm_fixture.h"

namespace numasim {
namespace {

using mmtest::World;

TEST(ThpGfpMask, FromDefragAndTheMadviseFlag) {
    struct Row {
        ThpDefrag defrag;
        bool madvised;
        bool direct, kswapd, noretry;
    };
    // vma_thp_gfp_mask(), each setting with and without VM_HUGEPAGE.
    const Row rows[] = {
        {ThpDefrag::Always, true, true, false, false},  // GFP_TRANSHUGE
        {ThpDefrag::Always, false, true, false, true},  // GFP_TRANSHUGE | __GFP_NORETRY
        {ThpDefrag::Defer, true, false, true, false},
        {ThpDefrag::Defer, false, false, true, false},
        {ThpDefrag::DeferMadvise, true, true, false, false},
        {ThpDefrag::DeferMadvise, false, false, true, false},
        {ThpDefrag::Madvise, true, true, false, false},
        {ThpDefrag::Madvise, false, false, false, false},  // GFP_TRANSHUGE_LIGHT
        {ThpDefrag::Never, true, false, false, false},
        {ThpDefrag::Never, false, false, false, false},
    };
    for (const Row& r : rows) {
        SCOPED_TRACE(std::string(knob_name(r.defrag)) + (r.madvised ? " madvised" : ""));
        const ThpGfp g = vma_thp_gfp_mask(r.defrag, r.madvised);
        EXPECT_EQ(g.direct_reclaim, r.direct);
        EXPECT_EQ(g.kswapd_reclaim, r.kswapd);
        EXPECT_EQ(g.noretry, r.noretry);
    }
}

TEST(ThpVmaAllowable, TheModeTheMadviseFlagsAndShmem) {
    const uint32_t rw = VM_READ | VM_WRITE;
    EXPECT_TRUE(thp_vma_allowable(ThpEnabled::Always, rw));
    EXPECT_TRUE(thp_vma_allowable(ThpEnabled::Always, rw | VM_HUGEPAGE));
    EXPECT_FALSE(thp_vma_allowable(ThpEnabled::Always, rw | VM_NOHUGEPAGE));
    EXPECT_FALSE(thp_vma_allowable(ThpEnabled::Madvise, rw));
    EXPECT_TRUE(thp_vma_allowable(ThpEnabled::Madvise, rw | VM_HUGEPAGE));
    EXPECT_FALSE(thp_vma_allowable(ThpEnabled::Never, rw | VM_HUGEPAGE));
    // A file's pages never; shared anonymous memory (shmem) where madvised, whatever the mode.
    EXPECT_FALSE(thp_vma_allowable(ThpEnabled::Always, rw | VM_FILE | VM_HUGEPAGE));
    EXPECT_FALSE(thp_vma_allowable(ThpEnabled::Always, rw | VM_SHARED));
    EXPECT_TRUE(thp_vma_allowable(ThpEnabled::Never, rw | VM_SHARED | VM_HUGEPAGE));
    EXPECT_FALSE(
        thp_vma_allowable(ThpEnabled::Madvise, rw | VM_SHARED | VM_HUGEPAGE | VM_NOHUGEPAGE));
}

TEST(ThpFaultNodes, ByRelease) {
    EXPECT_EQ(thp_fault_nodes_of_release("v4.18"), ThpFaultNodes::ThisNodeOnly);
    EXPECT_EQ(thp_fault_nodes_of_release("v4.19"), ThpFaultNodes::ThisNodeOnly);
    EXPECT_EQ(thp_fault_nodes_of_release("v5.3"), ThpFaultNodes::ThisNodeOnly);
    EXPECT_EQ(thp_fault_nodes_of_release("v5.4"), ThpFaultNodes::LocalFirst);
    EXPECT_EQ(thp_fault_nodes_of_release("v6.1"), ThpFaultNodes::LocalFirst);
    EXPECT_EQ(thp_fault_nodes_of_release("v6.6"), ThpFaultNodes::LocalFirst);
    EXPECT_EQ(thp_fault_nodes_of_release("v6.12"), ThpFaultNodes::LocalFirst);
    EXPECT_EQ(thp_fault_nodes_of_release("custom"), ThpFaultNodes::LocalFirst);
}

// One THP-sized mapping, madvised or not, faulted at its first page from CPU 0 (node 0).
struct ThpFault : ::testing::TestWithParam<const char*> {
    World w;
    Mm& mm = mm_create(w.sys);
    Task& p = w.task_on(0);
    NodeMemory& n0 = w.sys.mem.nodes[0];
    NodeMemory& n1 = w.sys.mem.nodes[1];

    void SetUp() override { w.sys.set_kernel_release(GetParam()); }
    Vma& fault(uint32_t extra_flags) {
        Vma& v = do_mmap(w.sys, mm, kPages4K.pmd_size(), VM_READ | VM_WRITE | extra_flags, "thp");
        handle_mm_fault(w.sys, p, v, 0, true);
        return v;
    }
    // THP=always and a VMA without MADV_HUGEPAGE: GFP_TRANSHUGE_LIGHT, no reclaim at all.
    Vma& fault_unmadvised() {
        w.sys.knobs.transparent_hugepage_enabled = ThpEnabled::Always;
        return fault(0);
    }
    uint64_t fallbacks() const { return w.sys.counters.thp_fault_fallback; }
};

// The release's code paths differ (vma_alloc_folio, alloc_pages_mpol, alloc_pages_vma) but
// these cases go the same way in all.
struct ThpFaultAnyRelease : ThpFault {};
INSTANTIATE_TEST_SUITE_P(Releases, ThpFaultAnyRelease,
                         ::testing::Values("v4.19", "v6.1", "v6.6", "v6.12"));
// v5.4 on: the local node alone first, then the others only with direct reclaim.
struct ThpFaultLocalFirst : ThpFault {};
INSTANTIATE_TEST_SUITE_P(Releases, ThpFaultLocalFirst, ::testing::Values("v6.1", "v6.6", "v6.12"));

TEST_P(ThpFaultAnyRelease, BelowLowAboveMinTheLocalNodeGivesItAtMin) {
    // 1648 - 512 = 1136: below low (1548), so the first pass fails; above min (1024), so the
    // slow path's pass at min takes node 0 rather than node 1, which has all its pages free.
    n0.free_pages = n0.wmark_low + 100;
    Vma& v = fault(VM_HUGEPAGE);
    EXPECT_TRUE(v.pmd_mapped.test(0));
    EXPECT_EQ(v.frame(0).nid, 0);
    EXPECT_EQ(n0.free_pages, 1136u);
    EXPECT_EQ(w.c(Vm::thp_fault_alloc), 1u);
    EXPECT_EQ(w.c(Vm::numa_hit), 1u);
    EXPECT_EQ(w.c(Vm::numa_local), 1u);
    EXPECT_EQ(w.c(Vm::numa_miss), 0u);
    EXPECT_EQ(fallbacks(), 0u);
}

TEST_P(ThpFaultAnyRelease, UnmadvisedTakesTheLocalNodeBetweenLowAndMinToo) {
    n0.free_pages = n0.wmark_low + 100;
    Vma& v = fault_unmadvised();
    EXPECT_TRUE(v.pmd_mapped.test(0));
    EXPECT_EQ(v.frame(0).nid, 0);
    EXPECT_EQ(w.c(Vm::numa_hit), 1u);
    EXPECT_EQ(fallbacks(), 0u);
}

TEST_P(ThpFaultAnyRelease, UnmadvisedOnAFullLocalNodeFallsBackToABasePageLocally) {
    // Node 0 at 1124: no THP there at min (612 < 1024); not madvised, no other node is tried.
    // The base page finds no node above low (node 1 is empty), then node 0 at min (1123).
    n0.free_pages = n0.wmark_min + 100;
    n1.free_pages = 0;
    Vma& v = fault_unmadvised();
    EXPECT_FALSE(v.pmd_mapped.test(0));
    EXPECT_EQ(v.present.count(0, v.nr_pages()), 1u);
    EXPECT_EQ(v.frame(0).nid, 0);
    EXPECT_EQ(n0.free_pages, 1123u);
    EXPECT_EQ(w.c(Vm::thp_fault_alloc), 0u);
    EXPECT_EQ(fallbacks(), 1u);
    EXPECT_EQ(w.c(Vm::numa_hit), 1u);  // the base page's allocation, the only one counted
    EXPECT_EQ(w.c(Vm::pgalloc), 1u);
    EXPECT_EQ(w.sys.counters.oom_alloc_failures, 0u);
}

TEST_P(ThpFaultAnyRelease, UnmadvisedNeverTakesAHugePageFromAnotherNode) {
    // Node 1 has room for the huge page, but only the base page of the fallback goes there.
    n0.free_pages = n0.wmark_min + 100;
    Vma& v = fault_unmadvised();
    EXPECT_FALSE(v.pmd_mapped.test(0));
    EXPECT_EQ(v.frame(0).nid, 1);
    EXPECT_EQ(fallbacks(), 1u);
    EXPECT_EQ(w.c(Vm::numa_miss), 1u);
    EXPECT_EQ(n1.free_pages, n1.present_pages - 1);
}

TEST_P(ThpFaultLocalFirst, MadvisedOnAFullLocalNodeTakesAnotherNode) {
    // The first try on node 0 alone fails at low and min; the mask has __GFP_DIRECT_RECLAIM, so
    // the zonelist follows: node 0 fails at low again, node 1 has room.
    n0.free_pages = n0.wmark_min + 100;
    Vma& v = fault(VM_HUGEPAGE);
    EXPECT_TRUE(v.pmd_mapped.test(0));
    EXPECT_EQ(v.frame(0).nid, 1);
    EXPECT_EQ(n0.free_pages, 1124u);
    EXPECT_EQ(n1.free_pages, n1.present_pages - 512);
    EXPECT_EQ(w.c(Vm::thp_fault_alloc), 1u);
    EXPECT_EQ(w.c(Vm::numa_miss), 1u);
    EXPECT_EQ(w.c(Vm::numa_foreign), 1u);
    EXPECT_EQ(w.c(Vm::numa_other), 1u);
    EXPECT_EQ(fallbacks(), 0u);
}

TEST(ThpFaultThisNodeOnly, MadvisedOnAFullLocalNodeFallsBackToABasePage) {
    // v4.19: __GFP_THISNODE without a second try. The madvised mask may reclaim, but only node
    // 0, which frees nothing here (no demotion); the base page then goes to node 1 at low.
    World w;
    w.sys.set_kernel_release("v4.19");
    NodeMemory& n0 = w.sys.mem.nodes[0];
    n0.free_pages = n0.wmark_min + 100;
    Mm& mm = mm_create(w.sys);
    Vma& v = do_mmap(w.sys, mm, kPages4K.pmd_size(), VM_READ | VM_WRITE | VM_HUGEPAGE, "thp");
    handle_mm_fault(w.sys, w.task_on(0), v, 0, true);
    EXPECT_FALSE(v.pmd_mapped.test(0));
    EXPECT_EQ(v.frame(0).nid, 1);
    EXPECT_EQ(w.sys.counters.thp_fault_fallback, 1u);
    EXPECT_EQ(w.c(Vm::thp_fault_alloc), 0u);
}

TEST_P(ThpFaultLocalFirst, InterleaveAllocatesTheNormalWay) {
    // Page 0's interleave node is node 0, which has no room for a THP: the zonelist goes on to
    // node 1 even for a VMA that is not madvised (no local-only try, no fallback). Not the
    // interleave target, so a miss and no numa_interleave.
    MemPolicy il;
    il.mode = MpolMode::Interleave;
    il.nodes = 0b11;
    p.mempolicy = il;
    p.has_mempolicy = true;
    n0.free_pages = n0.wmark_min + 100;
    Vma& v = fault_unmadvised();
    EXPECT_TRUE(v.pmd_mapped.test(0));
    EXPECT_EQ(v.frame(0).nid, 1);
    EXPECT_EQ(fallbacks(), 0u);
    EXPECT_EQ(w.c(Vm::numa_interleave), 0u);
    EXPECT_EQ(w.c(Vm::numa_miss), 1u);
}

// power8-2s4n (64 KiB pages, 16 MiB THPs): from node 1 the zonelist is 1, 0, 2, 3 (distances
// 10, 20, 40, 40).
struct ThpFaultBind : ::testing::Test {
    World w{"power8-2s4n"};
    Mm& mm = mm_create(w.sys);
    Task& p = w.task_on(0);  // node 0

    void SetUp() override {
        w.sys.set_kernel_release("v6.6");
        w.sys.knobs.transparent_hugepage_enabled = ThpEnabled::Always;
    }
    Vma& fault_bound(uint64_t nodes) {
        Vma& v = do_mmap(w.sys, mm, w.sys.pages().pmd_size(), VM_READ | VM_WRITE, "thp");
        MemPolicy bind;
        bind.mode = MpolMode::Bind;
        bind.nodes = nodes;
        v.policy = bind;
        handle_mm_fault(w.sys, p, v, 0, true);
        return v;
    }
};

TEST_F(ThpFaultBind, AMaskWithoutTheLocalNodeAllocatesTheNormalWay) {
    // Bound to 1 and 2 from node 0: no local-only try. Node 1, the nearest, is full; the
    // zonelist takes node 2 for the huge page, madvised or not.
    w.sys.mem.nodes[1].free_pages = 0;
    Vma& v = fault_bound(0b110);
    EXPECT_TRUE(v.pmd_mapped.test(0));
    EXPECT_EQ(v.frame(0).nid, 2);
    EXPECT_EQ(w.sys.counters.thp_fault_fallback, 0u);
}

TEST_F(ThpFaultBind, AMaskWithTheLocalNodeTriesItAlone) {
    // Bound to 0 and 2 from node 0, node 0 full: the local-only try fails, and without direct
    // reclaim that is the end: a base page, which the bind mask's zonelist puts on node 2.
    w.sys.mem.nodes[0].free_pages = 0;
    Vma& v = fault_bound(0b101);
    EXPECT_FALSE(v.pmd_mapped.test(0));
    EXPECT_EQ(v.frame(0).nid, 2);
    EXPECT_EQ(w.sys.counters.thp_fault_fallback, 1u);
}

// cascadelake-2s-pmem with demotion_enabled, so that kswapd and direct reclaim run: nodes 0-1
// DRAM, 2-3 PMEM. `next` is the node after 0 on node 0's zonelist, where a page goes when node 0
// is below low.
struct ThpFaultReclaim : ::testing::Test {
    World w{"cascadelake-2s-pmem"};
    Mm& mm = mm_create(w.sys);
    Task& p = w.task_on(0);
    NodeMemory& n0 = w.sys.mem.nodes[0];
    const int next = w.sys.mem.zonelist[0][1];

    void SetUp() override { w.sys.knobs.demotion_enabled = true; }
    Vma& fault(uint32_t extra_flags) {
        n0.free_pages = n0.wmark_min + 1;  // not balanced: its kswapd may be woken
        Vma& v = do_mmap(w.sys, mm, kPages4K.pmd_size(), VM_READ | VM_WRITE | extra_flags, "thp");
        handle_mm_fault(w.sys, p, v, 0, true);
        return v;
    }
};

TEST_F(ThpFaultReclaim, DeferWakesTheLocalKswapdAloneMadviseNone) {
    w.sys.set_kernel_release("v6.6");
    w.sys.knobs.transparent_hugepage_enabled = ThpEnabled::Always;
    // defrag=madvise, not madvised: GFP_TRANSHUGE_LIGHT wakes nobody; the base page goes to
    // the next node at low, which wakes nobody either.
    Vma& a = fault(0);
    EXPECT_EQ(a.frame(0).nid, next);
    EXPECT_EQ(w.sys.counters.mm_vmscan_wakeup_kswapd, 0u);
    // defer: __GFP_KSWAPD_RECLAIM on the local-only try wakes node 0's kswapd (the
    // __GFP_THISNODE zonelist holds node 0 alone); then the base page, as before.
    w.sys.knobs.transparent_hugepage_defrag = ThpDefrag::Defer;
    Vma& b = fault(0);
    EXPECT_FALSE(b.pmd_mapped.test(0));
    EXPECT_EQ(b.frame(0).nid, next);
    EXPECT_EQ(w.sys.counters.mm_vmscan_wakeup_kswapd, 1u);
    EXPECT_EQ(w.sys.counters.mm_vmscan_direct_reclaim_begin, 0u);
    EXPECT_EQ(w.sys.counters.thp_fault_fallback, 2u);
}

TEST_F(ThpFaultReclaim, MadvisedReclaimsTheLocalNodeOnV4_19AndTakesTheNextOnV6_6) {
    // v4.19: node 0 alone, with the madvised mask's direct reclaim (of node 0 only), then a base
    // page.
    w.sys.set_kernel_release("v4.19");
    Vma& a = fault(VM_HUGEPAGE);
    EXPECT_FALSE(a.pmd_mapped.test(0));
    EXPECT_EQ(w.sys.counters.mm_vmscan_direct_reclaim_begin, 1u);
    EXPECT_EQ(w.sys.counters.thp_fault_fallback, 1u);
    // v6.6: the local-only try has __GFP_NORETRY and does not reclaim; the second try finds
    // the next node above low at once.
    w.sys.set_kernel_release("v6.6");
    Vma& b = fault(VM_HUGEPAGE);
    EXPECT_TRUE(b.pmd_mapped.test(0));
    EXPECT_EQ(b.frame(0).nid, next);
    EXPECT_EQ(w.sys.counters.mm_vmscan_direct_reclaim_begin, 1u);
    EXPECT_EQ(w.sys.counters.thp_fault_fallback, 1u);
}

}  // namespace
}  // namespace numasim
