// Page allocation under memory policies, zonelist fallback and the zone_statistics counters.
#include <gtest/gtest.h>

#include "mm_fixture.h"

namespace numasim {
namespace {

using mmtest::World;

struct Alloc : ::testing::Test {
    World w;
    Mm& mm = mm_create(w.sys);
    Vma& vma = do_mmap(w.sys, mm, 64 * kPages4K.size(), VM_READ | VM_WRITE, "anon");
    Task& p = w.task_on(0);
    NodeMemory& n0 = w.sys.mem.nodes[0];
    NodeMemory& n1 = w.sys.mem.nodes[1];
};

TEST_F(Alloc, WatermarksFromMinFreeKbytes) {
    // 2 x 2 GiB = 4194304 KiB; min_free_kbytes = sqrt(4194304 * 16) = 8192 KiB, half per node:
    // 4096 KiB = 1024 pages. delta = max(1024 / 4, 524288 * 10 / 10000 = 524) = 524.
    EXPECT_EQ(n0.present_pages, 524288u);
    EXPECT_EQ(n0.free_pages, 524288u);
    EXPECT_EQ(n0.wmark_min, 1024u);
    EXPECT_EQ(n0.wmark_low, 1024u + 524u);
    EXPECT_EQ(n0.wmark_high, 1024u + 2 * 524u);
    EXPECT_EQ(n1.wmark_high, n0.wmark_high);
    EXPECT_EQ(w.sys.mem.zonelist[0], (std::vector<int>{0, 1}));
    EXPECT_EQ(w.sys.mem.zonelist[1], (std::vector<int>{1, 0}));
}

TEST_F(Alloc, DefaultPolicyAllocatesOnTheCpusNode) {
    // CPU 2 is on node 1.
    EXPECT_EQ(alloc_pages_vma(w.sys, p, vma, 0, 0, 2), 1);
    EXPECT_EQ(alloc_pages_vma(w.sys, p, vma, 1, 0, 0), 0);
    EXPECT_EQ(w.c(Vm::numa_hit), 2u);
    EXPECT_EQ(w.c(Vm::numa_local), 2u);
    EXPECT_EQ(w.c(Vm::numa_miss), 0u);
    EXPECT_EQ(w.c(Vm::numa_foreign), 0u);
    EXPECT_EQ(w.c(Vm::numa_other), 0u);
    EXPECT_EQ(w.c(Vm::pgalloc), 2u);
    EXPECT_EQ(n0.free_pages, 524288u - 1);
    EXPECT_EQ(n1.free_pages, 524288u - 1);
    // get_vma_policy without VMA or task policy: preferred on the CPU's node with MOF|MORON.
    MemPolicy def = get_vma_policy(w.sys, p, vma, 3);
    EXPECT_EQ(def.mode, MpolMode::Preferred);
    EXPECT_EQ(def.nodes, uint64_t{2});
    EXPECT_EQ(def.flags, MPOL_F_MOF | MPOL_F_MORON);
}

TEST_F(Alloc, OrderCountsPagesInPgallocButOneZoneStatistic) {
    // An order-9 allocation is one allocation call: numa_hit + 1, pgalloc + 512.
    EXPECT_EQ(alloc_pages_vma(w.sys, p, vma, 0, kPages4K.pmd_order, 0), 0);
    EXPECT_EQ(w.c(Vm::numa_hit), 1u);
    EXPECT_EQ(w.c(Vm::pgalloc), 512u);
    EXPECT_EQ(n0.free_pages, 524288u - 512);
}

TEST_F(Alloc, BindRestrictsToTheBoundNodes) {
    MemPolicy bind;
    bind.mode = MpolMode::Bind;
    bind.nodes = uint64_t{1} << 1;
    vma.policy = bind;
    // From CPU 0 (node 0): the nearest allowed node is 1; it is the preferred zone, so numa_hit,
    // and numa_other because it is not the CPU's node.
    EXPECT_EQ(alloc_pages_vma(w.sys, p, vma, 0, 0, 0), 1);
    EXPECT_EQ(w.c(Vm::numa_hit), 1u);
    EXPECT_EQ(w.c(Vm::numa_other), 1u);
    EXPECT_EQ(w.c(Vm::numa_local), 0u);
    // Node 1 at its min watermark: no fallback to node 0 even though it is empty.
    n1.free_pages = n1.wmark_min;
    const auto before = w.sys.counters.vm;
    EXPECT_EQ(alloc_pages_vma(w.sys, p, vma, 1, 0, 0), -1);
    EXPECT_EQ(w.sys.counters.vm, before);  // a failed allocation counts nothing
    EXPECT_EQ(n0.free_pages, n0.present_pages);
}

TEST_F(Alloc, TaskPolicyAppliesWhenTheVmaHasNone) {
    p.mempolicy.mode = MpolMode::Bind;
    p.mempolicy.nodes = uint64_t{1} << 1;
    p.has_mempolicy = true;
    EXPECT_EQ(alloc_pages_vma(w.sys, p, vma, 0, 0, 0), 1);
    // A VMA policy wins over the task's.
    MemPolicy pref;
    pref.mode = MpolMode::Preferred;
    pref.nodes = 1;
    vma.policy = pref;
    EXPECT_EQ(alloc_pages_vma(w.sys, p, vma, 1, 0, 0), 0);
}

TEST_F(Alloc, InterleaveRoundRobinsByPageOffset) {
    MemPolicy il;
    il.mode = MpolMode::Interleave;
    il.nodes = 0b11;
    vma.policy = il;
    // (pgoff + idx) % 2: pages 0..5 land on 0, 1, 0, 1, 0, 1 whatever the order of faults.
    for (uint64_t idx : {3u, 0u, 5u, 1u, 4u, 2u})
        EXPECT_EQ(alloc_pages_vma(w.sys, p, vma, idx, 0, 0), static_cast<int>(idx % 2)) << idx;
    EXPECT_EQ(w.c(Vm::numa_interleave), 6u);
    EXPECT_EQ(w.c(Vm::numa_hit), 6u);
    EXPECT_EQ(w.c(Vm::numa_local), 3u);  // CPU 0: the node-0 pages
    EXPECT_EQ(w.c(Vm::numa_other), 3u);
    EXPECT_EQ(n0.free_pages, n0.present_pages - 3);
    EXPECT_EQ(n1.free_pages, n1.present_pages - 3);
}

TEST_F(Alloc, InterleaveUsesTheVmaPgoff) {
    // A window of an object starting at page 1: page idx of the VMA is object page idx + 1.
    Vma& win = do_mmap(w.sys, mm, 8 * kPages4K.size(), VM_READ | VM_WRITE, "win", nullptr, 1);
    MemPolicy il;
    il.mode = MpolMode::Interleave;
    il.nodes = 0b11;
    win.policy = il;
    EXPECT_EQ(alloc_pages_vma(w.sys, p, win, 0, 0, 0), 1);  // (1 + 0) % 2
    EXPECT_EQ(alloc_pages_vma(w.sys, p, win, 1, 0, 0), 0);  // (1 + 1) % 2
}

TEST_F(Alloc, InterleaveFallbackIsNotAnInterleaveHit) {
    MemPolicy il;
    il.mode = MpolMode::Interleave;
    il.nodes = 0b11;
    vma.policy = il;
    n1.free_pages = 0;
    // Page 1 wants node 1, which is full: allocated on node 0, a miss, not numa_interleave.
    EXPECT_EQ(alloc_pages_vma(w.sys, p, vma, 1, 0, 0), 0);
    EXPECT_EQ(w.c(Vm::numa_interleave), 0u);
    EXPECT_EQ(w.c(Vm::numa_miss), 1u);
    EXPECT_EQ(w.c(Vm::numa_foreign), 1u);
}

TEST_F(Alloc, PreferredAndItsFallback) {
    MemPolicy pref;
    pref.mode = MpolMode::Preferred;
    pref.nodes = uint64_t{1} << 1;
    vma.policy = pref;
    EXPECT_EQ(alloc_pages_vma(w.sys, p, vma, 0, 0, 0), 1);
    EXPECT_EQ(w.c(Vm::numa_hit), 1u);
    EXPECT_EQ(w.c(Vm::numa_other), 1u);
    // Node 1 at its low watermark: the fast path falls back to node 0: numa_miss on node 0 (the
    // allocating node), numa_foreign on node 1 (the preferred one), numa_local for CPU 0.
    n1.free_pages = n1.wmark_low;
    EXPECT_EQ(alloc_pages_vma(w.sys, p, vma, 1, 0, 0), 0);
    EXPECT_EQ(w.c(Vm::numa_hit), 1u);
    EXPECT_EQ(w.c(Vm::numa_miss), 1u);
    EXPECT_EQ(w.c(Vm::numa_foreign), 1u);
    EXPECT_EQ(w.c(Vm::numa_local), 1u);
    EXPECT_EQ(n1.free_pages, n1.wmark_low);
}

TEST_F(Alloc, DefaultFallsBackAtLowThenUsesMinReserve) {
    // Node 0 exactly at low: 1548 - 1 < 1548, so the fast path skips it and takes node 1.
    n0.free_pages = n0.wmark_low;
    EXPECT_EQ(alloc_pages_vma(w.sys, p, vma, 0, 0, 0), 1);
    EXPECT_EQ(w.c(Vm::numa_miss), 1u);
    EXPECT_EQ(w.c(Vm::numa_foreign), 1u);
    EXPECT_EQ(w.c(Vm::numa_other), 1u);
    // Node 1 empty too: the slow path at the min watermark takes node 0 (1548 - 1 >= 1024).
    n1.free_pages = 0;
    EXPECT_EQ(alloc_pages_vma(w.sys, p, vma, 1, 0, 0), 0);
    EXPECT_EQ(w.c(Vm::numa_hit), 1u);
    EXPECT_EQ(n0.free_pages, n0.wmark_low - 1);
    // Both nodes at min: impossible, -1 and nothing counted.
    n0.free_pages = n0.wmark_min;
    n1.free_pages = n1.wmark_min;
    const auto before = w.sys.counters.vm;
    EXPECT_EQ(alloc_pages_vma(w.sys, p, vma, 2, 0, 0), -1);
    EXPECT_EQ(w.sys.counters.vm, before);
}

TEST_F(Alloc, ThisNodeNeedsTheHighWatermark) {
    // alloc_pages_thisnode: free - nr must stay >= high (2072).
    n1.free_pages = n1.wmark_high;
    EXPECT_FALSE(alloc_pages_thisnode(w.sys, 1, 0, 2));
    n1.free_pages = n1.wmark_high + 1;
    EXPECT_TRUE(alloc_pages_thisnode(w.sys, 1, 0, 2));
    EXPECT_EQ(n1.free_pages, n1.wmark_high);
    EXPECT_EQ(w.c(Vm::numa_hit), 1u);
    EXPECT_EQ(w.c(Vm::numa_local), 1u);  // CPU 2 is on node 1
    free_pages(w.sys, 1, 5);
    EXPECT_EQ(n1.free_pages, n1.wmark_high + 5);
    EXPECT_EQ(w.c(Vm::pgfree), 5u);
}

TEST(AllocFallback, FallsBackToTheNextNearestNode) {
    // power8-2s4n: from node 0 the distances are 10, 20, 40, 40: zonelist 0, 1, 2, 3.
    World w("power8-2s4n");
    Mm& mm = mm_create(w.sys);
    Vma& vma = do_mmap(w.sys, mm, 16 * kPages4K.size(), VM_READ | VM_WRITE, "anon");
    Task& p = w.task_on(0);
    EXPECT_EQ(w.sys.mem.zonelist[0], (std::vector<int>{0, 1, 2, 3}));
    EXPECT_EQ(w.sys.mem.zonelist[2], (std::vector<int>{2, 3, 0, 1}));
    w.sys.mem.nodes[0].free_pages = 0;
    EXPECT_EQ(alloc_pages_vma(w.sys, p, vma, 0, 0, 0), 1);
    w.sys.mem.nodes[1].free_pages = 0;
    EXPECT_EQ(alloc_pages_vma(w.sys, p, vma, 1, 0, 0), 2);  // 2 before 3: stable order
    EXPECT_EQ(w.c(Vm::numa_miss), 2u);
    EXPECT_EQ(w.c(Vm::numa_foreign), 2u);
    EXPECT_EQ(w.c(Vm::numa_other), 2u);
    EXPECT_EQ(w.c(Vm::numa_hit), 0u);
}

TEST(MemPolicy, Helpers) {
    MemPolicy pol;
    pol.nodes = 0b1010;
    EXPECT_EQ(pol.first_node(), 1);
    EXPECT_EQ(pol.weight(), 2);
    EXPECT_TRUE(pol.has_node(3));
    EXPECT_FALSE(pol.has_node(0));
    pol.nodes = 0;
    EXPECT_EQ(pol.first_node(), -1);
    MpolMode m;
    EXPECT_TRUE(parse_mpol_mode("interleave", m));
    EXPECT_EQ(m, MpolMode::Interleave);
    EXPECT_FALSE(parse_mpol_mode("weighted", m));
    EXPECT_EQ(to_string(MpolMode::Bind), "bind");
}

}  // namespace
}  // namespace numasim
