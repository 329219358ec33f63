// First touch in runs (anon_fault_run, repeat_anon_fault; docs/model.md "Fault runs"): how far a
// run reaches, by hand, and that a run leaves the state faulting the pages one by one leaves.
// tiny-2n: 2 nodes of 2 CPUs, 524288 free pages per node, low watermark 1548 pages.
#include <gtest/gtest.h>

#include <cstring>
#include <stdexcept>
#include <vector>

#include "mm_fixture.h"

namespace numasim {
namespace {

using mmtest::World;

struct Anon {
    World w;
    Mm& mm = mm_create(w.sys);
    Vma& vma;
    Region& r;
    Task& p = w.task_on(3);  // node 1
    explicit Anon(uint32_t flags = VM_READ | VM_WRITE, uint64_t pages = 2048)
        : vma(do_mmap(w.sys, mm, pages * kPages4K.size(), flags, "anon")),
          r(add_region(w.sys, vma, 0, vma.nr_pages(), "r")) {}
};

TEST(FirstTouchRun, ReachesTheEndOfThePageTable) {
    Anon a;
    // Page tables hold 512 pages: a fault on page 5 runs through page 511 at most.
    handle_mm_fault(a.w.sys, a.p, a.vma, 5, true);
    EXPECT_EQ(anon_fault_run(a.w.sys, a.p, a.vma, 5, 2048), 506u);
    // ... or to the sweep's end, or to the first page already present.
    EXPECT_EQ(anon_fault_run(a.w.sys, a.p, a.vma, 5, 40), 34u);
    handle_mm_fault(a.w.sys, a.p, a.vma, 9, true);
    EXPECT_EQ(anon_fault_run(a.w.sys, a.p, a.vma, 5, 2048), 3u);
    // A page whose fault allocated nothing starts no run.
    EXPECT_EQ(anon_fault_run(a.w.sys, a.p, a.vma, 7, 2048), 0u);
}

TEST(FirstTouchRun, StopsAboveTheLowWatermark) {
    Anon a;
    NodeMemory& n1 = a.w.sys.mem.nodes[1];
    handle_mm_fault(a.w.sys, a.p, a.vma, 0, true);
    // Ten pages above the low watermark: ten more first touches stay on node 1, the eleventh
    // would leave it at the watermark and must be decided on its own.
    n1.free_pages = n1.wmark_low + 10;
    EXPECT_EQ(anon_fault_run(a.w.sys, a.p, a.vma, 0, 512), 10u);
    n1.free_pages = n1.wmark_low;
    EXPECT_EQ(anon_fault_run(a.w.sys, a.p, a.vma, 0, 512), 0u);
}

TEST(FirstTouchRun, RepeatedAllocationsStayAboveTheWatermark) {
    Anon a;
    NodeMemory& n1 = a.w.sys.mem.nodes[1];
    n1.free_pages = n1.wmark_low + 3;
    // A fourth page would take node 1 below its low watermark, where the zonelist walk could
    // choose another node: the run must not have reached it.
    EXPECT_THROW(alloc_pages_vma_repeat(a.w.sys, a.p, a.vma, 1, 4, a.p.cpu), std::logic_error);
    alloc_pages_vma_repeat(a.w.sys, a.p, a.vma, 1, 3, a.p.cpu);
    EXPECT_EQ(n1.free_pages, n1.wmark_low);
    EXPECT_EQ(a.w.c(Vm::numa_hit), 3u);  // node 1 is the preferred node of CPU 3
    EXPECT_EQ(a.w.c(Vm::numa_local), 3u);
    EXPECT_EQ(a.w.c(Vm::pgalloc), 3u);
}

TEST(FirstTouchRun, NoneWhereTwoPagesCouldDiffer) {
    for (uint32_t flags : {VM_SHARED, VM_HUGEPAGE}) {
        Anon a(VM_READ | VM_WRITE | flags);
        handle_mm_fault(a.w.sys, a.p, a.vma, 600, true);
        EXPECT_EQ(anon_fault_run(a.w.sys, a.p, a.vma, 600, 1024), 0u) << flags;
    }
    // Interleave picks each page's node by its offset.
    Anon a;
    a.p.mempolicy.mode = MpolMode::Interleave;
    a.p.mempolicy.nodes = 0x3;
    a.p.has_mempolicy = true;
    handle_mm_fault(a.w.sys, a.p, a.vma, 0, true);
    EXPECT_EQ(anon_fault_run(a.w.sys, a.p, a.vma, 0, 512), 0u);
}

// Everything a first touch changes: the pages, the counters, the node's free pages, the
// region totals, the task's fault count and the kernel traffic of the clears (through the next
// solve's node load).
struct State {
    std::vector<uint64_t> frames;
    std::vector<uint64_t> counters;
    uint64_t free0, free1, rss, faults, region_on1, present_pages;
    double node1_load;
};

State state(Anon& a) {
    State s;
    for (uint64_t i = 0; i < a.vma.nr_pages(); ++i) {
        uint64_t f = 0;
        if (a.vma.present.test(i)) std::memcpy(&f, &a.vma.frame(i), sizeof f);
        s.frames.push_back(f | uint64_t{a.vma.present.test(i)} << 63);
    }
    s.counters.assign(a.w.sys.counters.vm.begin(), a.w.sys.counters.vm.end());
    s.free0 = a.w.sys.mem.nodes[0].free_pages;
    s.free1 = a.w.sys.mem.nodes[1].free_pages;
    s.rss = a.mm.rss_pages;
    s.faults = a.p.nr_faults;
    s.region_on1 = a.r.pages_on(1);
    s.present_pages = a.r.present;
    std::vector<CpuRunning> idle(static_cast<size_t>(a.w.sys.nr_cpus()));
    a.w.sys.cost.update(idle, TICK_NSEC);
    s.node1_load = a.w.sys.cost.node_load_gbs(1);
    return s;
}

TEST(FirstTouchRun, SameStateAsPageByPage) {
    Anon runs, pages;
    double ns_run = handle_mm_fault(runs.w.sys, runs.p, runs.vma, 100, true);
    const uint64_t n = anon_fault_run(runs.w.sys, runs.p, runs.vma, 100, 300);
    ASSERT_EQ(n, 199u);
    const double each = repeat_anon_fault(runs.w.sys, runs.p, runs.vma, 100, n);
    EXPECT_EQ(each, ns_run);  // every page costs what the first did
    double ns_pages = 0;
    for (uint64_t i = 100; i < 300; ++i)
        ns_pages += handle_mm_fault(pages.w.sys, pages.p, pages.vma, i, true);
    EXPECT_EQ(ns_pages, 200 * ns_run);
    const State a = state(runs), b = state(pages);
    EXPECT_EQ(a.frames, b.frames);
    EXPECT_EQ(a.counters, b.counters);
    EXPECT_EQ(a.free1, b.free1);
    EXPECT_EQ(a.free0, b.free0);
    EXPECT_EQ(a.rss, b.rss);
    EXPECT_EQ(a.faults, b.faults);
    EXPECT_EQ(a.region_on1, 200u);
    EXPECT_EQ(a.region_on1, b.region_on1);
    EXPECT_EQ(a.present_pages, b.present_pages);
    EXPECT_GT(a.node1_load, 0.0);
    EXPECT_EQ(a.node1_load, b.node1_load);
}

}  // namespace
}  // namespace numasim
