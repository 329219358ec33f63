// The kernel's costs beyond the per-operation constants, on hand-worked cases: page clearing at
// the memory system's rate, TLB shootdowns over mm_cpumask, fault-lock contention, migration
// waits and cache refills after a move.
#include <gtest/gtest.h>

#include <cmath>
#include <initializer_list>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cost/constants.h"
#include "cost/cost_model.h"
#include "engine/process.h"
#include "kernel/system.h"
#include "machine/presets.h"
#include "mm/fault.h"
#include "mm/migrate_cost.h"
#include "mm/tlb.h"
#include "numab/numab.h"

namespace numasim {
namespace {

NumaBalancingKnobs knobs(bool balancing = false) {
    NumaBalancingKnobs k;
    k.numa_balancing = balancing ? 1 : 0;
    return k;
}

// Tasks owned by the System (the fault-lock and TLB paths charge sys.tasks), placed by hand: a
// running task is switched to as schedule() would (switch_mm_irqs_off).
struct KWorld {
    explicit KWorld(const std::string& preset, NumaBalancingKnobs k = knobs())
        : sys(load_preset(preset), k, 1) {}

    Task& thread(Mm& mm, int cpu, bool running = true) {
        sys.tasks.push_back(std::make_unique<Task>());
        Task& p = *sys.tasks.back();
        p.index = static_cast<int>(sys.tasks.size()) - 1;
        p.pid = 3000 + p.index;
        p.mm = &mm;
        p.cpu = cpu;
        mm.tasks.push_back(&p);
        ++mm.mm_users;
        if (running) {
            p.state = TaskState::Running;
            sys.rqs[cpu].curr = &p;
            switch_mm_irqs_off(sys, cpu, &mm);
        }
        return p;
    }
    // A stream over `r` at `rate` GB/s for p (what its phase touches: Task::touches).
    void stream(Task& p, Region& r, Pattern pat, double rate = 1.0) {
        auto& m = mixes[p.index];
        if (!m) m = std::make_unique<Mix>();
        m->streams.push_back(AccessStream{&r, pat, 1.0, 0.0});
        m->mix = AccessMix{m->streams, rate, 0};
        p.touches = &m->mix;
    }
    void clear_streams(Task& p) {
        mixes.erase(p.index);
        p.touches = nullptr;
    }
    // The tick's cost-model update: what runs on each CPU, all of it in user mode.
    void update() {
        std::vector<CpuRunning> running(static_cast<size_t>(sys.nr_cpus()));
        for (const Rq& rq : sys.rqs)
            if (rq.curr) running[rq.cpu] = CpuRunning{rq.curr->touches, rq.curr->index, 1.0};
        sys.cost.update(running, sys.now);
    }
    // The refill p pays moving from src to dst, as move_task() asks for it.
    double refill(const Task& p, int src, int dst) {
        std::vector<const AccessMix*> mates;
        for (int c : sys.sched.cpu_smt_mask(dst))
            if (const Task* t = sys.rqs[c].curr; c != dst && t && t != &p && t->touches)
                mates.push_back(t->touches);
        return sys.cost.move_refill_ns(p.touches, p.index, src, dst, mates);
    }
    Vma& anon(Mm& mm, uint64_t pages) {
        return do_mmap(sys, mm, pages * kPages4K.size(), VM_READ | VM_WRITE | VM_MAYWRITE, "anon");
    }
    // A parent on `parent_cpu` that has written every page of a `pages`-page anonymous VMA
    // (region "r" over all of it, and the `extra` regions), then forked a child running on
    // `child_cpu` whose mm maps the same pages copy-on-write.
    struct ExtraRegion {
        uint64_t first, count;
        const char* name;
    };
    struct Forked {
        Vma& vma;
        Task& parent;
        Mm& child_mm;
        Task& child;
    };
    Forked fork_after_writes(uint64_t pages, int parent_cpu, int child_cpu,
                             std::initializer_list<ExtraRegion> extra = {}) {
        Mm& mm = mm_create(sys);
        Vma& vma = anon(mm, pages);
        add_region(sys, vma, 0, pages, "r");
        for (const ExtraRegion& e : extra)
            add_region(sys, vma, e.first, e.count, e.name);
        Task& parent = thread(mm, parent_cpu);
        for (uint64_t i = 0; i < pages; ++i)
            handle_mm_fault(sys, parent, vma, i, true);
        Mm& cmm = dup_mm(sys, mm);
        return {vma, parent, cmm, thread(cmm, child_cpu)};
    }

    struct Mix {
        std::vector<AccessStream> streams;
        AccessMix mix;
    };
    System sys;
    std::map<int, std::unique_ptr<Mix>> mixes;  // by task index
};

// --- first-touch clearing ---

TEST(ClearPage, StreamsAtOneCoresRateAndLoadsTheNode) {
    KWorld w("tiny-2n");
    CostModel& c = w.sys.cost;
    // One core: 10 lines in flight at 90 ns = 7.11 GB/s: 4096 B in 576 ns; to node 0 from a CPU
    // of node 1 at 140 ns: 896 ns.
    EXPECT_NEAR(c.clear_ns(0, 0, 4096), 576.0, 1e-9);
    EXPECT_NEAR(c.clear_ns(1, 0, 4096), 896.0, 1e-9);
    // 40 MB cleared during a 4 ms tick is 10 GB/s of background load on node 0 at the next
    // solve (plus the two pages above); the link carried the remote page.
    c.clear_ns(0, 0, 40e6);
    w.sys.now = 4'000'000;
    w.update();
    EXPECT_NEAR(c.node_load_gbs(0), (40e6 + 2 * 4096) / 4e6, 1e-9);
    EXPECT_NEAR(c.link_load_gbs(1, 0), 4096 / 4e6, 1e-12);
    // That load queues the next clear: 4096 * (90 + Q) / 640.
    const double q = c.node_delay_ns(0);
    EXPECT_GT(q, 1.5);  // 10 GB/s of 60: 9 * 0.167 / 0.833 = 1.8 ns
    EXPECT_NEAR(c.clear_ns(0, 0, 4096), 4096 * (90 + q) / 640, 1e-9);
}

TEST(ClearPage, RepeatedTrafficIsPageByPageTraffic) {
    // A run of clears or copies loads the next solve with the sums that as many single calls
    // reach, bit for bit: each resource's sum takes the same additions in the same order.
    // 4099.3 is not a double, so 1237 additions of it round differently from a product.
    KWorld once("tiny-4n"), each("tiny-4n");
    const uint64_t n = 1237;
    const double bytes = 4099.3;
    once.sys.cost.clear_ns(0, 3, bytes, n);
    once.sys.cost.copy_ns(bytes, 1, 2, n);
    once.sys.cost.copy_ns(bytes, 2, 2, n);
    for (uint64_t i = 0; i < n; ++i) {
        each.sys.cost.clear_ns(0, 3, bytes);
        each.sys.cost.copy_ns(bytes, 1, 2);
        each.sys.cost.copy_ns(bytes, 2, 2);
    }
    for (KWorld* w : {&once, &each}) {
        w->sys.now = 4'000'000;
        w->update();
    }
    const BandwidthSolver& a = once.sys.cost.solver();
    const BandwidthSolver& b = each.sys.cost.solver();
    ASSERT_EQ(a.nr_resources(), b.nr_resources());
    bool loaded = false;
    for (int r = 0; r < a.nr_resources(); ++r) {
        EXPECT_EQ(a.load(r), b.load(r)) << "resource " << r;
        loaded |= a.load(r) > 0 && r >= 4;  // some link carried the remote traffic
    }
    EXPECT_TRUE(loaded);
    EXPECT_TRUE(a.same_result(b));
}

TEST(ClearPage, FirstTouchFaultPaysTheClear) {
    KWorld w("tiny-2n");
    Mm& mm = mm_create(w.sys);
    Vma& vma = w.anon(mm, 16);
    Task& p = w.thread(mm, 3);
    // 1700 cycles at 2.5 GHz = 680 ns, plus the 4 KiB clear on node 1: 576 ns.
    EXPECT_NEAR(handle_mm_fault(w.sys, p, vma, 5, true), 680.0 + 576.0, 1e-9);
}

// --- TLB shootdowns ---

TEST(TlbShootdown, CostGrowsWithTheCpusInMmCpumask) {
    // tiny-4n: one CPU per node; a remote line transfer costs the 140 ns remote latency.
    KWorld w("tiny-4n");
    Mm& mm = mm_create(w.sys);
    Task* t[4];
    for (int cpu = 0; cpu < 4; ++cpu)
        t[cpu] = &w.thread(mm, cpu);
    EXPECT_EQ(mm.cpumask.count(0, 4), 4u);
    // From CPU 0: 2 us + 3 targets x 2 transfers x 140 ns = 2840 ns; each target's task pays
    // the 1 us interrupt, the initiator's does not.
    EXPECT_NEAR(flush_tlb_mm_range(w.sys, mm, 0), 2840.0, 1e-9);
    EXPECT_EQ(t[0]->kernel_debt, 0);
    for (int cpu = 1; cpu < 4; ++cpu)
        EXPECT_EQ(t[cpu]->kernel_debt, 1000);
    EXPECT_EQ(w.sys.cost.stats().tlb_shootdowns, 1u);
    EXPECT_EQ(w.sys.cost.stats().tlb_ipis, 3u);
    // Another process takes CPU 3: switch_mm leaves mm's cpumask, so one target fewer.
    Mm& other = mm_create(w.sys);
    w.thread(other, 3);
    EXPECT_FALSE(mm.cpumask.test(3));
    EXPECT_TRUE(other.cpumask.test(3));
    EXPECT_NEAR(flush_tlb_mm_range(w.sys, mm, 0), 2560.0, 1e-9);
    // A process that only ever ran on the flushing CPU sends no IPI.
    EXPECT_DOUBLE_EQ(flush_tlb_mm_range(w.sys, other, 3), 0.0);
}

TEST(TlbShootdown, BatchedFlushReachesEachCpuOnce) {
    KWorld w("tiny-4n");
    Mm& a = mm_create(w.sys);
    Mm& b = mm_create(w.sys);
    w.thread(a, 1);
    w.thread(b, 2);
    // One shootdown to CPUs 1 and 2 from CPU 0: 2000 + 2 x 2 x 140.
    EXPECT_NEAR(flush_tlb_batched(w.sys, {&a, &b}, 0), 2560.0, 1e-9);
    EXPECT_EQ(w.sys.cost.stats().tlb_shootdowns, 1u);
}

TEST(TlbShootdown, ChangeProtNumaFlushesOncePerCall) {
    // tiny-2n, a process with threads on CPU 0 (node 0) and CPU 2 (node 1): 64 present PTEs
    // made PROT_NONE cost 64 x 7 cycles = 179.2 ns, and the flush 2000 + 2 x 140 = 2280 ns.
    KWorld w("tiny-2n", knobs(true));
    Mm& mm = mm_create(w.sys);
    Vma& vma = w.anon(mm, 64);
    Task& p = w.thread(mm, 0);
    Task& q = w.thread(mm, 2);
    for (uint64_t i = 0; i < 64; ++i)
        handle_mm_fault(w.sys, p, vma, i, true);
    const Nanos before = q.kernel_debt;
    double ns = 0;
    EXPECT_EQ(change_prot_numa(w.sys, p, vma, vma.start, vma.end, ns), 64u);
    EXPECT_NEAR(ns, 64 * 7 / 2.5 + 2280.0, 1e-9);
    EXPECT_EQ(q.kernel_debt - before, 1000);
    // Nothing left to change: no PTE updated, no flush (64 walked PTEs at 2 cycles).
    double again = 0;
    EXPECT_EQ(change_prot_numa(w.sys, p, vma, vma.start, vma.end, again), 0u);
    EXPECT_NEAR(again, 64 * 2 / 2.5, 1e-9);
}

// --- fault locks ---

struct Locks : ::testing::Test {
    // tiny-2n: a transfer within a node is 2 x 20 ns (LLC), across nodes 140 ns. Faults from
    // CPU 0 and CPU 2 in equal numbers: the average transfer is (40 + 140 + 140 + 40) / 4 = 90.
    KWorld w{"tiny-2n"};
    Mm& mm = mm_create(w.sys);
    Vma& vma = w.anon(mm, 1 << 17);
    Task& a = w.thread(mm, 0);
    Task& b = w.thread(mm, 2);
    void fault(Task& t, const Vma& v, uint64_t first, uint64_t n) {
        for (uint64_t i = first; i < first + n; ++i)
            w.sys.fault_locks.note(w.sys, t, v, i);
    }
    // The tick 4 ms after the last one charges the faults of the interval.
    void settle() {
        w.sys.now += 4'000'000;
        w.sys.fault_locks.settle(w.sys);
    }
};

TEST_F(Locks, AddressSpaceLockLineBouncesBetweenFaulters) {
    // 1000 faults each in different page tables of one VMA: only the lock word is shared.
    // h = 2 x 90 = 180 ns; the others' utilisation U = 180 x 1000 / 4 ms = 0.045, so the wait is
    // 180 x 0.045 / (2 x 0.955) = 4.2408 ns, plus the transfer whenever the other held it last,
    // 180 x 1000 / 2000 = 90 ns: 94.2408 ns per fault.
    fault(a, vma, 0, 1000);
    fault(b, vma, 1024, 1000);
    settle();
    const double per_fault = 180 * 0.045 / (2 * 0.955) + 90;
    EXPECT_EQ(a.kernel_debt, std::llround(1000 * per_fault));
    EXPECT_EQ(b.kernel_debt, std::llround(1000 * per_fault));
}

TEST_F(Locks, SamePageTableAlsoSharesThePteLock) {
    // 100 faults each in the first 2 MiB: lock word 180 x 0.0045 / (2 x 0.9955) + 90, and the
    // PTE lock with h = 90 + 200 cycles (80 ns) = 170: 170 x 0.00425 / (2 x 0.99575) + 45.
    fault(a, vma, 0, 100);
    fault(b, vma, 100, 100);
    settle();
    const double as = 180 * 0.0045 / (2 * 0.9955) + 90;
    const double ptl = 170 * 0.00425 / (2 * 0.99575) + 45;
    EXPECT_EQ(a.kernel_debt, std::llround(100 * (as + ptl)));
}

TEST_F(Locks, SaturatedLineMakesEachFaultWaitForEveryOther) {
    // 40000 faults each: U = 180 x 40000 / 4 ms = 1.8 >= 1, so each fault waits for the other
    // faulting task's hold (m - 1 = 1): 180 + 90 = 270 ns per fault.
    fault(a, vma, 0, 40000);
    fault(b, vma, 65536, 40000);
    settle();
    EXPECT_EQ(a.kernel_debt, 40000 * 270);
}

TEST_F(Locks, AloneNoContention) {
    fault(a, vma, 0, 5000);
    settle();
    EXPECT_EQ(a.kernel_debt, 0);
    EXPECT_DOUBLE_EQ(w.sys.cost.stats().fault_lock_wait_ns, 0.0);
}

TEST_F(Locks, PerVmaLockSeparatesFaultsInDifferentVmas) {
    Vma& other = w.anon(mm, 1 << 10);
    w.sys.knobs.per_vma_lock = true;  // v6.4+: each VMA has its own lock word
    fault(a, vma, 0, 1000);
    fault(b, other, 0, 1000);
    settle();
    EXPECT_EQ(a.kernel_debt, 0);
    w.sys.knobs.per_vma_lock = false;  // mmap_lock: one word for the whole mm
    fault(a, vma, 0, 1000);
    fault(b, other, 0, 1000);
    settle();
    EXPECT_EQ(a.kernel_debt, std::llround(1000 * (180 * 0.045 / (2 * 0.955) + 90)));
}

// The waits depend only on the faults per lock word, task and node: a run noted with a count,
// or faults noted in another order, are the same faults.
TEST(LocksCounted, CountedAndInterleavedFaultsAreTheSameFaults) {
    auto debts = [](bool counted) {
        KWorld w{"tiny-2n"};
        Mm& mm = mm_create(w.sys);
        Vma& vma = w.anon(mm, 1 << 12);
        Task& a = w.thread(mm, 0);
        Task& b = w.thread(mm, 2);
        Task& c = w.thread(mm, 1);
        if (counted) {
            w.sys.fault_locks.note(w.sys, a, vma, 0, 300);
            w.sys.fault_locks.note(w.sys, b, vma, 300, 200);
            w.sys.fault_locks.note(w.sys, c, vma, 600, 50);
        } else {
            for (uint64_t i = 0; i < 300; ++i) {
                w.sys.fault_locks.note(w.sys, a, vma, i);
                if (i < 200) w.sys.fault_locks.note(w.sys, b, vma, 300 + i);
                if (i < 50) w.sys.fault_locks.note(w.sys, c, vma, 600 + i);
            }
        }
        w.sys.now += 4'000'000;
        w.sys.fault_locks.settle(w.sys);
        EXPECT_EQ(w.sys.fault_locks.faults_noted(), 550u);
        return std::vector<Nanos>{a.kernel_debt, b.kernel_debt, c.kernel_debt};
    };
    const std::vector<Nanos> counted = debts(true), one_by_one = debts(false);
    EXPECT_GT(counted[0], 0);
    EXPECT_EQ(counted, one_by_one);
}

// Settling sorts the records by keys packed into two words while the address space is x86-64's
// (47 bits) and by the records' fields beyond it: the same faults give the same waits either way.
TEST(LocksCounted, SameWaitsInAnAddressSpaceBeyondX86s) {
    auto debts = [](uint64_t mmap_base) {
        KWorld w{"tiny-2n"};
        Mm& mm = mm_create(w.sys);
        mm.mmap_base = mmap_base;
        Vma& one = w.anon(mm, 1 << 12);
        Vma& two = w.anon(mm, 1 << 12);
        w.sys.knobs.per_vma_lock = true;
        Task& a = w.thread(mm, 0);
        Task& b = w.thread(mm, 2);
        Task& c = w.thread(mm, 1);
        // Three tasks meet on one page table of `one`; two of them, on two tables of `two`.
        w.sys.fault_locks.note(w.sys, a, one, 0, 300);
        w.sys.fault_locks.note(w.sys, b, two, 0, 40);
        w.sys.fault_locks.note(w.sys, b, one, 10, 200);
        w.sys.fault_locks.note(w.sys, c, one, 20, 50);
        w.sys.fault_locks.note(w.sys, a, two, 600, 70);
        w.sys.fault_locks.note(w.sys, c, two, 5, 90);
        w.sys.fault_locks.note(w.sys, b, two, 620, 30);
        w.sys.now += 4'000'000;
        w.sys.fault_locks.settle(w.sys);
        EXPECT_GE(two.start, mmap_base);
        return std::vector<Nanos>{a.kernel_debt, b.kernel_debt, c.kernel_debt};
    };
    const std::vector<Nanos> packed = debts(uint64_t{1} << 40),
                             by_fields = debts(uint64_t{1} << 50);
    for (Nanos d : packed)
        EXPECT_GT(d, 0);  // each task met others on some lock word
    EXPECT_EQ(packed, by_fields);
}

// --- migration waits ---

TEST(MigrationWait, TouchProbabilityByPattern) {
    KWorld w("tiny-2n");
    Mm& mm = mm_create(w.sys);
    Vma& vma = w.anon(mm, 1000);
    Region& r = add_region(w.sys, vma, 0, 1000, "r");
    AccessStream s{&r, Pattern::Sweep, 1.0, 0.0};
    // A sweep at 1 GB/s over 1000 pages passes a page every 4.096 ms; within 20 us it reaches
    // it with probability (20000 + 4096) / 4096000.
    EXPECT_NEAR(touch_probability(s, 1.0, 10, 1, 20000), 24096.0 / 4096000, 1e-12);
    // Random: 1/64 lines per ns over 1000 pages: 1 - exp(-20000 / 64000).
    s.pattern = Pattern::Random;
    EXPECT_NEAR(touch_probability(s, 1.0, 10, 1, 20000), 1 - std::exp(-0.3125), 1e-12);
    // Hot set: 10 % of the pages (100) take 90 % of the accesses.
    s.pattern = Pattern::HotSet;
    EXPECT_NEAR(touch_probability(s, 1.0, 10, 1, 20000), 1 - std::exp(-20000.0 / 64 * 0.9 / 100),
                1e-12);
    EXPECT_NEAR(touch_probability(s, 1.0, 500, 1, 20000), 1 - std::exp(-20000.0 / 64 * 0.1 / 900),
                1e-12);
    // Random in 8 KiB chunks (perf bench numa's walk): 1/8192 chunks per ns. Page 10 is reached
    // from cells 9 and 10 always, from cell 8 when the chunk starts past its page's first word
    // (511 of 512 words): 1 - exp(-20000 / 8192 * (2 + 511/512) / 1000).
    s.pattern = Pattern::Random;
    s.chunk_bytes = 8192;
    const double reaching = 2 + 511.0 / 512;
    EXPECT_NEAR(touch_probability(s, 1.0, 10, 1, 20000),
                1 - std::exp(-20000.0 / 8192 * reaching / 1000), 1e-12);
    // A 4-page folio adds 3 cells.
    EXPECT_NEAR(touch_probability(s, 1.0, 10, 4, 20000),
                1 - std::exp(-20000.0 / 8192 * (reaching + 3) / 1000), 1e-12);
    // Starts only in the first 400 pages (1600 KiB): the rate there is over 400 cells, and a
    // page past them is not touched.
    s.chunk_starts_below = 400 * 4096;
    EXPECT_NEAR(touch_probability(s, 1.0, 10, 1, 20000),
                1 - std::exp(-20000.0 / 8192 * reaching / 400), 1e-12);
    EXPECT_EQ(touch_probability(s, 1.0, 400, 1, 20000), 0.0);
}

TEST(ChunkSpan, PagesAChunkCoversFromARandomWord) {
    // perf's 8 KiB chunk on 4 KiB pages: 2 pages, a third unless it starts at a page's first
    // word (1 of 512).
    ChunkSpan a = chunk_span(8192, 4096);
    EXPECT_EQ(a.pages, 2u);
    EXPECT_DOUBLE_EQ(a.p_more, 511.0 / 512);
    EXPECT_EQ(a.reach(), 2u);
    // On 64 KiB pages: 1 page, a second when it starts in the last 1023 words of 8192 (word
    // 7169 on: 8 * 7169 + 8191 = 65543 >= 65536).
    ChunkSpan b = chunk_span(8192, 65536);
    EXPECT_EQ(b.pages, 1u);
    EXPECT_DOUBLE_EQ(b.p_more, 1023.0 / 8192);
    EXPECT_EQ(b.reach(), 1u);
    // A page and a word (4104 bytes) covers 2 pages from any word: from the last one (byte
    // 4088) it ends on byte 8191, still the second page.
    ChunkSpan c = chunk_span(4104, 4096);
    EXPECT_EQ(c.pages, 2u);
    EXPECT_EQ(c.p_more, 0.0);
    EXPECT_EQ(c.reach(), 1u);
    // Exactly one page: from word 0 it stays in its page, from any later word it crosses.
    ChunkSpan d = chunk_span(4096, 4096);
    EXPECT_EQ(d.pages, 1u);
    EXPECT_DOUBLE_EQ(d.p_more, 511.0 / 512);
    // One word never crosses.
    ChunkSpan e = chunk_span(8, 4096);
    EXPECT_EQ(e.pages, 1u);
    EXPECT_EQ(e.p_more, 0.0);
    EXPECT_EQ(e.reach(), 0u);
    EXPECT_THROW(chunk_span(64 * 4096, 4096), std::logic_error);
}

TEST(ChunkSpan, CellsWhereChunksStart) {
    AccessStream s;
    s.chunk_bytes = 8192;
    EXPECT_EQ(chunk_cells(s, 1000, 4096), 1000u);  // anywhere
    s.chunk_starts_below = uint64_t{32} << 30;     // perf's 2^32 words
    EXPECT_EQ(chunk_cells(s, 1000, 4096), 1000u);
    EXPECT_EQ(chunk_cells(s, 13'107'200, 4096), 8'388'608u);  // a 50 GiB buffer: 32 GiB of it
    s.chunk_starts_below = 4097;                              // a partial page still holds starts
    EXPECT_EQ(chunk_cells(s, 1000, 4096), 2u);
}

TEST(HotPages, TheFirstHotFractionOfTheRegionAtLeastOne) {
    AccessStream s;
    s.pattern = Pattern::HotSet;
    s.hot_fraction = 0.1;
    EXPECT_EQ(hot_pages(s, 1000), 100u);
    EXPECT_EQ(hot_pages(s, 1005), 101u);  // 100.5 rounds away from zero
    EXPECT_EQ(hot_pages(s, 4), 1u);       // 0.4 rounds to none: one page stays hot
    s.hot_fraction = 1.0;
    EXPECT_EQ(hot_pages(s, 7), 7u);
}

TEST(MigrationWait, OtherMappersSleepAndTheirTlbsAreFlushed) {
    // tiny-4n. A parent faults in 4096 pages on node 0 and forks; the child reads them at
    // random on CPU 1. The parent migrates page 3 to node 2 from its hinting fault on CPU 2
    // (its own PTE is PROT_NONE: no flush for it), so the child's accessible PTE needs a flush.
    KWorld w("tiny-4n");
    auto [vma, parent, cmm, child] = w.fork_after_writes(4096, 2, 1);
    w.stream(child, *find_region(cmm, "r"), Pattern::Random);
    w.update();
    vma.protnone.set(3);
    const double copy = 4096 / (10 * 64.0 / 140 * 0.5);  // 1792 ns from node 0 to node 2
    const double flush = 2000 + 2 * 140.0;               // to the child's CPU 1
    const double d = 9000 + copy + 1000 + flush;         // + one extra mapping
    EXPECT_NEAR(migrate_folio_cost(w.sys, parent, vma, 3, 1, 0, 2, 2), d, 1e-9);
    // The child's 16 MiB fit the LLC: 64 / (55 + 20 / 10) = 1.1228 GB/s over 4096 pages.
    const double rate = w.sys.cost.rate_gbs(*child.touches, 1, child.index);
    EXPECT_NEAR(rate, 64.0 / 57, 1e-9);
    const double prob = 1 - std::exp(-rate / 64 / 4096 * d);
    EXPECT_EQ(child.blocked_debt, std::llround(prob * d / 2));
    // The fault on the migration entry and two context switches, plus the flush interrupt.
    EXPECT_EQ(child.kernel_debt, std::llround(prob * (680 + 4000)) + 1000);
    EXPECT_NEAR(w.sys.cost.stats().migration_waiters, prob, 1e-12);
}

TEST(MigrationWait, RecordSaysHowFarTheChargesStayAlike) {
    // tiny-4n, as above, but the child reads a hot set over the whole array and a random stream
    // over pages [1000, 1200), and its PTEs of pages [300, 350) are PROT_NONE.
    // A run of migrating pages after page idx may go only as far as every mapping's PTE state
    // and every waiter's view of the pages stay those of idx (fault runs), and at most one page
    // table (512 pages) ahead.
    KWorld w("tiny-4n");
    auto [vma, parent, cmm, child] = w.fork_after_writes(4096, 2, 1, {{1000, 200, "r2"}});
    Region& hot = *find_region(cmm, "r");
    w.stream(child, hot, Pattern::HotSet);  // the hot 10 %: pages [0, 410)
    w.stream(child, *find_region(cmm, "r2"), Pattern::Random);
    hot.vma->protnone.set_range(300, 350);
    w.update();
    MigrateCostRecord rec;
    auto alike = [&](uint64_t idx) {
        vma.protnone.set(idx);
        migrate_folio_cost(w.sys, parent, vma, idx, 1, 0, 2, 2, &rec);
        return rec.alike;
    };
    EXPECT_EQ(alike(3), 300u - 3 - 1);         // the child's PTE of page 300 is PROT_NONE
    EXPECT_EQ(alike(360), 410u - 360 - 1);     // the hot set ends at page 410
    EXPECT_EQ(alike(500), 1000u - 500 - 1);    // the random stream starts at page 1000
    EXPECT_EQ(alike(1100), 1200u - 1100 - 1);  // ... and ends at page 1200
    EXPECT_EQ(alike(3900), 4096u - 3900 - 1);  // the mappings end at page 4096
    EXPECT_EQ(alike(2000), 512u);              // one page table

    // Repeating the record charges what that many more migrations of like pages would.
    const Nanos blocked = child.blocked_debt, kernel = child.kernel_debt;
    const auto stats = w.sys.cost.stats();
    alike(2000);
    const Nanos one_blocked = child.blocked_debt - blocked, one_kernel = child.kernel_debt - kernel;
    const uint64_t one_ipis = w.sys.cost.stats().tlb_ipis - stats.tlb_ipis;
    EXPECT_GT(one_blocked, 0);
    EXPECT_EQ(one_ipis, 1u);  // the child's accessible PTE: its CPU is interrupted
    repeat_migrate_folio_cost(w.sys, rec, 5);
    EXPECT_EQ(child.blocked_debt - blocked, 6 * one_blocked);
    EXPECT_EQ(child.kernel_debt - kernel, 6 * one_kernel);
    EXPECT_EQ(w.sys.cost.stats().tlb_ipis - stats.tlb_ipis, 6 * one_ipis);
    EXPECT_EQ(w.sys.cost.stats().tlb_shootdowns - stats.tlb_shootdowns, 6u);
    EXPECT_EQ(rec.waiters.size(), 1u);
    EXPECT_NEAR(w.sys.cost.stats().migration_waiters - stats.migration_waiters,
                6 * rec.stat_waiters, 1e-12);
}

TEST(MigrationWait, UnbatchedFlushesEachMapping) {
    // Two children with accessible PTEs: v6.3+ sends one shootdown to both CPUs, older kernels
    // one per mapping.
    for (bool batch : {true, false}) {
        KWorld w("tiny-4n");
        w.sys.knobs.migrate_tlb_batch = batch;
        Mm& mm = mm_create(w.sys);
        Vma& vma = w.anon(mm, 16);
        Task& parent = w.thread(mm, 0);
        handle_mm_fault(w.sys, parent, vma, 3, true);
        w.thread(dup_mm(w.sys, mm), 1);
        w.thread(dup_mm(w.sys, mm), 2);
        vma.protnone.set(3);
        migrate_folio_cost(w.sys, parent, vma, 3, 1, 0, 3, 3);
        EXPECT_EQ(w.sys.cost.stats().tlb_shootdowns, batch ? 1u : 2u);
        EXPECT_EQ(w.sys.cost.stats().tlb_ipis, 2u);
    }
}

TEST(MigrationWait, RmapStepsPayForLinesOnOtherNodes) {
    // tiny-4n: CPU n on node n, 90 ns local, 140 ns remote. A parent on CPU 0 forks three
    // children from there (vm_area_dup and the mm on node 0), each of which first reads page 2
    // of the private .data mapping of a file on its own CPU (its PTE page there): A on CPU 3, B
    // on CPU 1, C on CPU 2, so the page cache page is on node 3 and mapped 3 times.
    KWorld w("tiny-4n");
    auto file = std::make_shared<MemObject>(8, true);
    Mm& mm = mm_create(w.sys);
    do_mmap(w.sys, mm, 8 * kPages4K.size(), VM_READ | VM_WRITE | VM_FILE, "data", file);
    w.thread(mm, 0, false);
    std::vector<Vma*> data;
    for (int cpu : {3, 1, 2}) {
        Mm& child = dup_mm(w.sys, mm);
        Vma& v = *child.vmas.front();
        EXPECT_EQ(v.mapping_nid, 0);
        EXPECT_EQ(v.pte_nid, -1);  // the parent had no PTE there to copy
        handle_mm_fault(w.sys, w.thread(child, cpu), v, 2, false);
        EXPECT_EQ(v.pte_nid, cpu);
        EXPECT_EQ(v.mapping_nid, 0);
        v.protnone.set(2);  // every PTE PROT_NONE: no flush, the rmap steps alone
        data.push_back(&v);
    }
    ASSERT_EQ(file->frames[2].nid, 3);
    ASSERT_EQ(file->frames[2].mapcount, 3);
    const double copy = 4096 / (10 * 64.0 / 140 * 0.5);  // 1792 ns from node 3 to node 2
    // C migrates it from its hinting fault on CPU 2. Its own step is in the 9 us; A's and B's
    // steps, 1 us each, read 7 lines on node 0 (3 of the vm_area_struct, the mm's pgd line,
    // pgd, pud, pmd) and 2 on their PTE page's node (lock, PTE), all remote from node 2, and the
    // restore reads the PTE page's 2 again: (7 + 2 + 2) * (140 - 90) = 550 ns each.
    Vma& c = *data[2];
    EXPECT_NEAR(migrate_folio_cost(w.sys, *c.mm->tasks.front(), c, 2, 1, 3, 2, 3),
                9000 + copy + 2 * 1000 + 2 * 550.0, 1e-9);
    // The same from CPU 0 (a migrate_pages(2) caller there): the lines made by the fork are
    // local, A's PTE page (node 3) and B's (node 1) are not: 4 * 50 ns each.
    EXPECT_NEAR(migrate_folio_cost(w.sys, nullptr, 0, c, 2, 1, 3, 2, 3),
                9000 + copy + 2 * 1000 + 2 * 200.0, 1e-9);
    // From CPU 3, where A's PTE page is: A pays for the fork's 7 lines alone, 350 ns; B for
    // those and its PTE page on node 1, 550 ns.
    EXPECT_NEAR(migrate_folio_cost(w.sys, nullptr, 3, c, 2, 1, 3, 2, 3),
                9000 + copy + 2 * 1000 + 550 + 350.0, 1e-9);
}

TEST(MigrationWait, AnonymousRmapStepReadsTheChainNodeToo) {
    // An anonymous page shared after fork: rmap_walk_anon reaches each vma through an
    // anon_vma_chain node, one line more than a file page's walk. tiny-4n; the parent writes
    // page 3 on CPU 1 and forks there (the child's vma, mm and copied PTE page on node 1), and
    // migrates the page from its hinting fault on CPU 2 with both PTEs PROT_NONE.
    KWorld w("tiny-4n");
    auto [vma, parent, cmm, child] = w.fork_after_writes(4, 1, 3);
    Vma& cv = *cmm.vmas.front();
    EXPECT_EQ(cv.mapping_nid, 1);
    EXPECT_EQ(cv.pte_nid, 1);
    vma.protnone.set(3);
    cv.protnone.set(3);
    w.sys.rqs[1].curr = nullptr;  // the parent moves to CPU 2
    parent.cpu = 2;
    w.sys.rqs[2].curr = &parent;
    const double copy = 4096 / (10 * 64.0 / 140 * 0.5);  // node 1 to node 2
    // The child's step: (8 + 2 + 2) lines * 50 ns on node 1.
    EXPECT_NEAR(migrate_folio_cost(w.sys, parent, vma, 3, 1, 1, 2, 2), 9000 + copy + 1000 + 600.0,
                1e-9);
}

// --- cache state after a move ---

struct Refill : ::testing::Test {
    // cascadelake-2s: one 27.5 MiB LLC per node, L2 1 MiB, 12 fill buffers, LLC 21 ns, 85 / 140
    // ns memory. p and q share a 4 MiB region (random access: it fits, all of it is cached);
    // r runs something else on CPU 2. CPU 41 is CPU 1's SMT sibling, CPU 42 CPU 2's.
    KWorld w{"cascadelake-2s"};
    Mm& mm = mm_create(w.sys);
    Vma& shared = w.anon(mm, 1024);
    Region& region = add_region(w.sys, shared, 0, 1024, "shared");
    Mm& omm = mm_create(w.sys);
    Vma& own = w.anon(omm, 2048);
    Region& other = add_region(w.sys, own, 0, 2048, "other");
    Task& p = w.thread(mm, 0);
    Task& q = w.thread(mm, 1);
    Task& r = w.thread(omm, 2);
    void SetUp() override {
        for (Region* x : {&region, &other}) {
            x->node_pages[0] = x->count;
            x->present = x->count;
        }
        w.stream(p, region, Pattern::Random);
        w.stream(q, region, Pattern::Random);
        w.stream(r, other, Pattern::Random);
        w.update();
    }
};

TEST_F(Refill, IdleCpusOfOneNodeDiffer) {
    // Next to q (CPU 41): the L2 q shares holds the region, and the LLC too. Nothing to refill.
    EXPECT_DOUBLE_EQ(w.refill(p, 0, 41), 0.0);
    // Next to r (CPU 42): the L2 holds r's data, so 1 MiB comes back from the LLC:
    // 16384 lines x 21 ns / 12 = 28672 ns.
    EXPECT_NEAR(w.refill(p, 0, 42), 16384 * 21.0 / 12, 1e-9);
}

TEST_F(Refill, AnotherLlcRefillsFromMemory) {
    // Node 1's LLC holds none of it: the 4 MiB come from node 0 at (140 + queueing) ns per 12
    // lines; the L2's 1 MiB is part of them.
    const CostModel& c = w.sys.cost;
    const double line = (140 + c.path_delay_ns(1, 0)) / 12;
    EXPECT_NEAR(w.refill(p, 0, 20), 65536 * line, 1e-6);
    // Coming back to its own core, where nothing else ran since: all warm.
    EXPECT_DOUBLE_EQ(w.refill(p, 20, 0), 0.0);
}

TEST_F(Refill, StreamingDataIsNotWorthRefilling) {
    // A sweep larger than the LLC keeps nothing it will reuse.
    Vma& big = w.anon(mm, 16384);
    Region& huge = add_region(w.sys, big, 0, 16384, "huge");  // 64 MiB
    huge.node_pages[0] = huge.present = huge.count;
    w.clear_streams(p);
    w.stream(p, huge, Pattern::Sweep);
    w.update();
    EXPECT_DOUBLE_EQ(w.refill(p, 0, 42), 0.0);
    // Also from an LLC that saw no task at the last update (p got there since): its own sweep
    // is still larger than that LLC.
    EXPECT_DOUBLE_EQ(w.refill(p, 20, 42), 0.0);
}

}  // namespace
}  // namespace numasim
