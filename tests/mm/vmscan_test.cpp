// Reclaim and demotion (mm/vmscan.h), worked by hand on cascadelake-2s-pmem under v6.6: nodes
// 0-1 DRAM (96 GiB, the top tier), nodes 2-3 PMEM (756 GiB); node 0 demotes to node 2, then to
// any of 2-3. The pages of a test mapping are made hot by giving their region accesses.
#include <gtest/gtest.h>

#include "kernel/invariants.h"
#include "kernel/latency.h"
#include "kernel/trace_print.h"
#include "kswapd_driver.h"
#include "mm/lru_add.h"
#include "mm/migrate.h"
#include "mm/munmap.h"
#include "mm/page_alloc.h"
#include "mm/vmscan.h"
#include "mm/watermarks.h"
#include "mm_fixture.h"
#include "trace_lines.h"

namespace numasim {
namespace {

using mmtest::TraceLines;
using mmtest::World;

struct Vmscan : ::testing::Test {
    World w{"cascadelake-2s-pmem"};
    Vma* vma = nullptr;
    Region* hot = nullptr;

    void SetUp() override {
        w.sys.set_kernel_release("v6.6");
        w.sys.knobs.demotion_enabled = true;
    }
    NodeMemory& node(int nid) { return w.sys.mem.nodes[static_cast<size_t>(nid)]; }
    // `n` pages first-touched on node 0 and on its LRU; the first `nr_hot` in region `hot`.
    void map(uint64_t n, uint64_t nr_hot) {
        Mm& mm = mm_create(w.sys);
        vma = &do_mmap(w.sys, mm, n * kPages4K.size(), VM_READ | VM_WRITE, "anon");
        hot = &add_region(w.sys, *vma, 0, nr_hot, "hot");
        Task& p = w.task_on(0);
        for (uint64_t i = 0; i < n; ++i)
            handle_mm_fault(w.sys, p, *vma, i, true);
        lru_add_drain_all(w.sys);
    }
    // One PMD-mapped THP first-touched on node 0 and on its LRU, all of it in region `hot`.
    void map_thp() {
        Mm& mm = mm_create(w.sys);
        vma = &do_mmap(w.sys, mm, kPages4K.pmd_size(), VM_READ | VM_WRITE | VM_HUGEPAGE, "thp");
        hot = &add_region(w.sys, *vma, 0, vma->nr_pages(), "hot");
        handle_mm_fault(w.sys, w.task_on(0), *vma, 0, true);
        lru_add_drain_all(w.sys);
        ASSERT_TRUE(vma->pmd_mapped.test(0));
    }
    // Every page of `hot` certainly accessed since the last pass: e^-1000 is 0 in a double.
    void touch_hot() { hot->accesses.all += 1000; }
    const Counters& c() const { return w.sys.counters; }
    // One tick of time, with kswapd run as the engine would (kswapd_driver.h).
    void tick() { mmtest::run_kswapd_until(w.sys, w.sys.now + TICK_NSEC); }
    const KswapdThread& kswapd(int nid) { return node(nid).kswapd; }
    // 100 pages mapped, node 0 put 10 pages under its high mark and its kswapd woken and run for
    // a tick, with its switches and its sleep traced into `sink`.
    void first_kswapd_run_traced(TraceLines& sink) {
        map(100, 0);
        w.sys.tracer.attach(
            &sink,
            trace_bit(TraceEventId::mm_vmscan_kswapd_sleep) | trace_bit(TraceEventId::sched_switch),
            w.sys.nr_cpus());
        node(0).free_pages = node(0).wmark_high - 10;
        wakeup_kswapd(w.sys, 0, {});
        tick();
    }
};

TEST_F(Vmscan, ScaleFactorWidensTheGaps) {
    // A 2 GiB node of two: min 1024 pages (as in watermarks_test), the gap
    // max(1024 / 4, 524288 * 100 / 10000) = 5242 pages at watermark_scale_factor 100.
    const ZoneWatermarks wm = setup_zone_wmarks(8192, 2097152, 4194304, 524288, 4096, 100);
    EXPECT_EQ(wm.min, 1024u);
    EXPECT_EQ(wm.low, 6266u);
    EXPECT_EQ(wm.high, 11508u);
    EXPECT_EQ(wm.promo, 16750u);
    // The knob reaches a System's nodes: node 0 of the preset is 96 GiB = 25165824 pages, so
    // the gap at factor 3000 is 25165824 * 3000 / 10000 = 7549747 pages above min.
    NumaBalancingKnobs k;
    k.watermark_scale_factor = 3000;
    System s(load_preset("cascadelake-2s-pmem"), k, 1);
    const NodeMemory& m = s.mem.nodes[0];
    EXPECT_EQ(m.wmark_low - m.wmark_min, 7549747u);
    EXPECT_EQ(m.wmark_promo - m.wmark_high, 7549747u);
}

TEST_F(Vmscan, InactiveIsLowAgainstTheSquareRootRatio) {
    // 10 GiB on the lists (2621440 pages): inactive_ratio = int_sqrt(10 * 10) = 10.
    node(0).free_pages = node(0).present_pages - 2621440;
    node(0).nr_active_anon = 2400000;  // inactive 221440: 2214400 < 2400000
    EXPECT_TRUE(inactive_is_low(w.sys, 0));
    node(0).nr_active_anon = 2000000;  // inactive 621440: 6214400 >= 2000000
    EXPECT_FALSE(inactive_is_low(w.sys, 0));
    // Under 1 GiB the ratio is 1: 100 inactive against 101 active is low.
    node(0).free_pages = node(0).present_pages - 201;
    node(0).nr_active_anon = 101;
    EXPECT_TRUE(inactive_is_low(w.sys, 0));
    node(0).nr_active_anon = 0;
}

TEST_F(Vmscan, ColdPagesAreDemotedHotOnesLookedAtTwiceThenActivated) {
    map(8, 4);  // pages 0-3 hot, 4-7 in no region: never accessed
    touch_hot();
    // One pass over the 8 pages: the hot ones were accessed once: marked referenced and kept;
    // the cold ones go to node 0's demotion target, node 2.
    EXPECT_EQ(shrink_node(w.sys, 0, 8, 100, ReclaimBy::Kswapd), 4u);
    for (uint64_t i = 0; i < 4; ++i) {
        EXPECT_EQ(vma->frame(i).nid, 0) << i;
        EXPECT_EQ(vma->frame(i).flags, PF_ALLOC | PF_REFERENCED) << i;
    }
    for (uint64_t i = 4; i < 8; ++i)
        EXPECT_EQ(vma->frame(i).nid, 2) << i;
    EXPECT_EQ(c().pgscan_kswapd, 8u);
    EXPECT_EQ(c().pgdemote_kswapd, 4u);
    EXPECT_EQ(c().pgsteal_kswapd, 4u);
    EXPECT_EQ(c().pgdemote_direct, 0u);
    EXPECT_EQ(hot->pages_on(0), 4u);
    // Accessed again by the next pass, and referenced before: activated.
    touch_hot();
    EXPECT_EQ(shrink_node(w.sys, 0, 4, 100, ReclaimBy::Kswapd), 0u);
    EXPECT_EQ(c().pgactivate, 4u);
    EXPECT_EQ(node(0).nr_active_anon, 4u);
    EXPECT_EQ(vma->frame(0).flags, PF_ALLOC | PF_ACTIVE);
    EXPECT_EQ(find_invariant_violation(w.sys), std::nullopt);
    // Now the inactive list is empty against 4 active pages: the next pass deactivates them
    // (anon pages go whether accessed or not), and, not accessed since, they are demoted.
    EXPECT_EQ(shrink_node(w.sys, 0, 4, 100, ReclaimBy::Direct), 4u);
    EXPECT_EQ(c().pgrefill, 4u);
    EXPECT_EQ(c().pgdeactivate, 4u);
    EXPECT_EQ(c().pgdemote_direct, 4u);
    EXPECT_EQ(node(0).nr_active_anon, 0u);
    EXPECT_EQ(hot->pages_on(2), 4u);
    EXPECT_EQ(find_invariant_violation(w.sys), std::nullopt);
}

// A PMD-mapped THP is one folio of 512 pages: activated, every page of it is on the active
// list (PageActive() of a tail reads the head's), so nr_active_anon, the frames' flags and the
// invariant checks agree; deactivated, all go back; unmapped, all leave the count.
TEST_F(Vmscan, AThpIsActivatedAndDeactivatedWhole) {
    map_thp();
    // Accessed before each of two passes: referenced, then activated.
    touch_hot();
    EXPECT_EQ(shrink_node(w.sys, 0, 512, 100, ReclaimBy::Kswapd), 0u);
    for (uint64_t i = 0; i < 512; ++i)
        ASSERT_EQ(vma->frame(i).flags, PF_ALLOC | PF_THP | PF_REFERENCED) << i;
    touch_hot();
    EXPECT_EQ(shrink_node(w.sys, 0, 512, 100, ReclaimBy::Kswapd), 0u);
    EXPECT_EQ(c().pgactivate, 512u);
    EXPECT_EQ(node(0).nr_active_anon, 512u);
    for (uint64_t i = 0; i < 512; ++i)
        ASSERT_EQ(vma->frame(i).flags, PF_ALLOC | PF_THP | PF_ACTIVE) << i;
    EXPECT_EQ(find_invariant_violation(w.sys), std::nullopt);
    // The inactive list is empty against 512 active pages: the next pass deactivates the folio
    // whole and, not accessed since, demotes it whole.
    EXPECT_EQ(shrink_node(w.sys, 0, 512, 100, ReclaimBy::Kswapd), 512u);
    EXPECT_EQ(c().pgdeactivate, 512u);
    EXPECT_EQ(node(0).nr_active_anon, 0u);
    EXPECT_EQ(hot->pages_on(2), 512u);
    EXPECT_EQ(find_invariant_violation(w.sys), std::nullopt);
}

TEST_F(Vmscan, AnActiveThpUnmappedLeavesTheActiveCountWhole) {
    map_thp();
    touch_hot();
    shrink_node(w.sys, 0, 512, 100, ReclaimBy::Kswapd);
    touch_hot();
    shrink_node(w.sys, 0, 512, 100, ReclaimBy::Kswapd);
    ASSERT_EQ(node(0).nr_active_anon, 512u);
    // munmap frees it page by page, each page taking itself off the list it is on.
    do_munmap(w.sys, *vma);
    EXPECT_EQ(node(0).nr_active_anon, 0u);
    EXPECT_EQ(find_invariant_violation(w.sys), std::nullopt);
}

// A THP fault's gfp mask (GFP_TRANSHUGE_LIGHT, defrag=madvise) has no __GFP_KSWAPD_RECLAIM: with
// every node at its low watermark it takes min's reserve without waking a kswapd; a base page
// in the same state wakes them.
TEST_F(Vmscan, AThpFaultWakesNoKswapdABasePageDoes) {
    for (int nid = 0; nid < w.sys.nr_nodes(); ++nid)
        node(nid).free_pages = node(nid).wmark_low;
    Mm& mm = mm_create(w.sys);
    Vma& v = do_mmap(w.sys, mm, 2 * kPages4K.pmd_size(), VM_READ | VM_WRITE | VM_HUGEPAGE, "thp");
    Task& p = w.task_on(0);
    handle_mm_fault(w.sys, p, v, 0, true);
    EXPECT_TRUE(v.pmd_mapped.test(0));
    EXPECT_EQ(v.frame(0).nid, 0);
    EXPECT_EQ(c().mm_vmscan_wakeup_kswapd, 0u);
    EXPECT_EQ(node(0).free_pages, node(0).wmark_low - 512);
    Vma& b = do_mmap(w.sys, mm, kPages4K.size(), VM_READ | VM_WRITE, "base");
    handle_mm_fault(w.sys, p, b, 0, true);
    EXPECT_EQ(b.frame(0).nid, 0);
    // Node 0 (below low now) and the others (at low, not balanced) are woken.
    EXPECT_EQ(c().mm_vmscan_wakeup_kswapd, 4u);
    EXPECT_EQ(c().oom_alloc_failures, 0u);
}

// A THP that finds no node with room is no out-of-memory: the fault falls back to a base page.
TEST_F(Vmscan, AFailedThpIsNoOutOfMemory) {
    for (int nid = 0; nid < w.sys.nr_nodes(); ++nid)
        node(nid).free_pages = node(nid).wmark_min + 1;
    Mm& mm = mm_create(w.sys);
    Vma& v = do_mmap(w.sys, mm, kPages4K.pmd_size(), VM_READ | VM_WRITE | VM_HUGEPAGE, "thp");
    handle_mm_fault(w.sys, w.task_on(0), v, 0, true);
    EXPECT_FALSE(v.pmd_mapped.test(0));
    EXPECT_EQ(v.frame(0).nid, 0);
    EXPECT_EQ(v.present.count(0, v.nr_pages()), 1u);
    EXPECT_EQ(c().oom_alloc_failures, 0u);
}

TEST_F(Vmscan, DemotionGoesToThePreferredTargetThenTheLowerTiersThenNowhere) {
    map(3, 0);
    node(2).free_pages = node(2).wmark_min;  // node 2 full: the fallback, node 3
    EXPECT_EQ(shrink_node(w.sys, 0, 1, 100, ReclaimBy::Kswapd), 1u);
    EXPECT_EQ(vma->frame(0).nid, 3);
    node(3).free_pages = node(3).wmark_min;  // no lower node has room: the page stays, active
    EXPECT_EQ(shrink_node(w.sys, 0, 1, 100, ReclaimBy::Kswapd), 0u);
    EXPECT_EQ(vma->frame(1).nid, 0);
    EXPECT_EQ(vma->frame(1).flags, PF_ALLOC | PF_ACTIVE);
    EXPECT_EQ(c().pgactivate, 1u);
    // The bottom tier has nowhere to demote to, and is not scanned at all.
    EXPECT_FALSE(can_demote(w.sys, 2));
    EXPECT_EQ(shrink_node(w.sys, 3, 100, 100, ReclaimBy::Kswapd), 0u);
    EXPECT_EQ(c().pgscan_kswapd, 2u);
}

TEST_F(Vmscan, NothingIsReclaimedWithDemotionOff) {
    map(4, 0);
    w.sys.knobs.demotion_enabled = false;
    EXPECT_FALSE(can_demote(w.sys, 0));
    EXPECT_EQ(shrink_node(w.sys, 0, 4, 4, ReclaimBy::Kswapd), 0u);
    node(0).free_pages = node(0).wmark_min + 1;
    wakeup_kswapd(w.sys, 0, {});
    EXPECT_EQ(c().mm_vmscan_kswapd_wake, 0u);
    EXPECT_EQ(c().pgscan_kswapd, 0u);
    EXPECT_EQ(vma->frame(0).nid, 0);
}

TEST_F(Vmscan, KswapdRunsToTheHighWatermarkOrPromoInTieringMode) {
    map(100, 0);
    w.sys.knobs.numa_balancing = 1;
    // 10 pages short of the high watermark (free must end above it). The wakeup only wakes
    // kswapd: nothing is reclaimed until it runs, at the next tick, where it reclaims a
    // SWAP_CLUSTER_MAX batch, 32 pages, and stops balanced, in its short nap.
    node(0).free_pages = node(0).wmark_high - 10;
    EXPECT_FALSE(pgdat_balanced(w.sys, 0));
    wakeup_kswapd(w.sys, 0, {});
    EXPECT_EQ(c().mm_vmscan_wakeup_kswapd, 1u);
    EXPECT_EQ(kswapd(0).state, KswapdState::Woken);
    EXPECT_EQ(c().mm_vmscan_kswapd_wake, 0u);
    EXPECT_EQ(c().pgdemote_kswapd, 0u);
    tick();
    EXPECT_EQ(c().mm_vmscan_kswapd_wake, 1u);
    EXPECT_EQ(c().pgdemote_kswapd, 32u);
    EXPECT_EQ(node(0).free_pages, node(0).wmark_high + 22);
    EXPECT_TRUE(pgdat_balanced(w.sys, 0));
    EXPECT_EQ(kswapd(0).state, KswapdState::Napping);
    // Balanced: a wakeup finds nothing to do.
    wakeup_kswapd(w.sys, 0, {});
    EXPECT_EQ(c().mm_vmscan_wakeup_kswapd, 1u);
    // In tiering mode the mark is WMARK_PROMO, one gap higher: the node is short again, and a
    // wakeup in the nap sends kswapd back to work. It demotes what it can, the 68 pages left,
    // in a run that counts no failure; it is still short, so it goes round again at once, and
    // each run from then on finds nothing and fails, with no time spent: after
    // MAX_RECLAIM_RETRIES of them it naps, in the same tick. 1 + 1 + 16 runs in all.
    w.sys.knobs.numa_balancing = 2;
    EXPECT_FALSE(pgdat_balanced(w.sys, 0));
    wakeup_kswapd(w.sys, 0, {});
    EXPECT_EQ(c().mm_vmscan_wakeup_kswapd, 2u);
    tick();
    EXPECT_EQ(c().pgdemote_kswapd, 100u);
    EXPECT_EQ(node(0).kswapd_failures, MAX_RECLAIM_RETRIES);
    EXPECT_EQ(c().mm_vmscan_kswapd_wake, 18u);
    EXPECT_EQ(kswapd(0).state, KswapdState::Napping);
    EXPECT_EQ(c().mm_vmscan_kswapd_sleep, 0u);
    // It has given up: no wakeup reaches it, and when its nap ends it sleeps.
    wakeup_kswapd(w.sys, 0, {});
    EXPECT_EQ(c().mm_vmscan_wakeup_kswapd, 2u);
    for (int i = 0; i < 24; ++i)
        tick();  // 96 ms of its HZ/10 = 100 ms nap
    EXPECT_EQ(kswapd(0).state, KswapdState::Napping);
    tick();
    EXPECT_EQ(kswapd(0).state, KswapdState::Asleep);
    EXPECT_EQ(c().mm_vmscan_kswapd_sleep, 1u);
    EXPECT_EQ(c().mm_vmscan_kswapd_wake, 18u);
}

// Woken below the low watermark, kswapd works over several ticks as a task on a CPU of its
// node, and stops as soon as the node is above its high watermark.
TEST_F(Vmscan, KswapdWorksInBatchesOverTicksOnItsNodeAndStopsAtHigh) {
    // Node 0's gap between the marks is 96 GiB * 10 / 10000 = 25165 pages; 40000 cold pages
    // to demote are more than kswapd needs.
    map(40000, 0);
    w.sys.knobs.numa_balancing = 1;
    node(0).free_pages = node(0).wmark_low - 1;
    const uint64_t need = node(0).wmark_high + 1 - node(0).free_pages;  // 25167 pages
    // Woken from CPU 0 at time 0: it was asleep on node 0's first CPU, CPU 0, idle, and runs
    // there from time 0.
    wakeup_kswapd(w.sys, 0, {});
    EXPECT_EQ(w.sys.kswapd[0]->state, TaskState::Sleeping);
    tick();
    const Task& k = *w.sys.kswapd[0];
    EXPECT_EQ(k.cpu, 0);
    EXPECT_EQ(w.sys.rqs[0].curr, &k);
    // The whole tick is its own: 4 ms of system time (its context switch in, then batches),
    // and at most one batch's time still to pay. A batch of 32 demotions costs far less than
    // a tick, and the work is far more than a tick, so the node is not balanced yet.
    EXPECT_EQ(k.stime, TICK_NSEC);
    EXPECT_EQ(c().kswapd_stime_ns[0], static_cast<uint64_t>(TICK_NSEC));
    EXPECT_GT(k.kernel_debt, 0);
    EXPECT_LT(k.kernel_debt, TICK_NSEC);
    EXPECT_GT(c().pgdemote_kswapd, 0u);
    EXPECT_LT(c().pgdemote_kswapd, need);
    EXPECT_FALSE(pgdat_balanced(w.sys, 0));
    EXPECT_EQ(kswapd(0).state, KswapdState::Running);
    int ticks = 1;
    while (kswapd(0).state == KswapdState::Running && ticks < 1000) {
        tick();
        ++ticks;
    }
    EXPECT_GT(ticks, 2);
    EXPECT_EQ(kswapd(0).state, KswapdState::Napping);
    // It left the CPU for its nap: asleep, and CPU 0 idle.
    EXPECT_EQ(k.state, TaskState::Sleeping);
    EXPECT_EQ(w.sys.rqs[0].curr, nullptr);
    EXPECT_EQ(w.sys.rqs[0].nr_running, 0u);
    // It stopped at the batch that took the node above high: within 32 pages of the mark.
    EXPECT_TRUE(pgdat_balanced(w.sys, 0));
    EXPECT_LE(node(0).free_pages, node(0).wmark_high + SWAP_CLUSTER_MAX);
    EXPECT_EQ(c().pgdemote_kswapd, node(0).free_pages - (node(0).wmark_low - 1));
    EXPECT_EQ(c().mm_vmscan_kswapd_wake, 1u);
    EXPECT_EQ(node(0).kswapd_failures, 0);
    // Its time is kswapd0's system time, all of it paid before it slept.
    EXPECT_EQ(k.kernel_debt, 0);
    EXPECT_EQ(static_cast<uint64_t>(k.stime), c().kswapd_stime_ns[0]);
    EXPECT_EQ(k.sum_exec_runtime, k.stime);
}

TEST_F(Vmscan, DirectReclaimDemotesAndAnAllocationBeyondEveryNodeIsOutOfMemory) {
    map(2, 0);
    for (int nid = 0; nid < w.sys.nr_nodes(); ++nid)
        node(nid).free_pages = node(nid).wmark_min;
    node(2).free_pages = node(2).wmark_high * 2;
    // Node 0 is at min: a page for it alone is not there, until direct reclaim demotes its two
    // cold pages to node 2 (a SWAP_CLUSTER_MAX target, of which only 2 pages exist).
    EXPECT_EQ(alloc_demote_page(w.sys, 0, uint64_t{1} << 0, 0, 0), -1);
    EXPECT_EQ(try_to_free_pages(w.sys, 0, uint64_t{1} << 0, {}), 2u);
    EXPECT_EQ(c().mm_vmscan_direct_reclaim_begin, 1u);
    EXPECT_EQ(c().pgdemote_direct, 2u);
    EXPECT_EQ(c().pgscan_direct, 2u);
    EXPECT_EQ(vma->frame(0).nid, 2);
    EXPECT_EQ(node(0).free_pages, node(0).wmark_min + 2);
    // Every node at min: no node above low wakes every kswapd of the zonelist (nothing left to
    // demote), none above min reclaims directly, which frees nothing: out of memory.
    node(0).free_pages = node(0).wmark_min;
    node(2).free_pages = node(2).wmark_min;
    EXPECT_EQ(alloc_pages_node(w.sys, 0, 0, 0), -1);
    EXPECT_EQ(c().mm_vmscan_direct_reclaim_begin, 2u);
    EXPECT_EQ(c().oom_alloc_failures, 1u);
    EXPECT_EQ(c().pgdemote_direct, 2u);
}

TEST_F(Vmscan, TheWalkStepsOverOtherNodesAndOtherListsPagesAcrossWords) {
    // 200 cold pages on node 0 (four words of the present bitmap), all but 5, 70, 130 and 199
    // demoted to node 2 by hand; 70 is active. A pass of 2 pages meets 5 and 130 (stepping
    // over node 2's pages and the active 70) and demotes them; the next meets 199 only, and
    // the inactive list, now empty against 70, is refilled from the active one: 70 goes too.
    map(200, 0);
    for (uint64_t i = 0; i < 200; ++i) {
        if (i == 5 || i == 70 || i == 130 || i == 199) continue;
        ASSERT_EQ(alloc_demote_page(w.sys, 2, uint64_t{1} << 2, 0, 0), 2);
        migrate_demote_folio(w.sys, *vma, i, 1, 2);
    }
    vma->frame(70).flags |= PF_ACTIVE;
    node(0).nr_active_anon = 1;
    EXPECT_EQ(find_invariant_violation(w.sys), std::nullopt);
    EXPECT_EQ(shrink_node(w.sys, 0, 2, 100, ReclaimBy::Kswapd), 2u);
    EXPECT_EQ(vma->frame(5).nid, 2);
    EXPECT_EQ(vma->frame(130).nid, 2);
    EXPECT_EQ(vma->frame(199).nid, 0);
    EXPECT_EQ(vma->frame(70).nid, 0);
    EXPECT_EQ(c().pgscan_kswapd, 2u);
    EXPECT_EQ(c().pgrefill, 0u);
    EXPECT_EQ(shrink_node(w.sys, 0, 2, 100, ReclaimBy::Kswapd), 2u);
    EXPECT_EQ(vma->frame(199).nid, 2);
    EXPECT_EQ(vma->frame(70).nid, 2);
    EXPECT_EQ(c().pgscan_kswapd, 4u);
    EXPECT_EQ(c().pgrefill, 1u);
    EXPECT_EQ(node(0).nr_active_anon, 0u);
    EXPECT_EQ(vma->pages_on(0), 0u);
    EXPECT_EQ(find_invariant_violation(w.sys), std::nullopt);
}

// The events reclaim fires, as "name: fields" lines (kernel/trace_print.h).

TEST_F(Vmscan, KswapdFiresItsEventsInItsOwnContext) {
    map(40, 0);
    TraceLines sink;
    // Every event but the scheduler's (KswapdSleepsWhenBalancedAndItsTimeIsItsOwn has those).
    const TraceEventMask sched = trace_bit(TraceEventId::sched_switch) |
                                 trace_bit(TraceEventId::sched_wakeup) |
                                 trace_bit(TraceEventId::sched_migrate_task);
    w.sys.tracer.attach(&sink, kEveryTraceEvent & ~sched, w.sys.nr_cpus());
    // 10 pages short of the high watermark: once it runs kswapd takes a batch of 32 cold pages,
    // demotes them in one migrate_pages() call, and is balanced (it naps: no sleep yet).
    node(0).free_pages = node(0).wmark_high - 10;
    wakeup_kswapd(w.sys, 0, {0, 0, TraceGfp::HighuserMovableZero});
    tick();
    w.sys.tracer.flush();
    const std::vector<std::string> want = {
        "mm_vmscan_wakeup_kswapd: nid=0 order=0 gfp_flags=GFP_HIGHUSER_MOVABLE|__GFP_ZERO",
        "mm_vmscan_kswapd_wake: nid=0 order=0",
        "mm_migrate_pages_start: mode=MIGRATE_ASYNC reason=demotion",
        "mm_migrate_pages: nr_succeeded=32 nr_failed=0 nr_thp_succeeded=0 nr_thp_failed=0 "
        "nr_thp_split=0 mode=MIGRATE_ASYNC reason=demotion",
        "mm_vmscan_lru_shrink_inactive: nid=0 nr_scanned=32 nr_reclaimed=32 nr_dirty=0 "
        "nr_writeback=0 nr_congested=0 nr_immediate=0 nr_activate_anon=0 nr_activate_file=0 "
        "nr_ref_keep=0 nr_unmap_fail=0 priority=12 flags=RECLAIM_WB_ANON|RECLAIM_WB_ASYNC"};
    EXPECT_EQ(sink.lines, want);
    // The waker is the idle CPU 0's context; kswapd0 runs on CPU 0 (where it slept, idle).
    ASSERT_EQ(sink.contexts.size(), 5u);
    EXPECT_EQ(sink.contexts[0], "swapper/0-0");
    for (size_t i = 1; i < 5; ++i)
        EXPECT_EQ(sink.contexts[i], "kswapd0-100");
    // Each event once per counter.
    EXPECT_EQ(c().mm_vmscan_wakeup_kswapd, 1u);
    EXPECT_EQ(c().mm_vmscan_kswapd_wake, 1u);
    EXPECT_EQ(c().mm_vmscan_kswapd_sleep, 0u);
    EXPECT_EQ(c().mm_vmscan_lru_shrink_inactive, 1u);
    EXPECT_EQ(c().mm_migrate_pages, 1u);
    w.sys.tracer.attach(nullptr, 0, 0);
}

// kswapd's times, worked by hand: woken at 0 on the idle CPU 0, it runs from 0 (its context
// switch in, then one batch), naps from the batch's end t0, is woken by the nap's timer at
// t0 + 100 ms, switches in again and, balanced, sleeps at t0 + 100 ms + a context switch.
TEST_F(Vmscan, KswapdSleepsWhenBalancedAndItsTimeIsItsOwn) {
    TraceLines sink;
    first_kswapd_run_traced(sink);
    // 32 folios scanned and demoted: 32 scans and 32 copies, all kswapd's time, none a task's.
    const double scan = w.sys.cost.k().RECLAIM_SCAN_FOLIO_NS;
    const auto cs = static_cast<Nanos>(w.sys.cost.k().CONTEXT_SWITCH_NS);
    const Task& k = *w.sys.kswapd[0];
    EXPECT_EQ(c().pgscan_kswapd, 32u);
    EXPECT_GT(k.stime, cs + static_cast<Nanos>(32 * (scan + 1000)));
    EXPECT_EQ(static_cast<uint64_t>(k.stime), c().kswapd_stime_ns[0]);
    EXPECT_EQ(c().kswapd_stime_ns[1], 0u);
    EXPECT_EQ(w.sys.rqs[0].kthread_debt, 0);
    // It ran from 0 without a break, so its nap began at t0 = its system time.
    const Nanos t0 = k.stime;
    EXPECT_EQ(k.state, TaskState::Sleeping);
    EXPECT_EQ(kswapd(0).state, KswapdState::Napping);
    mmtest::run_kswapd_until(w.sys, t0 + 100 * NSEC_PER_MSEC - 1);
    EXPECT_EQ(kswapd(0).state, KswapdState::Napping);
    EXPECT_EQ(c().mm_vmscan_kswapd_sleep, 0u);
    // Switched in at t0 + 100 ms, it pays its context switch first; its next step, the check
    // that sends it to sleep, is at t0 + 100 ms + cs, which a run to that time does not reach.
    mmtest::run_kswapd_until(w.sys, t0 + 100 * NSEC_PER_MSEC + cs);
    EXPECT_EQ(kswapd(0).state, KswapdState::Napping);
    mmtest::run_kswapd_until(w.sys, t0 + 100 * NSEC_PER_MSEC + cs + 1);
    EXPECT_EQ(kswapd(0).state, KswapdState::Asleep);
    EXPECT_EQ(c().mm_vmscan_kswapd_sleep, 1u);
    EXPECT_EQ(k.stime, t0 + cs);
    w.sys.tracer.flush();
    // sched_switch in at 0, out at t0, in at t0 + 100 ms; then its sleep, and out.
    ASSERT_EQ(sink.lines.size(), 5u);
    EXPECT_EQ(sink.lines[3], "mm_vmscan_kswapd_sleep: nid=0");
    EXPECT_EQ(sink.stamps[0], 0);
    EXPECT_EQ(sink.stamps[1], t0);
    EXPECT_EQ(sink.stamps[2], t0 + 100 * NSEC_PER_MSEC);
    EXPECT_EQ(sink.stamps[3], t0 + 100 * NSEC_PER_MSEC + cs);
    EXPECT_EQ(sink.stamps[4], t0 + 100 * NSEC_PER_MSEC + cs);
    EXPECT_NE(sink.lines[0].find("next_comm=kswapd0 next_pid=100"), std::string::npos)
        << sink.lines[0];
    EXPECT_NE(sink.lines[1].find("prev_comm=kswapd0 prev_pid=100 prev_prio=120 prev_state=S"),
              std::string::npos)
        << sink.lines[1];
    w.sys.tracer.attach(nullptr, 0, 0);
}

// A wakeup in the nap, worked by hand: kswapd naps from t0 (as above), the node falls short
// again, and a wakeup at 4 ms (CPU 0's clock after the first tick) switches it in at exactly
// 4 ms for a second run, which ends in a second nap from t1. The first nap's timer, at
// t0 + 100 ms, belongs to the sleep that wakeup ended and does nothing; the second's, at
// t1 + 100 ms, switches it in and it sleeps a context switch later.
TEST_F(Vmscan, AWakeupEndsTheNapAndTheNapsOwnTimerIsThenStale) {
    TraceLines sink;
    first_kswapd_run_traced(sink);
    const auto cs = static_cast<Nanos>(w.sys.cost.k().CONTEXT_SWITCH_NS);
    const Task& k = kswapd_task(w.sys, 0);
    const Nanos t0 = k.stime;
    EXPECT_EQ(kswapd(0).state, KswapdState::Napping);
    node(0).free_pages = node(0).wmark_high - 10;
    wakeup_kswapd(w.sys, 0, {});
    EXPECT_EQ(c().mm_vmscan_wakeup_kswapd, 2u);
    tick();
    EXPECT_EQ(c().mm_vmscan_kswapd_wake, 2u);
    EXPECT_EQ(c().pgdemote_kswapd, 64u);
    EXPECT_EQ(kswapd(0).state, KswapdState::Napping);
    // It ran from 4 ms without a break: its second nap began at t1.
    const Nanos t1 = TICK_NSEC + k.stime - t0;
    mmtest::run_kswapd_until(w.sys, t0 + 100 * NSEC_PER_MSEC + cs);
    EXPECT_EQ(kswapd(0).state, KswapdState::Napping);
    EXPECT_EQ(k.state, TaskState::Sleeping);
    EXPECT_EQ(c().mm_vmscan_kswapd_sleep, 0u);
    mmtest::run_kswapd_until(w.sys, t1 + 100 * NSEC_PER_MSEC + cs + 1);
    EXPECT_EQ(kswapd(0).state, KswapdState::Asleep);
    EXPECT_EQ(c().mm_vmscan_kswapd_sleep, 1u);
    w.sys.tracer.flush();
    const std::vector<Nanos> want = {0,
                                     t0,
                                     TICK_NSEC,
                                     t1,
                                     t1 + 100 * NSEC_PER_MSEC,
                                     t1 + 100 * NSEC_PER_MSEC + cs,
                                     t1 + 100 * NSEC_PER_MSEC + cs};
    EXPECT_EQ(sink.stamps, want);
    w.sys.tracer.attach(nullptr, 0, 0);
}

TEST_F(Vmscan, AScanThatDemotesNothingCostsItsFoliosOnly) {
    map(4, 0);
    // The lower tier is full: every cold page fails to move and is activated, and the active
    // list is aged again; kswapd pays RECLAIM_SCAN_FOLIO_NS for each folio of either list.
    node(2).free_pages = 0;
    node(3).free_pages = 0;
    node(0).free_pages = node(0).wmark_high - 10;
    wakeup_kswapd(w.sys, 0, {});
    tick();
    EXPECT_EQ(c().pgdemote_kswapd, 0u);
    EXPECT_GT(c().pgscan_kswapd, 0u);
    const auto want = static_cast<int64_t>(static_cast<double>(c().pgscan_kswapd + c().pgrefill) *
                                           w.sys.cost.k().RECLAIM_SCAN_FOLIO_NS);
    // ... and its context switch in.
    const auto cs = static_cast<int64_t>(w.sys.cost.k().CONTEXT_SWITCH_NS);
    EXPECT_EQ(c().kswapd_stime_ns[0], static_cast<uint64_t>(want + cs));
    EXPECT_EQ(w.sys.kswapd[0]->stime, want + cs);
    ASSERT_GE(w.sys.kswapd.size(), 1u);
    EXPECT_EQ(w.sys.kswapd[0]->comm, "kswapd0");
    EXPECT_EQ(w.sys.kswapd[0]->pid, 100);
    // A failed demotion is still a migrate_pages() call, with the pages failed.
    EXPECT_GT(c().mm_migrate_pages, 0u);
}

TEST_F(Vmscan, DirectReclaimIsTheAllocatingTasksSystemTime) {
    map(2, 0);
    Task& p = w.task_on(0);
    w.sys.rqs[0].curr = &p;
    for (int nid = 0; nid < w.sys.nr_nodes(); ++nid)
        node(nid).free_pages = node(nid).wmark_min;
    node(2).free_pages = node(2).wmark_high * 2;
    TraceLines sink;
    w.sys.tracer.attach(&sink, kEveryTraceEvent, w.sys.nr_cpus());
    EXPECT_EQ(try_to_free_pages(w.sys, 0, uint64_t{1} << 0, {0, 0, TraceGfp::HighuserMovableZero}),
              2u);
    w.sys.tracer.flush();
    ASSERT_GE(sink.lines.size(), 2u);
    EXPECT_EQ(sink.lines.front(),
              "mm_vmscan_direct_reclaim_begin: order=0 gfp_flags=GFP_HIGHUSER_MOVABLE|__GFP_ZERO");
    EXPECT_EQ(sink.lines.back(), "mm_vmscan_direct_reclaim_end: nr_reclaimed=2");
    // The allocating task's context: its (empty) comm and pid.
    std::string want = "-";
    want += std::to_string(p.pid);
    for (const std::string& ctx : sink.contexts)
        EXPECT_EQ(ctx, want);
    EXPECT_EQ(c().mm_vmscan_direct_reclaim_end, 1u);
    // Two folios scanned and copied, each at least its scan and the migration's fixed work.
    const double floor =
        2 * (w.sys.cost.k().RECLAIM_SCAN_FOLIO_NS + w.sys.cost.k().MIGRATE_FOLIO_OVERHEAD_NS);
    EXPECT_GE(static_cast<double>(p.kernel_debt), floor);
    EXPECT_EQ(static_cast<uint64_t>(p.kernel_debt), c().direct_reclaim_ns);
    EXPECT_EQ(w.sys.rqs[0].kthread_debt, 0);
    w.sys.tracer.attach(nullptr, 0, 0);
    w.sys.rqs[0].curr = nullptr;
}

// With --latency, a direct reclaim is one event of the allocating task's direct_reclaim
// histogram, of the time charged to it.
TEST_F(Vmscan, DirectReclaimIsOneLatencyEventOfItsTime) {
    map(2, 0);
    Task& p = w.task_on(0);
    w.sys.rqs[0].curr = &p;
    LatencyRecorder rec;
    w.sys.latency = &rec;
    for (int nid = 0; nid < w.sys.nr_nodes(); ++nid)
        node(nid).free_pages = node(nid).wmark_min;
    node(2).free_pages = node(2).wmark_high * 2;
    EXPECT_EQ(try_to_free_pages(w.sys, 0, uint64_t{1} << 0, {0, 0, TraceGfp::Kernel}), 2u);
    const LatencyHists* h = rec.of(p.index);
    ASSERT_NE(h, nullptr);
    const auto k = static_cast<size_t>(LatencyKind::DirectReclaim);
    EXPECT_EQ(h->usecs[k].count(), 1u);
    EXPECT_EQ(h->sum_ns[k], c().direct_reclaim_ns);
    EXPECT_EQ(static_cast<uint64_t>(p.kernel_debt), c().direct_reclaim_ns);
    EXPECT_EQ(latency_kind_name(LatencyKind::DirectReclaim), "direct_reclaim");
    w.sys.latency = nullptr;
    w.sys.rqs[0].curr = nullptr;
}

}  // namespace
}  // namespace numasim
