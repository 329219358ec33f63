// The invariant checker finds each kind of drift it claims to cover: a consistent state built
// through the model's own paths passes, and corrupting any one cached total is reported with its
// location and both values.
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/engine.h"
#include "engine/process.h"
#include "engine/program.h"
#include "kernel/invariants.h"
#include "kernel/system.h"
#include "machine/presets.h"
#include "mm/fault.h"
#include "mm/mm.h"
#include "mm/tlb.h"
#include "numab/numab.h"
#include "numab/profile.h"

namespace numasim {
namespace {

// Endless 10 ms phases of random reads and writes over the region "all" of the task's mm.
class RandomAccess : public TaskProgram {
  public:
    bool next_phase(Task& t, Phase& ph) override {
        for (auto& r : t.mm->regions)
            if (r->name == "all")
                ph.streams.push_back(
                    {.region = r.get(), .pattern = Pattern::Random, .write_fraction = 0.3});
        ph.cpu_time = msecs_to_ns(10);
        return true;
    }
};

// Two processes: "a" with a 4 MiB VMA (regions over all of it and over its second half) whose
// pages were first touched and then made PROT_NONE, and "b", forked from it (so frames are
// shared, mapcount 2); the two threads of "a" took hinting faults and share a NUMA group. Every
// task reads and writes the whole VMA at random when an engine runs it.
struct World {
    World() : sys(load_preset("tiny-2n"), load_profile("v6.12"), 7) {
        Mm& mm = mm_create(sys);
        vma = &do_mmap(sys, mm, 4ull << 20, VM_READ | VM_WRITE, "heap");
        all = &add_region(sys, *vma, 0, vma->nr_pages(), "all");
        half = &add_region(sys, *vma, 512, 512, "half");
        a = &create_process(sys, mm, nullptr, "a", &work, 0, 0);
        a2 = &create_thread(sys, *a, "a", &work, 1);
        for (uint64_t i = 0; i < vma->nr_pages(); ++i)
            handle_mm_fault(sys, *a, *vma, i, true);
        double ns = 0;
        change_prot_numa(sys, *a, *vma, vma->start, vma->end, ns);
        task_numa_fault(sys, *a, CPUPID_UNSET, 0, 3, 0);
        task_numa_fault(sys, *a2, CPUPID_UNSET, 1, 2, 0);
        // a2 gets a group, a gets a younger one, then a2 joins a's (the smaller or, at equal
        // size, the older group joins).
        int priv = 0;
        task_numa_group(sys, *a2, cpu_pid_to_cpupid(a->cpu, a->pid), 0, &priv);
        task_numa_group(sys, *a, cpu_pid_to_cpupid(a2->cpu, a2->pid), 0, &priv);
        task_numa_group(sys, *a2, cpu_pid_to_cpupid(a->cpu, a->pid), 0, &priv);
        Mm& child = dup_mm(sys, mm);
        create_process(sys, child, a, "b", &work, 0, 2);
    }

    System sys;
    Vma* vma = nullptr;
    Region *all = nullptr, *half = nullptr;
    Task *a = nullptr, *a2 = nullptr;
    RandomAccess work;
};

TEST(InvariantChecker, AStateBuiltByTheModelPasses) {
    World w;
    ASSERT_EQ(w.all->protnone, w.vma->nr_pages());
    ASSERT_EQ(w.vma->frame(0).mapcount, 2);
    ASSERT_NE(w.a->numa_group, nullptr);
    ASSERT_EQ(w.a->numa_group, w.a2->numa_group);
    ASSERT_EQ(w.a->numa_group->nr_tasks, 2);
    EXPECT_EQ(find_invariant_violation(w.sys), std::nullopt);
}

struct Corruption {
    std::string name;
    std::function<void(World&)> corrupt;
    std::vector<std::string> expect;  // substrings of the report
};

class InvariantCheckerFinds : public testing::TestWithParam<Corruption> {};

TEST_P(InvariantCheckerFinds, TheCorruptedTotalWithItsLocation) {
    World w;
    ASSERT_EQ(find_invariant_violation(w.sys), std::nullopt);
    GetParam().corrupt(w);
    const auto v = find_invariant_violation(w.sys);
    ASSERT_TRUE(v.has_value());
    for (const auto& s : GetParam().expect)
        EXPECT_NE(v->find(s), std::string::npos) << "missing '" << s << "' in: " << *v;
}

Task& task_b(World& w) {
    return *w.sys.tasks.back();
}

INSTANTIATE_TEST_SUITE_P(
    EachTotal, InvariantCheckerFinds,
    testing::Values(
        // The lost-fault bug: a region's PROT_NONE count left behind.
        Corruption{"region_protnone",
                   [](World& w) { w.half->protnone = 0; },
                   {"region 'half' pages [512, 1024)", "vma 'heap'", "mm 0",
                    "PROT_NONE pages: cached 0, recomputed 512"}},
        Corruption{"region_node_pages",
                   [](World& w) {
                       --w.all->node_pages[w.vma->frame(0).nid];
                       ++w.all->node_pages[1 - w.vma->frame(0).nid];
                   },
                   {"region 'all'", "present pages on node"}},
        // The object-level totals that a's and b's VMA "heap" and regions "all" all read (b is
        // a's fork; "all" covers the whole VMA); the first reader checked reports it.
        Corruption{"object_range_totals",
                   [](World& w) {
                       ASSERT_NE(w.all->shared, nullptr);
                       --w.all->shared->moved[w.vma->frame(0).nid];
                       ++w.all->shared->moved[1 - w.vma->frame(0).nid];
                   },
                   {"vma 'heap'", "present pages on node", "the object's moves",
                    "of object pages [0, 1024)"}},
        Corruption{"window_mappers",
                   [](World& w) { ++w.vma->shared->window_mappers; },
                   {"anonymous object first mapped by vma 'heap'",
                    "VMAs mapping object pages [0, 1024): cached 3, recomputed 2"}},
        // A cached sched-group sum that missed a change (here a PELT load set behind its back).
        Corruption{"reverse_map_window",
                   [](World& w) { w.vma->object->windows[1].end -= 1; },
                   {"anonymous object first mapped by vma 'heap'",
                    "reverse map window [0, 1023) of", "which maps [0, 1024)"}},
        Corruption{"sched_group_sums",
                   [](World& w) {
                       System& sys = w.sys;
                       sys.sg_cache.enable(sys.sched);
                       for (const SchedDomain& sd : sys.sched.domains[w.a->cpu])
                           for (size_t g = 0; g < sd.groups.size(); ++g)
                               sys.sg_cache.get(sys, sd.group_ids[g]);
                       w.a->avg.load_avg += 2048;
                   },
                   {"sched group", "cached sums load"}},
        Corruption{"region_present",
                   [](World& w) { ++w.half->present; },
                   {"region 'half'", "present pages: cached 513, recomputed 512"}},
        Corruption{
            "blk_absent",
            [](World& w) { w.vma->blk_absent[1] = 3; },
            {"vma 'heap'", "block 1 (pages [512, 1024)) blk_absent: cached 3, recomputed 0"}},
        Corruption{"blk_protnone",
                   [](World& w) { w.vma->blk_protnone[0] = 0; },
                   {"block 0 (pages [0, 512)) blk_protnone: cached 0, recomputed 512"}},
        Corruption{"sblk_interesting",
                   [](World& w) { ++w.vma->sblk_interesting[0]; },
                   {"vma 'heap'", "superblock 0 sblk_interesting: cached 1025, recomputed 1024"}},
        Corruption{"protnone_not_present",
                   [](World& w) { w.vma->present.clear(5); },
                   {"vma 'heap'", "page 5 is PROT_NONE but not present"}},
        Corruption{"rss",
                   [](World& w) { w.vma->mm->rss_pages += 2; },
                   {"mm 0", "rss_pages: cached 1026, recomputed 1024"}},
        Corruption{"mm_users",
                   [](World& w) { ++w.vma->mm->mm_users; },
                   {"mm 0", "mm_users (live threads): cached 3, recomputed 2"}},
        Corruption{"mm_cpumask",
                   [](World& w) {
                       // CPU 3 switches to mm 0, then forgets it without leaving its mask.
                       switch_mm_irqs_off(w.sys, 3, w.vma->mm);
                       w.sys.rqs[3].loaded_mm = nullptr;
                   },
                   {"mm 0", "cpu 3 is in mm_cpumask but its loaded_mm is not this mm"}},
        Corruption{"mapcount",
                   [](World& w) { w.vma->frame(7).mapcount = 1; },
                   {"anonymous object first mapped by vma 'heap'",
                    "frame 7 has mapcount 1, but 2 mappings map it"}},
        Corruption{"free_pages",
                   [](World& w) { w.sys.mem.nodes[1 - w.vma->frame(0).nid].free_pages -= 4; },
                   {"pages in use (present_pages - free_pages, against allocated frames): "
                    "cached 4, recomputed 0"}},
        Corruption{"leaked_frame",
                   [](World& w) {
                       // Both mappings drop page 1023 with correct upkeep, but its frame stays
                       // allocated: a page nothing maps.
                       for (auto& m : w.sys.mms) {
                           Vma& v = *m->vmas[0];
                           v.present.clear(1023);
                           v.protnone.clear(1023);
                           account_region_pages(v, 1023, 1, v.frame(1023).nid, -1);
                           account_region_protnone(v, 1023, 1, -1);
                           --m->rss_pages;
                       }
                       w.vma->object->frames[1023].mapcount = 0;
                   },
                   {"anonymous object first mapped by vma 'heap'", "frame 1023 on node",
                    "is allocated but nothing maps it (leak)"}},
        Corruption{"total_numa_faults",
                   [](World& w) { w.a->total_numa_faults += 5; },
                   {"task pid", "total_numa_faults (against the NUMA_MEM entries)"}},
        Corruption{"group_faults",
                   [](World& w) { w.a->numa_group->faults[1] += 1; },
                   {"NUMA group gid", "faults[NUMA_MEM node 0 private]"}},
        Corruption{"group_total",
                   [](World& w) { w.a->numa_group->total_faults += 7; },
                   {"NUMA group gid", "total_faults (against its members)"}},
        Corruption{"group_nr_tasks",
                   [](World& w) { ++w.a->numa_group->nr_tasks; },
                   {"nr_tasks (live members): cached 3, recomputed 2"}},
        Corruption{"group_refcount",
                   [](World& w) { w.a->numa_group->refcount = 1; },
                   {"refcount (one per member): cached 1, recomputed 2"}},
        Corruption{"nr_running",
                   [](World& w) { ++w.sys.rqs[task_b(w).cpu].nr_running; },
                   {"runqueue: nr_running (curr + queued)"}},
        Corruption{"nr_numa_running",
                   [](World& w) { ++w.sys.rqs[task_b(w).cpu].nr_numa_running; },
                   {"runqueue: nr_numa_running"}},
        Corruption{"nr_preferred_running",
                   [](World& w) { ++w.sys.rqs[task_b(w).cpu].nr_preferred_running; },
                   {"runqueue: nr_preferred_running"}},
        Corruption{"task_off_runqueue",
                   [](World& w) {
                       Rq& rq = w.sys.rqs[task_b(w).cpu];
                       Task* t = &task_b(w);
                       if (rq.curr == t)
                           rq.curr = nullptr;
                       else
                           std::erase(rq.queued, t);
                       --rq.nr_running;
                   },
                   {"is on 0 runqueue entries, expected 1"}}),
    [](const testing::TestParamInfo<Corruption>& i) { return i.param.name; });

// A run that checks does not change what the run computes, and a run over a corrupted state
// stops with the mismatch.
TEST(InvariantChecker, CheckingARunDoesNotChangeIt) {
    auto run = [](bool check) {
        World w;
        Engine e(w.sys);
        e.set_check_invariants(check);
        e.run(msecs_to_ns(300));
        EXPECT_GT(w.sys.counters[Vm::numa_hint_faults], 0u);
        return w.sys.counters.vm;
    };
    EXPECT_EQ(run(true), run(false));
}

TEST(InvariantChecker, ARunOverACorruptedStateThrows) {
    World w;
    w.half->protnone = 0;
    Engine e(w.sys);
    e.set_check_invariants(true);
    try {
        e.run(msecs_to_ns(300));
        FAIL() << "no InvariantViolation";
    } catch (const InvariantViolation& x) {
        const std::string what = x.what();
        EXPECT_NE(what.find("invariant violated after tick 1 (t = 4000000 ns)"), std::string::npos)
            << what;
        EXPECT_NE(what.find("region 'half'"), std::string::npos) << what;
    }
}

}  // namespace
}  // namespace numasim
