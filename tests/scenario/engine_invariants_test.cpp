// Engine-level scenarios: the remote rate the cost model predicts, copy-on-write after fork
// through the engine's access path, determinism, and counter invariants after a balancing run.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "mm/page.h"
#include "sim_fixture.h"

namespace numasim {
namespace {

using testing::PhaseList;

NumaBalancingKnobs knobs_off() {
    NumaBalancingKnobs k = load_profile("v6.12");
    k.numa_balancing = 0;
    return k;
}

Phase sweep(Region* r, double passes, double rate, double write_fraction) {
    Phase ph;
    ph.streams.push_back(AccessStream{r, Pattern::Sweep, 1.0, write_fraction});
    ph.rate_gbs = rate;
    ph.work_bytes = passes * static_cast<double>(r->bytes());
    return ph;
}

// (a) With balancing off, a thread pinned to node 1 whose memory was first touched on node 0
// runs at the remote rate: 64 / (t_cpu + L_remote / MLP) with t_cpu = 64 / rate - L_local / MLP.
// tiny-2n at 1 GB/s: t_cpu = 64 - 90 / 10 = 55 ns; 55 + 140 / 10 = 69 ns per line:
// 64 / 69 = 0.9275 bytes per ns.
TEST(RemoteRate, PinnedThreadRunsAtTheCostModelsRemoteRate) {
    System sys(load_preset("tiny-2n"), knobs_off(), 11);
    Mm& mm = mm_create(sys);
    Vma& v = do_mmap(sys, mm, 64ull << 20, VM_READ | VM_WRITE, "data");  // > 16 MiB LLC
    Region& r = add_region(sys, v, 0, v.nr_pages(), "data");
    Phase touch = sweep(&r, 1.0, 4.0, 1.0);
    touch.set_affinity = std::vector<int>{0};  // first touch from node 0
    Phase work = sweep(&r, 1e9, 1.0, 0.0);
    work.set_affinity = std::vector<int>{2, 3};  // then run on node 1 only
    work.cpu_time = 2 * NSEC_PER_SEC;
    PhaseList prog({touch, work});
    Task& p = create_process(sys, mm, nullptr, "pinned", &prog, 0, 0);
    Engine eng(sys);
    eng.run(msecs_to_ns(400));  // first touch takes ~90 ms; then the move to node 1
    ASSERT_EQ(sys.cpu_to_node(p.cpu), 1);
    ASSERT_EQ(r.pages_on(0), r.count);  // every page stayed on node 0
    const double bytes0 = p.total_bytes;
    const Nanos utime0 = p.utime;
    eng.run(msecs_to_ns(1400));
    ASSERT_EQ(sys.cpu_to_node(p.cpu), 1);
    const double rate = (p.total_bytes - bytes0) / static_cast<double>(p.utime - utime0);
    const double expect = 64.0 / (64.0 / 1.0 - 90.0 / 10 + 140.0 / 10);
    EXPECT_NEAR(rate, expect, 0.01 * expect) << "rate " << rate << " expected " << expect;
    // Exactly what the cost model says now, with its (tiny) loaded-latency multipliers.
    ASSERT_NE(eng.phase(p), nullptr);
    const double npb = sys.cost.ns_per_byte(eng.phase(p)->access(), p.cpu);
    EXPECT_NEAR(rate, 1.0 / npb, 0.001 / npb);
    EXPECT_EQ(sys.counters[Vm::numa_hint_faults], 0u);
    EXPECT_EQ(sys.counters[Vm::numa_pages_migrated], 0u);
}

// (b) Forked children share the parent's pages copy-on-write until they write them.
TEST(ForkCow, ChildSharesUntilItWrites) {
    System sys(load_preset("tiny-2n"), knobs_off(), 5);
    Mm& mm = mm_create(sys);
    Vma& v = do_mmap(sys, mm, 4ull << 20, VM_READ | VM_WRITE, "heap");
    Region& r = add_region(sys, v, 0, v.nr_pages(), "heap");
    const uint64_t pages = r.count;  // 1024
    Phase fill = sweep(&r, 1.0, 4.0, 1.0);
    Phase nap;  // then sleep through the rest of the test
    nap.cpu_time = 1;
    nap.sleep_after = 100 * NSEC_PER_SEC;
    PhaseList parent_prog({fill, nap});
    Task& parent = create_process(sys, mm, nullptr, "parent", &parent_prog, 0, 0);
    Engine eng(sys);
    eng.run(msecs_to_ns(200));
    ASSERT_EQ(r.present, pages);
    ASSERT_EQ(parent.state, TaskState::Sleeping);
    const uint64_t alloc_before_fork = sys.counters[Vm::pgalloc];
    EXPECT_EQ(alloc_before_fork, pages);

    Mm& cmm = dup_mm(sys, mm);
    Region* cr = find_region(cmm, "heap");
    ASSERT_NE(cr, nullptr);
    Phase read = sweep(cr, 2.0, 4.0, 0.0);
    read.sleep_after = 300 * NSEC_PER_MSEC;  // pause between reading and writing
    Phase write = sweep(cr, 1.0, 4.0, 1.0);
    PhaseList child_prog({read, write});
    Task& child = create_process(sys, cmm, &parent, "child", &child_prog, 0, 1);
    Vma& cv = *cr->vma;
    for (uint64_t i = 0; i < pages; ++i)
        ASSERT_EQ(v.frame(i).mapcount, 2) << i;

    eng.run(msecs_to_ns(400));  // the child has read everything and is sleeping
    ASSERT_EQ(child.state, TaskState::Sleeping);
    EXPECT_GT(child.total_bytes, 0.0);
    EXPECT_EQ(sys.counters[Vm::pgalloc], alloc_before_fork);  // reads copy nothing
    for (uint64_t i = 0; i < pages; ++i) {
        ASSERT_EQ(&cv.frame(i), &v.frame(i)) << i;
        ASSERT_EQ(v.frame(i).mapcount, 2) << i;
    }

    eng.run(msecs_to_ns(1000));  // the child wrote every page once and exited
    EXPECT_EQ(child.state, TaskState::Dead);
    EXPECT_EQ(sys.counters[Vm::pgalloc], alloc_before_fork + pages);
    EXPECT_EQ(cv.own_mask.count(0, pages), pages);
    for (uint64_t i = 0; i < pages; ++i) {
        ASSERT_NE(&cv.frame(i), &v.frame(i)) << i;
        ASSERT_EQ(v.frame(i).mapcount, 1) << i;
        ASSERT_EQ(cv.frame(i).mapcount, 1) << i;
    }
    EXPECT_EQ(cr->present, pages);
    EXPECT_EQ(r.present, pages);
}

// A small balancing workload whose outcome depends on the seed: four threads of one process
// first-touch their memory on node 0, then access it at random (the access RNG decides which
// PROT_NONE pages fault), plus a writer that shares a region with all of them.
struct RunResult {
    Counters counters;
    std::vector<Nanos> utime, stime;
    std::vector<double> bytes;
    std::vector<int> cpu;
    Nanos end = 0;
};

RunResult balancing_run(uint64_t seed, System** keep = nullptr,
                        std::unique_ptr<System>* owner = nullptr) {
    auto sys = std::make_unique<System>(load_preset("tiny-2n"), load_profile("v6.12"), seed);
    // Shorter scan delays so that a 3 s run converges.
    sys->knobs.scan_delay_ms = 200;
    sys->knobs.scan_period_min_ms = 100;
    Mm& mm = mm_create(*sys);
    std::vector<Region*> regions;
    for (int i = 0; i < 4; ++i) {
        Vma& v = do_mmap(*sys, mm, 32ull << 20, VM_READ | VM_WRITE, "slice");
        regions.push_back(&add_region(*sys, v, 0, v.nr_pages(), "slice" + std::to_string(i)));
    }
    Vma& sv = do_mmap(*sys, mm, 8ull << 20, VM_READ | VM_WRITE, "shared");
    Region* shared = &add_region(*sys, sv, 0, sv.nr_pages(), "shared");
    std::vector<std::unique_ptr<PhaseList>> progs;
    std::vector<Phase> init;
    for (Region* r : regions) {
        Phase ph = sweep(r, 1.0, 4.0, 1.0);
        ph.set_affinity = std::vector<int>{0, 1};
        init.push_back(ph);
    }
    init.push_back(sweep(shared, 1.0, 4.0, 1.0));
    progs.push_back(std::make_unique<PhaseList>(init));
    Task& main = create_process(*sys, mm, nullptr, "main", progs.back().get(), 0, 0);
    std::vector<Task*> tasks{&main};
    for (int i = 0; i < 4; ++i) {
        Phase wait;
        wait.cpu_time = 1;
        wait.sleep_after = 300 * NSEC_PER_MSEC;
        Phase work;
        work.streams.push_back(AccessStream{regions[i], Pattern::Random, 0.9, 0.3});
        work.streams.push_back(AccessStream{shared, Pattern::HotSet, 0.1, 0.1});
        work.rate_gbs = 2.0;
        work.cpu_time = 2 * NSEC_PER_SEC;
        progs.push_back(std::make_unique<PhaseList>(std::vector<Phase>{wait, work}));
        tasks.push_back(&create_thread(*sys, main, "worker", progs.back().get(), i + 1));
    }
    Engine eng(*sys);
    RunResult res;
    res.end = eng.run(3 * NSEC_PER_SEC);
    res.counters = sys->counters;
    for (Task* t : tasks) {
        res.utime.push_back(t->utime);
        res.stime.push_back(t->stime);
        res.bytes.push_back(t->total_bytes);
        res.cpu.push_back(t->cpu);
    }
    if (keep) *keep = sys.get();
    if (owner) *owner = std::move(sys);
    return res;
}

void expect_same(const RunResult& a, const RunResult& b) {
    for (size_t i = 0; i < a.counters.vm.size(); ++i)
        EXPECT_EQ(a.counters.vm[i], b.counters.vm[i]) << kVmNames[i];
    EXPECT_EQ(a.counters.cs, b.counters.cs);
    EXPECT_EQ(a.counters.migrations, b.counters.migrations);
    EXPECT_EQ(a.counters.sched_move_numa, b.counters.sched_move_numa);
    EXPECT_EQ(a.counters.sched_swap_numa, b.counters.sched_swap_numa);
    EXPECT_EQ(a.counters.sched_stick_numa, b.counters.sched_stick_numa);
    EXPECT_EQ(a.counters.mm_migrate_pages, b.counters.mm_migrate_pages);
    EXPECT_EQ(a.counters.sched_skip_vma_numa, b.counters.sched_skip_vma_numa);
    EXPECT_EQ(a.utime, b.utime);
    EXPECT_EQ(a.stime, b.stime);
    EXPECT_EQ(a.bytes, b.bytes);  // bit-identical doubles
    EXPECT_EQ(a.cpu, b.cpu);
    EXPECT_EQ(a.end, b.end);
}

// (c) The same seed gives identical counters and per-task figures; another seed differs.
TEST(Determinism, SameSeedSameRun) {
    const RunResult a = balancing_run(42);
    const RunResult b = balancing_run(42);
    ASSERT_GT(a.counters[Vm::numa_hint_faults], 0u);  // balancing really ran
    expect_same(a, b);
    const RunResult c = balancing_run(43);
    // Random streams draw from the seeded access RNG: the hint faults they take differ.
    EXPECT_NE(a.counters.vm, c.counters.vm);
}

// (d) Counter invariants after a balancing run. What the code counts:
//  * zone_statistics() counts one of numa_hit/numa_miss and one of numa_local/numa_other per
//    allocation call (first touch, COW copy, migration target); numa_foreign pairs numa_miss;
//  * pgalloc counts pages (a THP call adds 512), pgfree pages returned (migration sources);
//  * numa_hint_faults counts each PROT_NONE fault, numa_hint_faults_local those on the CPU's
//    node; every hint fault is also a pgfault; each needs a PTE made PROT_NONE before.
TEST(CounterInvariants, AfterABalancingRun) {
    std::unique_ptr<System> owner;
    System* sys = nullptr;
    const RunResult res = balancing_run(42, &sys, &owner);
    const Counters& c = res.counters;
    const auto v = [&](Vm x) { return c[x]; };
    ASSERT_GT(v(Vm::numa_hint_faults), 0u);
    ASSERT_GT(v(Vm::numa_pages_migrated), 0u);
    EXPECT_LE(v(Vm::numa_hint_faults_local), v(Vm::numa_hint_faults));
    // Each hint fault migrates at most one folio; no THP here, so one page.
    EXPECT_EQ(v(Vm::thp_fault_alloc), 0u);
    EXPECT_LE(v(Vm::numa_pages_migrated), v(Vm::numa_hint_faults));
    // NUMA hinting is the only migration cause in the model.
    EXPECT_EQ(v(Vm::pgmigrate_success), v(Vm::numa_pages_migrated));
    EXPECT_EQ(c.mm_migrate_pages, v(Vm::pgmigrate_success) + v(Vm::pgmigrate_fail));
    // A fault needs a PROT_NONE PTE first, and every hint fault is a page fault.
    EXPECT_LE(v(Vm::numa_hint_faults), v(Vm::numa_pte_updates));
    EXPECT_LE(v(Vm::numa_hint_faults), v(Vm::pgfault));
    // zone_statistics: hit + miss == local + other == allocation calls; miss == foreign.
    EXPECT_EQ(v(Vm::numa_hit) + v(Vm::numa_miss), v(Vm::numa_local) + v(Vm::numa_other));
    EXPECT_EQ(v(Vm::numa_miss), v(Vm::numa_foreign));
    // Base pages only: one page per allocation call.
    EXPECT_EQ(v(Vm::pgalloc), v(Vm::numa_hit) + v(Vm::numa_miss));
    // Every migration allocated on the target (numa_hit) and freed the source page.
    EXPECT_EQ(v(Vm::pgfree), v(Vm::pgmigrate_success));
    // Pages in use = allocated - freed = what the nodes are missing.
    uint64_t used = 0;
    for (int n = 0; n < sys->nr_nodes(); ++n)
        used += sys->mem.used_pages(n);
    EXPECT_EQ(used, v(Vm::pgalloc) - v(Vm::pgfree));
    // Region totals agree with the frames they cover, and sum to the present pages.
    uint64_t present_total = 0;
    for (auto& mmp : sys->mms)
        for (auto& r : mmp->regions) {
            std::vector<uint64_t> nodes(sys->nr_nodes(), 0);
            const Vma& vma = *r->vma;
            for (uint64_t i = vma.present.find_next(r->first, r->first + r->count);
                 i < r->first + r->count; i = vma.present.find_next(i + 1, r->first + r->count))
                ++nodes[vma.frame(i).nid];
            for (int n = 0; n < sys->nr_nodes(); ++n)
                EXPECT_EQ(nodes[static_cast<size_t>(n)], r->pages_on(n)) << r->name;
            EXPECT_EQ(vma.present.count(r->first, r->first + r->count), r->present) << r->name;
            EXPECT_EQ(vma.protnone.count(r->first, r->first + r->count), r->protnone) << r->name;
            present_total += r->present;
        }
    // One mm, regions cover its VMAs exactly: every allocated page is present in one region.
    EXPECT_EQ(present_total, used);
    // Task accounting: CPU time never exceeds the run.
    Nanos cpu_sum = 0;
    for (size_t i = 0; i < res.utime.size(); ++i)
        cpu_sum += res.utime[i] + res.stime[i];
    EXPECT_LE(cpu_sum, res.end * sys->nr_cpus());
}

}  // namespace
}  // namespace numasim
