// should_numa_migrate_memory's filters and do_numa_page's accounting.
#include "numab_fixture.h"

namespace numasim::test {
namespace {

TEST(ShouldMigrate, TwoStageFilterRefusesFirstRemoteFaultAcceptsSecond) {
    NumabWorld w;
    Mm& mm = w.new_mm();
    Vma& vma = w.new_vma(mm, 16, 0);
    Task& p = w.new_task(mm, 1000, 2);  // CPU 2 is on node 1
    p.numa_preferred_nid = 1;
    p.numa_scan_seq = 5;  // past the early-life rule (<= 4)
    // The page was last faulted by another task (pid 2000) from CPU 0, node 0.
    vma.frame(3).set_last_cpupid(cpu_pid_to_cpupid(0, 2000));
    EXPECT_FALSE(should_numa_migrate_memory(w.sys, p, vma, 3, 0, 2));
    EXPECT_EQ(vma.frame(3).last_cpupid(), cpu_pid_to_cpupid(2, 1000));  // tagged by this fault
    // Second fault from the same node (CPU 3, node 1) by the same task: private, migrate.
    EXPECT_TRUE(should_numa_migrate_memory(w.sys, p, vma, 3, 0, 3));
}

TEST(ShouldMigrate, EarlyLifeMigratesFirstTouch) {
    NumabWorld w;
    Mm& mm = w.new_mm();
    Vma& vma = w.new_vma(mm, 16, 0);
    Task& p = w.new_task(mm, 1000, 2);
    p.numa_scan_seq = 0;
    EXPECT_TRUE(should_numa_migrate_memory(w.sys, p, vma, 0, 0, 2));  // cpupid unset
}

TEST(ShouldMigrate, GroupThreshold) {
    NumabWorld w;
    Mm& mm = w.new_mm();
    Vma& vma = w.new_vma(mm, 16, 0);
    Task& p = w.new_task(mm, 1000, 2);
    p.numa_preferred_nid = 1;
    p.numa_scan_seq = 9;
    NumaGroup g;
    g.faults.assign(static_cast<size_t>(4 * w.sys.nr_nodes()), 0);
    p.numa_group = &g;
    // A shared fault (other pid) from node 1 after one from node 1: the group decides.
    auto cpu_f = [&](int nid) -> unsigned long& {
        return g.faults[task_faults_idx(w.sys, NUMA_CPU, nid, 0)];
    };
    auto mem_f = [&](int nid) -> unsigned long& {
        return g.faults[task_faults_idx(w.sys, NUMA_MEM, nid, 0)];
    };
    cpu_f(0) = 100;
    cpu_f(1) = 301;  // > 3 x 100: the destination does much more of the work
    vma.frame(1).set_last_cpupid(cpu_pid_to_cpupid(3, 2000));
    EXPECT_TRUE(should_numa_migrate_memory(w.sys, p, vma, 1, 0, 2));
    // 3/4 hysteresis: cpu(dst)*mem(src)*3 > cpu(src)*mem(dst)*4
    cpu_f(1) = 200;
    mem_f(0) = 100;
    mem_f(1) = 100;  // 200*100*3 = 60000 > 100*100*4 = 40000
    vma.frame(1).set_last_cpupid(cpu_pid_to_cpupid(3, 2000));
    EXPECT_TRUE(should_numa_migrate_memory(w.sys, p, vma, 1, 0, 2));
    mem_f(1) = 200;  // 60000 > 80000 is false
    vma.frame(1).set_last_cpupid(cpu_pid_to_cpupid(3, 2000));
    EXPECT_FALSE(should_numa_migrate_memory(w.sys, p, vma, 1, 0, 2));
    p.numa_group = nullptr;
}

TEST(DoNumaPage, LocalFaultCountsAndRestores) {
    NumabWorld w;
    Mm& mm = w.new_mm();
    Vma& vma = w.new_vma(mm, 16, 0);
    Task& p = w.new_task(mm, 1000, 0, true);
    vma.protnone.set(5);
    const double ns = do_numa_page(w.sys, p, vma, 5, false);
    EXPECT_GT(ns, 0.0);
    EXPECT_FALSE(vma.protnone.test(5));
    EXPECT_EQ(w.sys.counters[Vm::numa_hint_faults], 1u);
    EXPECT_EQ(w.sys.counters[Vm::numa_hint_faults_local], 1u);
    // Local faults return at the PREFERRED check: the cpupid is not refreshed.
    EXPECT_EQ(vma.frame(5).last_cpupid(), CPUPID_UNSET);
    ASSERT_FALSE(p.numa_faults.empty());
    EXPECT_EQ(p.numa_faults[task_faults_idx(w.sys, NUMA_MEMBUF, 0, 1)],
              1u);  // first touch: private
    EXPECT_EQ(p.numa_faults_locality[1], 1u);
    // Not protnone any more: nothing to do.
    EXPECT_EQ(do_numa_page(w.sys, p, vma, 5, false), 0.0);
}

TEST(DoNumaPage, RemoteFaultMigratesInEarlyLife) {
    NumabWorld w;
    Mm& mm = w.new_mm();
    Vma& vma = w.new_vma(mm, 16, 1);
    Task& p = w.new_task(mm, 1000, 0, true);
    vma.protnone.set(2);
    do_numa_page(w.sys, p, vma, 2, true);
    EXPECT_EQ(w.sys.counters[Vm::numa_hint_faults], 1u);
    EXPECT_EQ(w.sys.counters[Vm::numa_hint_faults_local], 0u);
    EXPECT_EQ(vma.frame(2).nid, 0);  // migrated to the faulting CPU's node
    EXPECT_EQ(p.numa_pages_migrated, 1u);
    EXPECT_EQ(w.sys.counters[Vm::numa_pages_migrated], 1u);
    EXPECT_EQ(p.numa_faults[task_faults_idx(w.sys, NUMA_MEMBUF, 0, 1)], 1u);  // new node
    EXPECT_EQ(p.numa_faults_locality[0], 1u);  // remote before the migration
}

}  // namespace
}  // namespace numasim::test
