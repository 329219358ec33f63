// Fault runs (numa_fault_run, repeat_numa_fault): a run of like PROT_NONE pages handled as one
// decision repeated leaves exactly the state of faulting the pages one by one, on hand-built
// pages of every kind: local, remote and migrating, shared with another thread, tagged page by
// page differently, across a page-table boundary, with placement due or not.
#include <algorithm>
#include <string>
#include <vector>

#include "mm/fault_locks.h"
#include "numab_fixture.h"
#include "sim/rng.h"

namespace numasim::test {
namespace {

// The pages of the test VMA: [lo, hi) on `nid`, tagged `cpupid`, PROT_NONE unless `hole`.
struct Span {
    uint64_t lo, hi;
    int nid;
    cpupid_t cpupid;
    bool alternate = false;  // every other page tagged by pid 3000 instead
    bool hole = false;       // not PROT_NONE: no fault
};

constexpr uint64_t kPages = 1200;
constexpr int kPid = 1000, kOtherPid = 2000;

struct Case {
    const char* name;
    int scan_seq;           // the task's numa_scan_seq
    int mm_scan_seq;        // the mm's: placement runs once for a newer one
    int preferred;          // numa_preferred_nid
    Nanos now;              // simulated time: placement is due once jiffies pass the retry
    int64_t migrate_retry;  // numa_migrate_retry
};

struct State {
    std::vector<uint64_t> counters;
    std::vector<uint64_t> frames;  // per page: the frame's 8 bytes
    std::vector<bool> protnone;
    std::vector<uint32_t> blk_protnone;
    std::vector<unsigned long> numa_faults, locality;
    std::vector<int64_t> task;  // pages migrated, hint faults, preferred node, retry, group size
    std::vector<uint64_t> free_pages;
    double ns = 0;
    uint64_t handled = 0;           // pages of repeated faults (0 one by one)
    uint64_t migrated_handled = 0;  // of those, pages that repeated a migration
    // Cost statistics (shootdowns, IPIs, expected waiters and their wait) and each task's debts.
    std::vector<double> charges;
};

// What faulting left, after fault_pages: the counters, `vma`'s frames and PTEs, p's fault
// statistics, the nodes' free pages, and the charges (cost statistics, every task's debts).
void note_state(const System& sys, const Task& p, const Vma& vma, State& st) {
    st.counters.assign(sys.counters.vm.begin(), sys.counters.vm.end());
    st.counters.push_back(sys.counters.mm_migrate_pages);
    for (uint64_t i = 0; i < vma.nr_pages(); ++i) {
        const PageFrame& f = vma.frame(i);
        st.frames.push_back(uint64_t{f.inv_cpupid} << 32 | uint64_t{f.nid} << 24 |
                            uint64_t{f.flags} << 16 | f.mapcount);
        st.protnone.push_back(vma.protnone.test(i));
    }
    st.blk_protnone = vma.blk_protnone;
    st.numa_faults = p.numa_faults;
    st.locality.assign(std::begin(p.numa_faults_locality), std::end(p.numa_faults_locality));
    st.task = {
        static_cast<int64_t>(p.numa_pages_migrated),    static_cast<int64_t>(p.numa_hint_faults),
        static_cast<int64_t>(p.numa_hint_faults_local), p.numa_preferred_nid,
        static_cast<int64_t>(p.numa_migrate_retry),     p.numa_group ? p.numa_group->nr_tasks : 0};
    for (const auto& n : sys.mem.nodes)
        st.free_pages.push_back(n.free_pages);
    const auto& k = sys.cost.stats();
    st.charges = {static_cast<double>(k.tlb_shootdowns), static_cast<double>(k.tlb_ipis),
                  k.migration_waiters, k.migration_wait_ns};
    for (const auto& t : sys.tasks) {
        st.charges.push_back(static_cast<double>(t->kernel_debt));
        st.charges.push_back(static_cast<double>(t->blocked_debt));
    }
}

// Faults every PROT_NONE page of `vma` in order, as a sweep does: one by one, or (runs) taking
// the run after each repeatable fault as the engine's handle_touch does.
void fault_pages(System& sys, Task& p, Vma& vma, bool runs, State& st) {
    const uint64_t n = vma.nr_pages();
    for (uint64_t j = 0; j < n;) {
        if (!vma.protnone.test(j)) {
            ++j;
            continue;
        }
        const bool may_run = runs && numa_fault_run_allowed(sys, p, vma, j, false);
        const PageFrame before = vma.frame(j);
        NumaFaultOutcome o;
        const double ns = do_numa_page(sys, p, vma, j, false, may_run ? &o : nullptr);
        st.ns += ns;
        ++j;
        const uint64_t run = may_run && o.repeatable
                                 ? std::min(numa_fault_run(vma, j - 1, n, before), o.run_limit)
                                 : 0;
        if (run) {
            repeat_numa_fault(sys, p, vma, j - 1, run, o);
            st.ns += ns * static_cast<double>(run);
            st.handled += run;
            if (o.migrated) st.migrated_handled += run;
            j += run;
        }
    }
}

State fault_all(const Case& c, bool runs) {
    NumabWorld w;
    w.sys.now = c.now;
    Mm& mm = w.new_mm();
    mm.numa_scan_seq = c.mm_scan_seq;
    Vma& vma = w.new_vma(mm, kPages, 0);
    Task& p = w.new_task(mm, kPid, 0, true);       // CPU 0: node 0
    Task& q = w.new_task(mm, kOtherPid, 2, true);  // CPU 2: node 1, same process
    p.numa_scan_seq = c.scan_seq;
    p.numa_preferred_nid = c.preferred;
    p.numa_migrate_retry = c.migrate_retry;
    (void)q;
    const Span spans[] = {
        {0, 600, 0, CPUPID_UNSET},                         // local, across a table boundary
        {600, 700, 1, cpu_pid_to_cpupid(0, kPid)},         // remote, private: migrates
        {700, 800, 0, cpu_pid_to_cpupid(2, kOtherPid)},    // shared with q: grouping
        {800, 810, 0, CPUPID_UNSET, false, true},          // not PROT_NONE
        {810, 900, 1, cpu_pid_to_cpupid(2, kOtherPid)},    // remote, shared, other node
        {900, 1000, 1, cpu_pid_to_cpupid(3, kPid), true},  // tags alternate
        {1000, kPages, 1, cpu_pid_to_cpupid(1, kPid)},     // remote from node 0: filter
    };
    for (const Span& s : spans)
        for (uint64_t i = s.lo; i < s.hi; ++i) {
            PageFrame& f = vma.frame(i);
            f.nid = static_cast<uint8_t>(s.nid);
            f.set_last_cpupid(s.alternate && i % 2 ? cpu_pid_to_cpupid(3, 3000) : s.cpupid);
            if (!s.hole) vma.protnone.set(i);
        }
    vma.init_block_counts();

    State st;
    fault_pages(w.sys, p, vma, runs, st);
    note_state(w.sys, p, vma, st);
    return st;
}

class FaultRunTest : public testing::TestWithParam<Case> {};

TEST_P(FaultRunTest, SameStateAsOneByOne) {
    const State one = fault_all(GetParam(), false);
    const State run = fault_all(GetParam(), true);
    EXPECT_EQ(one.handled, 0u);
    EXPECT_GT(run.handled, 0u);  // runs were taken
    EXPECT_EQ(run.counters, one.counters);
    EXPECT_EQ(run.frames, one.frames);
    EXPECT_EQ(run.protnone, one.protnone);
    EXPECT_EQ(run.blk_protnone, one.blk_protnone);
    EXPECT_EQ(run.numa_faults, one.numa_faults);
    EXPECT_EQ(run.locality, one.locality);
    EXPECT_EQ(run.task, one.task);
    EXPECT_EQ(run.free_pages, one.free_pages);
    EXPECT_DOUBLE_EQ(run.ns, one.ns);
    EXPECT_EQ(run.charges, one.charges);
}

// Jiffies at 10 s of simulated time (HZ 250): past a retry of 0, before one of 10^6.
constexpr Nanos kLater = 10'000'000'000;

INSTANTIATE_TEST_SUITE_P(
    Tasks, FaultRunTest,
    testing::Values(Case{"EarlyLife", 0, 0, NUMA_NO_NODE, 0, 0},
                    Case{"Settled", 6, 6, 0, kLater, 1'000'000},
                    Case{"PlacementDue", 6, 6, 0, kLater, 0},
                    Case{"PlacementDueNoPreferredNode", 6, 6, NUMA_NO_NODE, kLater, 0},
                    Case{"NewScanSequence", 0, 1, NUMA_NO_NODE, kLater, 0}),
    [](const testing::TestParamInfo<Case>& i) { return std::string(i.param.name); });

// A shared fault that joins the faulting task to another thread's group changes the group
// whose statistics decide the next page: the run must start only after it. Page 0 is decided
// by p's own empty group (stay); from page 1 on q's group, whose CPU faults are on p's node,
// pulls every page over.
TEST(NumaFaultRun, GroupJoinEndsTheRun) {
    auto fault = [](bool runs) {
        NumabWorld w;
        Mm& mm = w.new_mm();
        Vma& vma = w.new_vma(mm, 64, 1);
        Task& p = w.new_task(mm, kPid, 0, true);       // node 0
        Task& q = w.new_task(mm, kOtherPid, 1, true);  // node 0 too
        p.numa_preferred_nid = 0;
        p.numa_scan_seq = mm.numa_scan_seq = 6;
        p.numa_migrate_retry = 1'000'000;
        w.give_faults(p);
        w.give_faults(q);
        // p's group first (the older one joins the newer on a tie), then q's.
        int priv = 0;
        task_numa_group(w.sys, p, CPUPID_UNSET, 0, &priv);
        task_numa_group(w.sys, q, CPUPID_UNSET, 0, &priv);
        q.numa_group->faults[task_faults_idx(w.sys, NUMA_CPU, 0, 0)] = 1000;
        for (uint64_t i = 0; i < 64; ++i)
            vma.frame(i).set_last_cpupid(cpu_pid_to_cpupid(1, kOtherPid));
        vma.protnone.set_range(0, 64);
        vma.init_block_counts();
        State st;
        fault_pages(w.sys, p, vma, runs, st);
        return std::vector<uint64_t>{w.sys.counters[Vm::numa_pages_migrated],
                                     p.numa_group == q.numa_group, st.handled};
    };
    const std::vector<uint64_t> one = fault(false), run = fault(true);
    EXPECT_EQ(one, (std::vector<uint64_t>{63, 1, 0}));
    // Page 1 migrates in full, pages 2-63 repeat it.
    EXPECT_EQ(run, (std::vector<uint64_t>{63, 1, 62}));
}

// A run never crosses a page table (one PTE lock), a page of another state, or a page that is
// not PROT_NONE, and stops at `hi`.
TEST(NumaFaultRun, StopsWhereTheStateOrTheTableChanges) {
    NumabWorld w;
    Mm& mm = w.new_mm();
    Vma& vma = w.new_vma(mm, kPages, 0);
    Task& p = w.new_task(mm, kPid, 0, true);
    vma.protnone.set_range(0, kPages);
    vma.protnone.clear(700);
    vma.frame(650).set_last_cpupid(cpu_pid_to_cpupid(1, kPid));
    vma.init_block_counts();
    const uint64_t kTable = vma.pages.pmd_nr();  // the pages of one PTE table
    auto run = [&](uint64_t idx, uint64_t hi) {
        EXPECT_TRUE(numa_fault_run_allowed(w.sys, p, vma, idx, false));
        return numa_fault_run(vma, idx, hi, vma.frame(idx));
    };
    EXPECT_EQ(run(0, kPages), kTable - 1);
    EXPECT_EQ(run(500, kPages), kTable - 501);
    EXPECT_EQ(run(600, kPages), 49u);  // 650 differs
    EXPECT_EQ(run(651, kPages), 48u);  // 700 is not PROT_NONE
    EXPECT_EQ(run(651, 660), 8u);
    EXPECT_EQ(run(659, 660), 0u);
}

// Migrating pages run only while the target stays above its high watermark: with room for
// five pages, the first fault migrates, the run after it takes four more, and the sixth page's
// refused migration starts a run of refusals.
TEST(NumaFaultRun, MigratingRunStopsAtTheWatermark) {
    auto fault = [](bool runs) {
        NumabWorld w;
        Mm& mm = w.new_mm();
        Vma& vma = w.new_vma(mm, 64, 1);
        Task& p = w.new_task(mm, kPid, 0, true);  // node 0; early in life: private faults move
        NodeMemory& target = w.sys.mem.nodes[0];
        target.free_pages = target.wmark_high + 5;
        vma.protnone.set_range(0, 64);
        vma.init_block_counts();
        State st;
        fault_pages(w.sys, p, vma, runs, st);
        return std::vector<uint64_t>{w.sys.counters[Vm::numa_pages_migrated],
                                     w.sys.counters[Vm::pgmigrate_success],
                                     w.sys.counters.mm_migrate_pages,
                                     p.numa_pages_migrated,
                                     p.numa_faults_locality[2],
                                     target.free_pages,
                                     st.handled};
    };
    const std::vector<uint64_t> one = fault(false), run = fault(true);
    const uint64_t wmark = NumabWorld().sys.mem.nodes[0].wmark_high;
    EXPECT_EQ(one, (std::vector<uint64_t>{5, 5, 5, 5, 59, wmark, 0}));
    EXPECT_EQ(run, (std::vector<uint64_t>{5, 5, 5, 5, 59, wmark, 4 + 58}));
}

// A page of an object that another process maps too (copy-on-write after fork) costs what its
// mappers' PTEs make it cost: the other mapping's PTE is accessible on pages [20, 64), so their
// migration flushes that process's TLB on the CPU where it runs. A run of migrating pages stops
// where the other mapping's state changes, and the state, statistics and debts are those of
// migrating page by page.
TEST(NumaFaultRun, MigratingRunStopsWhereAnotherMapperDiffers) {
    auto fault = [](bool runs) {
        NumabWorld w;
        Mm& mm = w.new_mm();
        Vma& vma = w.new_vma(mm, 64, 1);
        Task& p = w.new_task(mm, kPid, 0, true);  // node 0
        Mm& other_mm = w.new_mm();
        Task& q = w.new_task(other_mm, kOtherPid, 3, true);  // node 1
        other_mm.cpumask = Bitmap(static_cast<uint64_t>(w.sys.nr_cpus()));
        other_mm.cpumask.set(3);
        // The other process's mapping of the same object: present, PROT_NONE on [0, 20).
        Vma& other = w.map_object(other_mm, vma, 0, 64);
        other.present.set_range(0, 64);
        other.protnone.set_range(0, 20);
        other.init_block_counts();
        for (uint64_t i = 0; i < 64; ++i)
            vma.frame(i).mapcount = 2;
        vma.protnone.set_range(0, 64);
        vma.init_block_counts();
        State st;
        fault_pages(w.sys, p, vma, runs, st);
        note_state(w.sys, p, vma, st);
        std::vector<double> out = st.charges;
        out.push_back(static_cast<double>(w.sys.counters[Vm::numa_pages_migrated]));
        out.push_back(static_cast<double>(q.kernel_debt));
        out.push_back(st.ns);  // summed page by page or run by run: equal to a few ulps
        out.push_back(static_cast<double>(st.handled));
        return out;
    };
    std::vector<double> one = fault(false), run = fault(true);
    EXPECT_DOUBLE_EQ(run[run.size() - 2], one[one.size() - 2]);
    run[run.size() - 2] = one[one.size() - 2];
    // Every page migrated; the 44 with an accessible PTE in the other mapping each interrupted
    // CPU 3 once.
    EXPECT_EQ(one[0], 44.0);               // shootdowns
    EXPECT_EQ(one[1], 44.0);               // IPIs
    EXPECT_EQ(one[one.size() - 4], 64.0);  // pages migrated
    EXPECT_EQ(one.back(), 0.0);
    // Pages 1-19 repeat page 0, pages 21-63 page 20.
    EXPECT_EQ(run.back(), 19.0 + 43.0);
    EXPECT_EQ(std::vector<double>(run.begin(), run.end() - 1),
              std::vector<double>(one.begin(), one.end() - 1));
}

// Runs of migrating pages across random worlds: an object mapped by up to four processes with
// windows at random offsets, each mapping's present and PROT_NONE bits in random stretches, the
// pages' nodes and tags in random stretches, the target's free pages near its watermark or not,
// and the flush batched or not. Faulting the first mapping's pages with runs must leave what
// faulting them one by one leaves, whatever the draw.
TEST(NumaFaultRun, RandomSharedWorldsSameAsOneByOne) {
    uint64_t migrated_in_runs = 0;
    for (uint64_t seed = 1; seed <= 60; ++seed) {
        auto fault = [seed](bool runs) {
            Rng rng(seed, "fault-run-worlds");
            NumaBalancingKnobs knobs;
            knobs.migrate_tlb_batch = rng.bernoulli(0.5);
            NumabWorld w(knobs);
            const uint64_t n = 64 + rng.below(1100);
            Mm& mm = w.new_mm();
            Vma& vma = w.new_vma(mm, n, 0);
            Task& p = w.new_task(mm, kPid, 0, true);  // node 0
            // Stretches of random length: f(first, end) for each.
            auto stretches = [&](uint64_t lo, uint64_t hi, auto f) {
                for (uint64_t i = lo; i < hi;) {
                    const uint64_t e = std::min(hi, i + 1 + rng.below(200));
                    f(i, e);
                    i = e;
                }
            };
            const int others = static_cast<int>(rng.below(4));
            std::vector<Vma*> maps;
            for (int k = 0; k < others; ++k) {
                Mm& omm = w.new_mm();
                const int cpu = 1 + k % 3;
                if (!w.sys.rqs[cpu].curr) w.new_task(omm, kOtherPid + k, cpu, true);
                omm.cpumask = Bitmap(static_cast<uint64_t>(w.sys.nr_cpus()));
                omm.cpumask.set(static_cast<uint64_t>(cpu));
                if (rng.bernoulli(0.5)) omm.cpumask.set(0);
                const uint64_t off = rng.below(n / 2), len = 1 + rng.below(n - off);
                Vma& o = w.map_object(omm, vma, off, len);
                stretches(0, len, [&](uint64_t a, uint64_t b) {
                    if (rng.bernoulli(0.7)) o.present.set_range(a, b);
                });
                stretches(0, len, [&](uint64_t a, uint64_t b) {
                    for (uint64_t i = a; i < b; ++i)
                        if (o.present.test(i) && rng.bernoulli(0.5)) o.protnone.set(i);
                });
                o.init_block_counts();
                maps.push_back(&o);
            }
            stretches(0, n, [&](uint64_t a, uint64_t b) {
                const auto nid = static_cast<uint8_t>(rng.below(2));
                const uint64_t tag = rng.below(3);
                const cpupid_t c = tag == 0   ? CPUPID_UNSET
                                   : tag == 1 ? cpu_pid_to_cpupid(0, kPid)
                                              : cpu_pid_to_cpupid(3, 3000);
                for (uint64_t i = a; i < b; ++i) {
                    PageFrame& f = vma.frame(i);
                    f.nid = nid;
                    f.set_last_cpupid(c);
                    f.mapcount = 1;
                    for (const Vma* o : maps)
                        if (i >= o->pgoff && i - o->pgoff < o->nr_pages() &&
                            o->present.test(i - o->pgoff))
                            ++f.mapcount;
                }
            });
            stretches(0, n, [&](uint64_t a, uint64_t b) {
                if (rng.bernoulli(0.8)) vma.protnone.set_range(a, b);
            });
            vma.init_block_counts();
            if (rng.bernoulli(0.5)) {
                NodeMemory& target = w.sys.mem.nodes[0];
                target.free_pages = target.wmark_high + rng.below(n);
            }
            State st;
            fault_pages(w.sys, p, vma, runs, st);
            note_state(w.sys, p, vma, st);
            return st;
        };
        const State one = fault(false), run = fault(true);
        SCOPED_TRACE("seed " + std::to_string(seed));
        EXPECT_EQ(run.counters, one.counters);
        EXPECT_EQ(run.frames, one.frames);
        EXPECT_EQ(run.protnone, one.protnone);
        EXPECT_EQ(run.free_pages, one.free_pages);
        EXPECT_EQ(run.blk_protnone, one.blk_protnone);
        EXPECT_EQ(run.charges, one.charges);
        EXPECT_EQ(run.numa_faults, one.numa_faults);
        EXPECT_EQ(run.locality, one.locality);
        EXPECT_EQ(run.task, one.task);
        EXPECT_DOUBLE_EQ(run.ns, one.ns);
        migrated_in_runs += run.migrated_handled;
    }
    EXPECT_GT(migrated_in_runs, 1000u);  // the draws did make migrating runs
}

}  // namespace
}  // namespace numasim::test
