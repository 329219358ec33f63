// Micro-benchmarks of the simulator's hot paths, each driving the real kernel functions on a
// System built directly (no scenario file): the NUMA hinting fault (do_numa_page), the migration
// of a page that hundreds of processes map, one scan window (change_prot_numa / task_numa_work),
// task_numa_placement, the task_numa_migrate search, one scheduler tick over every CPU, one full
// engine tick, the cost model's per-tick update (and after a page moved, on 896 CPUs), and the
// scheduling domains' construction.
//
// Pages are made present and PROT_NONE through the real paths (handle_mm_fault,
// change_prot_numa); populations of busy tasks are produced by running the Engine. Anything a
// benchmark changes that would drift from one iteration to the next is put back outside the
// timed region (PauseTiming) or, where that would cost more than the operation, restored by a
// cheap copy inside it (noted per benchmark). bench/README.md lists the benchmarks.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "engine/engine.h"
#include "engine/process.h"
#include "kernel/system.h"
#include "machine/presets.h"
#include "mm/fault.h"
#include "mm/mm.h"
#include "numab/numa_group.h"
#include "numab/numab.h"
#include "numab/profile.h"
#include "sched/fair.h"
#include "workload/phase_list.h"

namespace numasim {
namespace {

constexpr uint64_t kSeed = 42;
constexpr Nanos kForever = 1000000 * NSEC_PER_SEC;

std::unique_ptr<System> make_system(const std::string& preset) {
    return std::make_unique<System>(load_preset(preset), load_profile("v6.12"), kSeed);
}

// A phase that never ends: the streams at `rate_gbs`.
Phase endless(std::vector<AccessStream> streams, double rate_gbs) {
    Phase ph;
    ph.streams = std::move(streams);
    ph.rate_gbs = rate_gbs;
    ph.cpu_time = kForever;
    return ph;
}

// Clears every PROT_NONE bit of the VMA as faults would (with the region counters).
void unprotect_all(Vma& vma) {
    const uint64_t n = vma.nr_pages();
    for (uint64_t i = vma.protnone.find_next(0, n); i < n;) {
        const uint64_t e = vma.protnone.find_next_zero(i, n);
        account_region_protnone(vma, i, e - i, -1);
        vma.protnone.clear_range(i, e);
        i = vma.protnone.find_next(e, n);
    }
}

// A process of `threads` threads (with empty programs: the benchmarks call the kernel functions
// with these tasks as `current`, the engine never runs them), all moved to CPU `cpu`, with one
// VMA of `bytes` whose first `touch_bytes` are first-touched by thread 0 through handle_mm_fault.
struct OneVma {
    std::unique_ptr<System> sys;
    std::vector<std::unique_ptr<PhaseList>> programs;
    std::vector<Task*> tasks;
    Mm* mm = nullptr;
    Vma* vma = nullptr;
};

OneVma one_vma(const std::string& preset, int threads, uint64_t bytes, uint64_t touch_bytes,
               int cpu, bool thp = false) {
    OneVma s;
    s.sys = make_system(preset);
    System& sys = *s.sys;
    Mm& mm = mm_create(sys);
    s.mm = &mm;
    s.vma = &do_mmap(sys, mm, bytes, VM_READ | VM_WRITE | (thp ? VM_HUGEPAGE : 0), "data");
    add_region(sys, *s.vma, 0, s.vma->nr_pages(), "data");
    for (int i = 0; i < threads; ++i) {
        s.programs.push_back(std::make_unique<PhaseList>(std::vector<Phase>{}));
        Task& t = i == 0
                      ? create_process(sys, mm, nullptr, "main", s.programs.back().get(), 0, 0)
                      : create_thread(sys, *s.tasks.front(), "thread", s.programs.back().get(), i);
        s.tasks.push_back(&t);
    }
    for (Task* t : s.tasks)
        move_task(sys, *t, cpu);
    const uint64_t n = std::min(s.vma->nr_pages(), touch_bytes >> s.vma->pages.shift);
    for (uint64_t i = 0; i < n; ++i)
        if (!s.vma->present.test(i)) handle_mm_fault(sys, *s.tasks.front(), *s.vma, i, true);
    return s;
}

void protect_all(System& sys, Task& p, Vma& vma) {
    double ns = 0;
    change_prot_numa(sys, p, vma, vma.start, vma.end, ns);
}

// ---------------------------------------------------------------------------------------------
// BM_DoNumaPage: one NUMA hinting fault from fault to accounting to migration decision, as the
// engine's fault path runs it (pgfault, do_numa_page -> numa_migrate_check -> mpol_misplaced ->
// should_numa_migrate_memory -> migrate_misplaced_folio -> task_numa_fault). 64 Ki pages of a
// 256 MiB VMA are made PROT_NONE by change_prot_numa and faulted one by one; after a full pass
// they are protected again outside the timed region.
//   mode 0 local:  the task runs on the node holding the pages (no migration);
//   mode 1 remote: the task runs on the other node, every fault migrates its page; the task
//                  changes node after each pass so that the pages are always remote;
//   mode 2 shared: two threads on different nodes take turns by pass, so every fault sees the
//                  other thread's cpupid (shared fault, numa group, two-stage filter).
void BM_DoNumaPage(benchmark::State& state) {
    const int mode = static_cast<int>(state.range(0));
    constexpr uint64_t kBytes = uint64_t{256} << 20;
    OneVma s = one_vma("haswell-2s", 2, kBytes, kBytes, 0);
    System& sys = *s.sys;
    sys.now = 5 * NSEC_PER_SEC;  // mid-run: placement retry timers as in a running task
    Vma& vma = *s.vma;
    const int node1_cpu = sys.topo.nodes[1].cpus.front();
    const int node0_cpu = sys.topo.nodes[0].cpus.front();
    Task* cur = s.tasks[0];
    if (mode == 1) move_task(sys, *cur, node1_cpu);
    if (mode == 2) move_task(sys, *s.tasks[1], node1_cpu);
    protect_all(sys, *cur, vma);
    const uint64_t n = vma.nr_pages();
    uint64_t idx = 0, pass = 0;
    double kernel_ns = 0;
    const uint64_t migrated0 = sys.counters[Vm::numa_pages_migrated];
    for (auto _ : state) {
        if (idx == n) {
            state.PauseTiming();
            ++pass;
            if (mode == 1) move_task(sys, *cur, pass % 2 ? node0_cpu : node1_cpu);
            if (mode == 2) cur = s.tasks[pass % 2];
            protect_all(sys, *cur, vma);
            idx = 0;
            state.ResumeTiming();
        }
        ++sys.counters[Vm::pgfault];
        ++cur->nr_faults;
        kernel_ns += do_numa_page(sys, *cur, vma, idx++, false);
    }
    benchmark::DoNotOptimize(kernel_ns);
    state.SetItemsProcessed(state.iterations());
    state.counters["migrated_frac"] =
        static_cast<double>(sys.counters[Vm::numa_pages_migrated] - migrated0) /
        static_cast<double>(std::max<int64_t>(1, state.iterations()));
    state.SetLabel(mode == 0 ? "local" : mode == 1 ? "remote+migrate" : "shared 2 threads");
}
BENCHMARK(BM_DoNumaPage)->Arg(0)->Arg(1)->Arg(2);

// ---------------------------------------------------------------------------------------------
// BM_MigratingFaultRun: BM_DoNumaPage's remote case (every page migrates) taken as the engine's
// handle_touch takes a sweep with fault runs (docs/model.md, "Fault runs"): the first page of a
// page table is faulted in full, the like pages after it repeat its migration. One iteration is
// one page table (512 pages); items = pages, so the rate compares with BM_DoNumaPage/1.
void BM_MigratingFaultRun(benchmark::State& state) {
    constexpr uint64_t kBytes = uint64_t{256} << 20;
    OneVma s = one_vma("haswell-2s", 2, kBytes, kBytes, 0);
    System& sys = *s.sys;
    sys.now = 5 * NSEC_PER_SEC;
    Vma& vma = *s.vma;
    const int node1_cpu = sys.topo.nodes[1].cpus.front();
    const int node0_cpu = sys.topo.nodes[0].cpus.front();
    Task& p = *s.tasks[0];
    move_task(sys, p, node1_cpu);
    protect_all(sys, p, vma);
    const uint64_t n = vma.nr_pages(), table = vma.pages.pmd_nr();
    uint64_t idx = 0, pass = 0, pages = 0, repeated = 0;
    double kernel_ns = 0;
    NumaFaultOutcome outcome;
    for (auto _ : state) {
        if (idx == n) {
            state.PauseTiming();
            move_task(sys, p, ++pass % 2 ? node0_cpu : node1_cpu);
            protect_all(sys, p, vma);
            idx = 0;
            state.ResumeTiming();
        }
        for (const uint64_t end = idx + table; idx < end;) {
            const bool may_run = numa_fault_run_allowed(sys, p, vma, idx, false);
            const PageFrame before = vma.frame(idx);
            const double ns = do_numa_page(sys, p, vma, idx, false, may_run ? &outcome : nullptr);
            const uint64_t run =
                may_run && outcome.repeatable
                    ? std::min(numa_fault_run(vma, idx, end, before), outcome.run_limit)
                    : 0;
            if (run) repeat_numa_fault(sys, p, vma, idx, run, outcome);
            kernel_ns += ns * static_cast<double>(run + 1);
            pages += run + 1;
            repeated += run;
            idx += run + 1;
        }
    }
    benchmark::DoNotOptimize(kernel_ns);
    state.SetItemsProcessed(static_cast<int64_t>(pages));
    state.counters["run_frac"] =
        static_cast<double>(repeated) / static_cast<double>(std::max<uint64_t>(1, pages));
    state.SetLabel("remote+migrate, runs");
}
BENCHMARK(BM_MigratingFaultRun);

// ---------------------------------------------------------------------------------------------
// BM_SharedPageMigration: the hinting fault that migrates a page mapped by `mappers` processes
// (cowsum's shared data section, `skip_shared_cow = false`): a parent first-touches 4 MiB on
// node 0 and forks mappers - 1 children, which share its frames copy-on-write; every process
// reads its copy in an endless sweep, and the Engine runs 20 ms so that each runs on a CPU of
// its own (x86-8s-144c, 288 CPUs). The last child's pages are then made PROT_NONE and it faults
// them from another node: migrate_misplaced_folio walks every mapping of each page
// (try_to_migrate, the TLB flush batch, the mappers running meanwhile that may wait on the
// migration entry). The child alternates between two remote nodes by pass so that every
// fault past the two-stage filter's first moves its page. items = hinting faults; the
// counters say how many of them migrated and how many mappings each migration walked.
void BM_SharedPageMigration(benchmark::State& state) {
    const int mappers = static_cast<int>(state.range(0));
    constexpr uint64_t kBytes = uint64_t{4} << 20;
    auto sys_owner = make_system("x86-8s-144c");
    System& sys = *sys_owner;
    sys.knobs.skip_shared_cow = false;
    std::vector<std::unique_ptr<PhaseList>> programs;
    auto sweeping = [&](Mm& mm) {
        programs.push_back(std::make_unique<PhaseList>(std::vector<Phase>{
            endless({AccessStream{find_region(mm, "data"), Pattern::Sweep, 1.0, 0.0}}, 4.0)}));
        return programs.back().get();
    };
    Mm& parent_mm = mm_create(sys);
    Vma& pv = do_mmap(sys, parent_mm, kBytes, VM_READ | VM_WRITE, "data");
    add_region(sys, pv, 0, pv.nr_pages(), "data");
    Task& parent = create_process(sys, parent_mm, nullptr, "parent", sweeping(parent_mm), 0, 0);
    move_task(sys, parent, sys.topo.nodes[0].cpus.front());
    for (uint64_t i = 0; i < pv.nr_pages(); ++i)
        handle_mm_fault(sys, parent, pv, i, true);
    Task* child = &parent;
    for (int c = 1; c < mappers; ++c) {
        Mm& mm = dup_mm(sys, parent_mm);
        child = &create_process(sys, mm, &parent, "child", sweeping(mm), 0, c);
    }
    Engine engine(sys);
    engine.run(20 * NSEC_PER_MSEC);
    Task& p = *child;
    Vma& vma = *find_region(*p.mm, "data")->vma;
    const int remote[2] = {sys.topo.nodes[1].cpus.front(), sys.topo.nodes[2].cpus.front()};
    const uint64_t n = vma.nr_pages();
    uint64_t idx = n, pass = 0;
    double kernel_ns = 0;
    const uint64_t migrated0 = sys.counters[Vm::numa_pages_migrated];
    for (auto _ : state) {
        if (idx == n) {
            state.PauseTiming();
            move_task(sys, p, remote[pass++ % 2]);
            protect_all(sys, p, vma);
            idx = 0;
            state.ResumeTiming();
        }
        ++sys.counters[Vm::pgfault];
        ++p.nr_faults;
        kernel_ns += do_numa_page(sys, p, vma, idx++, false);
    }
    benchmark::DoNotOptimize(kernel_ns);
    state.SetItemsProcessed(state.iterations());
    const uint64_t migrated = sys.counters[Vm::numa_pages_migrated] - migrated0;
    state.counters["migrated_frac"] = static_cast<double>(migrated) /
                                      static_cast<double>(std::max<int64_t>(1, state.iterations()));
    state.counters["mappings"] = static_cast<double>(vma.object->mappers.size());
}
BENCHMARK(BM_SharedPageMigration)->ArgName("mappers")->Arg(2)->Arg(32)->Arg(288);

// ---------------------------------------------------------------------------------------------
// BM_ChangeProtNuma: change_prot_numa over a fully present VMA of `MiB` (256 MiB = the default
// scan window, 2 GiB = the 8x virtual cap of one window), from a 2-thread process (so rule 5,
// the single-threaded target_node check, does not apply). thp=1 maps the VMA with THPs.
// items = PTEs made PROT_NONE.
void BM_ChangeProtNuma(benchmark::State& state) {
    const uint64_t bytes = static_cast<uint64_t>(state.range(0)) << 20;
    const bool thp = state.range(1) != 0;
    OneVma s = one_vma("haswell-2s", 2, bytes, bytes, 0, thp);
    System& sys = *s.sys;
    Vma& vma = *s.vma;
    Task& p = *s.tasks[0];
    uint64_t updated = 0;
    for (auto _ : state) {
        double ns = 0;
        updated += change_prot_numa(sys, p, vma, vma.start, vma.end, ns);
        state.PauseTiming();
        unprotect_all(vma);
        state.ResumeTiming();
    }
    state.SetItemsProcessed(static_cast<int64_t>(updated));
    state.SetBytesProcessed(static_cast<int64_t>(updated * vma.pages.size()));
}
BENCHMARK(BM_ChangeProtNuma)
    ->ArgNames({"MiB", "thp"})
    ->Args({256, 0})
    ->Args({2048, 0})
    ->Args({256, 1})
    ->Unit(benchmark::kMicrosecond);

// ---------------------------------------------------------------------------------------------
// BM_TaskNumaWork: one task_numa_work() scan window (v6.12 rules: per-VMA numab state, pid
// tracking; scan_size_mb = 256, so at most 256 MiB changed and 2 GiB walked).
//   case 0: a 4 GiB VMA, all present: the window stops after 256 MiB of changed PTEs;
//   case 1: a 2 GiB VMA, all present and already PROT_NONE: nothing changes, 2 GiB walked;
//   case 2: a 2 GiB VMA never touched: nothing present, 2 GiB of empty page tables walked.
// The scan cursor, the per-VMA state and the PROT_NONE bits are reset outside the timed region.
void BM_TaskNumaWork(benchmark::State& state) {
    const int c = static_cast<int>(state.range(0));
    const uint64_t bytes = uint64_t{c == 0 ? 4096u : 2048u} << 20;
    OneVma s = one_vma("haswell-2s", 2, bytes, c == 2 ? 0 : bytes, 0);
    System& sys = *s.sys;
    Mm& mm = *s.mm;
    Vma& vma = *s.vma;
    Task& p = *s.tasks[0];
    sys.now = 10 * NSEC_PER_SEC;
    if (c == 1) protect_all(sys, p, vma);
    uint64_t changed = 0;
    const uint64_t updates0 = sys.counters[Vm::numa_pte_updates];
    for (auto _ : state) {
        state.PauseTiming();
        if (c == 0) unprotect_all(vma);
        mm.numa_scan_offset = 0;
        mm.numa_scan_seq = 0;
        mm.numa_next_scan = 1;  // the per-mm gate is open
        vma.numab_state.reset();
        p.numa_scan_period = 0;
        state.ResumeTiming();
        benchmark::DoNotOptimize(task_numa_work(sys, p));
    }
    changed = sys.counters[Vm::numa_pte_updates] - updates0;
    state.counters["ptes_changed"] =
        benchmark::Counter(static_cast<double>(changed), benchmark::Counter::kAvgIterations);
    state.SetBytesProcessed(state.iterations() *
                            static_cast<int64_t>(std::min<uint64_t>(bytes, uint64_t{2048} << 20)));
    state.SetLabel(c == 0   ? "4GiB present: 256MiB window"
                   : c == 1 ? "2GiB all protnone"
                            : "2GiB untouched");
}
BENCHMARK(BM_TaskNumaWork)->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kMicrosecond);

// ---------------------------------------------------------------------------------------------
// A population of busy tasks: `procs` processes of `threads` threads; every thread sweeps its
// own `slice_mb` slice and hits a per-process shared region of `shared_mb` (hot set, 30 %
// writes), so that private and shared faults, numa groups and placement all happen. The Engine
// runs `warm` of simulated time (first touch, the 1 s scan delay, a few scan passes) before
// the benchmark looks at it.
struct Population {
    std::unique_ptr<System> sys;
    std::vector<std::unique_ptr<PhaseList>> programs;
    std::unique_ptr<Engine> engine;
};

Population make_population(const std::string& preset, int procs, int threads, uint64_t slice_mb,
                           uint64_t shared_mb, Nanos warm) {
    Population pop;
    pop.sys = make_system(preset);
    System& sys = *pop.sys;
    for (int pr = 0; pr < procs; ++pr) {
        Mm& mm = mm_create(sys);
        Vma& sv = do_mmap(sys, mm, shared_mb << 20, VM_READ | VM_WRITE, "shared");
        Region& shared = add_region(sys, sv, 0, sv.nr_pages(), "shared");
        Task* leader = nullptr;
        for (int t = 0; t < threads; ++t) {
            Vma& v = do_mmap(sys, mm, slice_mb << 20, VM_READ | VM_WRITE, "slice");
            Region& r = add_region(sys, v, 0, v.nr_pages(), "slice" + std::to_string(t));
            AccessStream own{&r, Pattern::Sweep, 0.8, 1.0};
            AccessStream sh{&shared, Pattern::HotSet, 0.2, 0.3};
            pop.programs.push_back(
                std::make_unique<PhaseList>(std::vector<Phase>{endless({own, sh}, 4.0)}));
            leader =
                t == 0
                    ? &create_process(sys, mm, nullptr, "proc", pop.programs.back().get(), 0, 0)
                    : (create_thread(sys, *leader, "thread", pop.programs.back().get(), t), leader);
        }
    }
    pop.engine = std::make_unique<Engine>(sys);
    pop.engine->run(warm);
    return pop;
}

// x86-8s-144c: 8 nodes, 144 cores, 288 CPUs (SMT2). 2 processes x 144 threads = 288 busy
// tasks, one per CPU, as in the 288-process cowsum scenario. 5 s of warm-up: two scan passes,
// so that shared faults have formed numa groups.
Population& pop_288() {
    static Population pop = make_population("x86-8s-144c", 2, 144, 8, 64, 5 * NSEC_PER_SEC);
    return pop;
}
// The same machine with 2 tasks per CPU (576 tasks): runqueues with queued tasks.
Population& pop_576() {
    static Population pop = make_population("x86-8s-144c", 4, 144, 8, 64, 5 * NSEC_PER_SEC);
    return pop;
}
// haswell-2s: 2 nodes, 48 CPUs; 2 processes x 24 threads.
Population& pop_48() {
    static Population pop = make_population("haswell-2s", 2, 24, 64, 256, 4 * NSEC_PER_SEC);
    return pop;
}

Population& population(int which) {
    switch (which) {
        case 48:
            return pop_48();
        case 576:
            return pop_576();
        default:
            return pop_288();
    }
}

// ---------------------------------------------------------------------------------------------
// BM_TaskNumaPlacement: task_numa_placement() for a busy task with fault statistics and a numa
// group, on 2 nodes (haswell-2s) and on 8 nodes (x86-8s-144c). Each iteration starts a new scan
// sequence so that placement runs, and first copies the task's and the group's fault arrays
// (and the locality counters) back to their saved values (a 64- to 256-byte copy, included in
// the time) so that every iteration decays the same statistics.
void BM_TaskNumaPlacement(benchmark::State& state) {
    Population& pop = population(static_cast<int>(state.range(0)));
    System& sys = *pop.sys;
    Task* p = nullptr;
    for (auto& t : sys.tasks)
        if (!t->numa_faults.empty() && t->numa_group && t->state != TaskState::Dead) {
            p = t.get();
            break;
        }
    if (!p) {
        state.SkipWithError("no task with NUMA statistics and a group");
        return;
    }
    // Put back something in the fault buffers, as a pass of faults would have.
    for (int nid = 0; nid < sys.nr_nodes(); ++nid)
        for (int priv = 0; priv < 2; ++priv) {
            p->numa_faults[task_faults_idx(sys, NUMA_MEMBUF, nid, priv)] += 100 + 37 * nid;
            p->numa_faults[task_faults_idx(sys, NUMA_CPUBUF, nid, priv)] += 80 + 11 * nid;
        }
    p->numa_faults_locality[0] += 400;  // consistent with the buffers: remote
    p->numa_faults_locality[1] += 600;  // and local faults of the same pass
    const std::vector<unsigned long> faults = p->numa_faults;
    const unsigned long total = p->total_numa_faults;
    unsigned long locality[3];
    std::copy(std::begin(p->numa_faults_locality), std::end(p->numa_faults_locality), locality);
    NumaGroup& ng = *p->numa_group;
    const std::vector<unsigned long> gfaults = ng.faults;
    const unsigned long gtotal = ng.total_faults;
    const int pref = p->numa_preferred_nid;
    Mm& mm = *p->mm;
    for (auto _ : state) {
        std::copy(faults.begin(), faults.end(), p->numa_faults.begin());
        std::copy(gfaults.begin(), gfaults.end(), ng.faults.begin());
        std::copy(std::begin(locality), std::end(locality), p->numa_faults_locality);
        p->total_numa_faults = total;
        ng.total_faults = gtotal;
        ++mm.numa_scan_seq;
        task_numa_placement(sys, *p);
    }
    if (p->numa_preferred_nid != pref) sched_setnuma(sys, *p, pref);
    state.SetItemsProcessed(state.iterations());
    state.SetLabel(std::to_string(sys.nr_nodes()) + " nodes, group of " +
                   std::to_string(ng.nr_tasks));
}
BENCHMARK(BM_TaskNumaPlacement)->ArgName("tasks")->Arg(48)->Arg(288);

// ---------------------------------------------------------------------------------------------
// BM_TaskNumaMigrate: the task_numa_migrate() search on x86-8s-144c (144 cores, 288 CPUs,
// 8 nodes) with 288 or 576 busy tasks: a task whose preferred node is another node looks for a
// CPU or a task to swap with there (update_numa_stats over the node, task_numa_find_cpu ->
// task_numa_compare per CPU) and then on the other nodes. If it moves (or swaps), the tasks are
// moved back and the preferred node restored outside the timed region.
void BM_TaskNumaMigrate(benchmark::State& state) {
    Population& pop = population(static_cast<int>(state.range(0)));
    System& sys = *pop.sys;
    Task* p = nullptr;
    for (auto& t : sys.tasks)
        if (!t->numa_faults.empty() && t->state == TaskState::Running) {
            p = t.get();
            break;
        }
    if (!p) {
        state.SkipWithError("no running task with NUMA statistics");
        return;
    }
    const int pref0 = p->numa_preferred_nid;
    const int target = (sys.task_node(*p) + 1) % sys.nr_nodes();
    std::vector<int> cpus(sys.tasks.size());
    for (size_t i = 0; i < cpus.size(); ++i)
        cpus[i] = sys.tasks[i]->cpu;
    int64_t moved = 0, stuck = 0;
    for (auto _ : state) {
        state.PauseTiming();
        sched_setnuma(sys, *p, target);
        state.ResumeTiming();
        const int ret = task_numa_migrate(sys, *p);
        state.PauseTiming();
        if (ret == 0) {
            ++moved;
        } else {
            ++stuck;
        }
        for (size_t i = 0; i < cpus.size(); ++i)
            if (sys.tasks[i]->cpu != cpus[i]) move_task(sys, *sys.tasks[i], cpus[i]);
        for (Rq& rq : sys.rqs)
            if (!rq.curr) schedule(sys, rq.cpu);
        state.ResumeTiming();
    }
    sched_setnuma(sys, *p, pref0);
    state.SetItemsProcessed(state.iterations());
    state.counters["moved_frac"] =
        static_cast<double>(moved) / static_cast<double>(std::max<int64_t>(1, moved + stuck));
    state.SetLabel(std::to_string(sys.nr_cpus()) + " CPUs, " + std::to_string(sys.tasks.size()) +
                   " tasks");
}
BENCHMARK(BM_TaskNumaMigrate)->ArgName("tasks")->Arg(288)->Arg(576)->Unit(benchmark::kMicrosecond);

// ---------------------------------------------------------------------------------------------
// BM_BuildSchedDomains: build_sched_domains() for a preset, as each System's construction runs
// it (every CPU's levels, their groups and the group ids); a scenario builds it once for its
// memory check and once per run. items = CPUs.
void BM_BuildSchedDomains(benchmark::State& state) {
    static const char* const kPresets[] = {"cascadelake-2s", "epyc-7763-2s", "x86-8s-144c"};
    const Topology t = load_preset(kPresets[state.range(0)]);
    for (auto _ : state)
        benchmark::DoNotOptimize(build_sched_domains(t));
    state.SetItemsProcessed(state.iterations() * t.nr_cpus());
    state.SetLabel(t.name);
}
BENCHMARK(BM_BuildSchedDomains)->ArgName("preset")->DenseRange(0, 2)->Unit(benchmark::kMicrosecond);

// ---------------------------------------------------------------------------------------------
// BM_SchedulerTick: scheduler_tick() on every CPU of x86-8s-144c (288 CPUs) with 288 or 576 busy
// tasks, time advancing one jiffy per iteration (PELT updates, the slice check, task_tick_numa,
// and the periodic load balance when its interval expires). items = CPU ticks.
void BM_SchedulerTick(benchmark::State& state) {
    Population& pop = population(static_cast<int>(state.range(0)));
    System& sys = *pop.sys;
    const int n = sys.nr_cpus();
    for (auto _ : state) {
        sys.now += TICK_NSEC;
        for (int c = 0; c < n; ++c)
            scheduler_tick(sys, c);
    }
    state.SetItemsProcessed(state.iterations() * n);
    state.SetLabel(std::to_string(n) + " CPUs, " + std::to_string(sys.tasks.size()) + " tasks");
}
BENCHMARK(BM_SchedulerTick)->ArgName("tasks")->Arg(288)->Arg(576)->Unit(benchmark::kMicrosecond);

// ---------------------------------------------------------------------------------------------
// BM_EngineTick: one whole engine step of one jiffy (4 ms simulated): every CPU advanced
// through its tasks' streams and faults, the global tick (scheduler_tick, task_numa_work,
// schedule) and the cost model update. Counter sim_x_realtime = simulated / wall time.
void BM_EngineTick(benchmark::State& state) {
    // Separate populations: this benchmark advances their clocks for good.
    static Population p48 = make_population("haswell-2s", 2, 24, 64, 256, 4 * NSEC_PER_SEC);
    static Population p288 = make_population("x86-8s-144c", 2, 144, 8, 64, 5 * NSEC_PER_SEC);
    Population& pop = state.range(0) == 48 ? p48 : p288;
    System& sys = *pop.sys;
    for (auto _ : state)
        pop.engine->run(sys.now + TICK_NSEC);
    state.SetItemsProcessed(state.iterations());
    state.counters["sim_x_realtime"] = benchmark::Counter(
        static_cast<double>(TICK_NSEC) / 1e9, benchmark::Counter::kIsIterationInvariantRate);
    state.SetLabel(sys.topo.name + ", " + std::to_string(sys.tasks.size()) + " tasks");
}
BENCHMARK(BM_EngineTick)->ArgName("tasks")->Arg(48)->Arg(288)->Unit(benchmark::kMicrosecond);

// ---------------------------------------------------------------------------------------------
// BM_SettledTicks: one simulated second of 48 CPU-bound threads, each sweeping its own 64 MiB
// on haswell-2s, once their PELT averages have settled (4 s of warm-up), with deferred ticks
// (Arg 1) and with every CPU advanced and ticked at every tick (Arg 0). The v6.12 scanner still
// marks their memory now and then, which ends the deferring for a while.
Population make_settled(bool deferred) {
    Population pop;
    pop.sys = make_system("haswell-2s");
    System& sys = *pop.sys;
    Mm& mm = mm_create(sys);
    Task* leader = nullptr;
    for (int t = 0; t < 48; ++t) {
        Vma& v = do_mmap(sys, mm, uint64_t{64} << 20, VM_READ | VM_WRITE, "slice");
        Region& r = add_region(sys, v, 0, v.nr_pages(), "slice" + std::to_string(t));
        pop.programs.push_back(std::make_unique<PhaseList>(
            std::vector<Phase>{endless({AccessStream{&r, Pattern::Sweep, 1.0, 0.0}}, 4.0)}));
        leader =
            t == 0 ? &create_process(sys, mm, nullptr, "proc", pop.programs.back().get(), 0, 0)
                   : (create_thread(sys, *leader, "thread", pop.programs.back().get(), t), leader);
    }
    pop.engine = std::make_unique<Engine>(sys);
    pop.engine->set_deferred_ticks(deferred);
    pop.engine->run(4 * NSEC_PER_SEC);
    return pop;
}

void BM_SettledTicks(benchmark::State& state) {
    static Population on = make_settled(true), off = make_settled(false);
    Population& pop = state.range(0) ? on : off;
    System& sys = *pop.sys;
    const uint64_t held_before = pop.engine->deferred_cpu_ticks();
    for (auto _ : state)
        pop.engine->run(sys.now + NSEC_PER_SEC);
    state.counters["sim_x_realtime"] =
        benchmark::Counter(1.0, benchmark::Counter::kIsIterationInvariantRate);
    state.counters["held_back_share"] =
        static_cast<double>(pop.engine->deferred_cpu_ticks() - held_before) /
        (static_cast<double>(state.iterations()) * HZ * sys.nr_cpus());
}
BENCHMARK(BM_SettledTicks)->ArgName("deferred")->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

// ---------------------------------------------------------------------------------------------
// BM_CostModelUpdate: CostModel::update() with 48 running tasks (haswell-2s) and 288 running
// tasks (x86-8s-144c): LLC footprints, SMT sharing and the closed-loop bandwidth solve.
void BM_CostModelUpdate(benchmark::State& state) {
    Population& pop = population(static_cast<int>(state.range(0)));
    System& sys = *pop.sys;
    // What the engine hands the cost model each tick: per CPU, the running task's access mix.
    std::vector<CpuRunning> by_cpu(sys.nr_cpus());
    int running = 0;
    for (const Rq& rq : sys.rqs)
        if (rq.curr && rq.curr->touches) {
            by_cpu[rq.cpu] = CpuRunning{rq.curr->touches, rq.curr->index, 1.0};
            ++running;
        }
    for (auto _ : state)
        sys.cost.update(by_cpu, sys.now);
    state.SetItemsProcessed(state.iterations());
    state.counters["running"] = running;
}
BENCHMARK(BM_CostModelUpdate)->ArgName("tasks")->Arg(48)->Arg(288)->Unit(benchmark::kMicrosecond);

// ---------------------------------------------------------------------------------------------
// BM_DemandAfterMove: CostModel::update() on superdome-flex-16s (16 nodes, 896 CPUs) with a
// thread of one process on every CPU, each sweeping the process's 64 GiB buffer and touching its
// own 8 MiB stack, at ticks where one buffer page moved since the last: every CPU's demand must
// be derived again. Arg 1: the stacks are alike (all present on the thread's node), so CPUs of
// one node with the same sharing copy one derivation (cost/demand_share.cpp); Arg 0: each stack
// has its own page count, so every CPU derives its own.
void BM_DemandAfterMove(benchmark::State& state) {
    auto sys = make_system("superdome-flex-16s");
    const int ncpu = sys->nr_cpus();
    const bool alike = state.range(0) != 0;
    // Page counts set directly, as the cost model's tests do (the totals and their stamp).
    const auto place = [&](Region& r, int nid, uint64_t present) {
        r.node_pages[static_cast<size_t>(nid)] = present;
        r.present = present;
        r.stamp.bump();
    };
    Mm& mm = mm_create(*sys);
    Vma& buf = do_mmap(*sys, mm, uint64_t{64} << 30, VM_READ | VM_WRITE, "buffer");
    Region& all = add_region(*sys, buf, 0, buf.nr_pages(), "buffer");
    place(all, 0, all.count);
    std::vector<std::vector<AccessStream>> streams(static_cast<size_t>(ncpu));
    std::vector<AccessMix> mixes(static_cast<size_t>(ncpu));
    std::vector<CpuRunning> by_cpu(static_cast<size_t>(ncpu));
    for (int c = 0; c < ncpu; ++c) {
        Vma& st = do_mmap(*sys, mm, uint64_t{8} << 20, VM_READ | VM_WRITE, "stack");
        Region& stack = add_region(*sys, st, 0, st.nr_pages(), "stack" + std::to_string(c));
        place(stack, sys->cost.cpu_node(c), alike ? stack.count : 1 + static_cast<uint64_t>(c));
        auto& s = streams[static_cast<size_t>(c)];
        s = {AccessStream{&all, Pattern::Sweep, 1.0, 1.0},
             AccessStream{&stack, Pattern::Random, 1e-5, 0.5}};
        mixes[static_cast<size_t>(c)] = AccessMix{s, 10.0, 0};
        by_cpu[static_cast<size_t>(c)] = CpuRunning{&mixes[static_cast<size_t>(c)], c, 1.0};
    }
    Nanos now = 0;
    sys->cost.update(by_cpu, now);
    int to = 1;
    for (auto _ : state) {
        account_region_move(buf, 0, 1, 1 - to, to);
        to = 1 - to;
        sys->cost.update(by_cpu, now += TICK_NSEC);
    }
    state.SetItemsProcessed(state.iterations() * ncpu);
    state.counters["shared"] = static_cast<double>(sys->cost.demand_shares()) /
                               static_cast<double>(sys->cost.demand_misses());
}
BENCHMARK(BM_DemandAfterMove)->ArgName("alike")->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace numasim

BENCHMARK_MAIN();
