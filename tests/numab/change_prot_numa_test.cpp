// change_prot_numa's skip rules, each on its own.
#include "numab_fixture.h"

namespace numasim::test {
namespace {

struct ChangeProtNuma : ::testing::Test {
    NumabWorld w;
    Mm* mm = nullptr;
    Task* t1 = nullptr;
    Task* t2 = nullptr;
    void SetUp() override {
        mm = &w.new_mm();
        t1 = &w.new_task(*mm, 1000, 0);
        t2 = &w.new_task(*mm, 1001, 1);  // two threads: rule 5 does not apply
    }
    unsigned long run(Vma& vma, uint64_t first, uint64_t last, Task& cur) {
        double ns = 0;
        return change_prot_numa(w.sys, cur, vma, vma.page_addr(first), vma.page_addr(last), ns);
    }
};

TEST_F(ChangeProtNuma, SkipsAlreadyProtnoneAndCountsTheRest) {
    Vma& vma = w.new_vma(*mm, 2048, 0);
    vma.protnone.set_range(0, 100);
    EXPECT_EQ(run(vma, 0, 2048, *t1), 1948u);
    EXPECT_EQ(w.sys.counters[Vm::numa_pte_updates], 1948u);
    EXPECT_EQ(vma.protnone.count(0, 2048), 2048u);
    EXPECT_EQ(run(vma, 0, 2048, *t1), 0u);  // all protnone now
    EXPECT_EQ(w.sys.counters[Vm::numa_pte_updates], 1948u);
}

TEST_F(ChangeProtNuma, SkipsNonPresent) {
    Vma& vma = w.new_vma(*mm, 1024, 0, false);
    vma.present.set_range(10, 20);
    EXPECT_EQ(run(vma, 0, 1024, *t1), 10u);
}

TEST_F(ChangeProtNuma, SkipsCowSharedPagesWhenSwitchOn) {
    Vma& vma = w.new_vma(*mm, 1024, 0);
    Vma other;  // a forked child's mapping of the same object
    vma.object->list_mapper(other);
    for (uint64_t i = 0; i < 10; ++i)
        vma.frame(i).mapcount = 2;
    EXPECT_EQ(run(vma, 0, 1024, *t1), 1014u);
    vma.protnone.clear_range(0, 1024);
    w.sys.knobs.skip_shared_cow = false;
    EXPECT_EQ(run(vma, 0, 1024, *t1), 1024u);
}

TEST_F(ChangeProtNuma, SharedMappingIsNotCow) {
    Vma& vma = w.new_vma(*mm, 64, 0);
    vma.vm_flags |= VM_SHARED;
    Vma other;
    vma.object->list_mapper(other);
    for (uint64_t i = 0; i < 64; ++i)
        vma.frame(i).mapcount = 2;
    EXPECT_EQ(run(vma, 0, 64, *t1), 64u);
}

TEST_F(ChangeProtNuma, SingleThreadedSkipsPagesOnItsNode) {
    Mm& solo = w.new_mm();
    Task& p = w.new_task(solo, 2000, 0);  // node 0, mm_users == 1
    Vma& vma = w.new_vma(solo, 512, 0);
    for (uint64_t i = 0; i < 100; ++i)
        vma.frame(i).nid = 1;
    EXPECT_EQ(run(vma, 0, 512, p), 100u);  // only the remote pages
    EXPECT_TRUE(vma.protnone.test(0));
    EXPECT_FALSE(vma.protnone.test(100));
    // The multi-threaded mm does not get the rule.
    Vma& vma2 = w.new_vma(*mm, 512, 0);
    EXPECT_EQ(run(vma2, 0, 512, *t1), 512u);
}

TEST_F(ChangeProtNuma, DirtyFilePagesAreSkipped) {
    Vma& vma = w.new_vma(*mm, 64, 0);
    vma.vm_flags |= VM_FILE | VM_SHARED;
    vma.object->is_file = true;
    vma.frame(7).flags |= PF_DIRTY;
    EXPECT_EQ(run(vma, 0, 64, *t1), 63u);
}

TEST_F(ChangeProtNuma, ThpCountsHpagePmdNrAndOneHugeUpdate) {
    Vma& vma = w.new_vma(*mm, 1024, 0);  // two 2 MiB blocks
    vma.pmd_mapped.set(0);
    for (uint64_t i = 0; i < 512; ++i)
        vma.frame(i).flags |= PF_THP;
    EXPECT_EQ(run(vma, 0, 1024, *t1), 1024u);  // 512 as one PMD + 512 PTEs
    EXPECT_EQ(w.sys.counters[Vm::numa_pte_updates], 1024u);
    EXPECT_EQ(w.sys.counters[Vm::numa_huge_pte_updates], 1u);
    EXPECT_EQ(vma.protnone.count(0, 512), 512u);
}

TEST_F(ChangeProtNuma, ThpIgnoresCowAndTargetNodeRules) {
    Mm& solo = w.new_mm();
    Task& p = w.new_task(solo, 2000, 0);
    Vma& vma = w.new_vma(solo, 512, 0);  // all on the task's node
    vma.pmd_mapped.set(0);
    EXPECT_EQ(run(vma, 0, 512, p), 512u);
    EXPECT_EQ(w.sys.counters[Vm::numa_huge_pte_updates], 1u);
}

TEST_F(ChangeProtNuma, TieringOnlyModeSkipsTopTierFolios) {
    Vma& vma = w.new_vma(*mm, 64, 0);
    w.sys.knobs.numa_balancing = NUMA_BALANCING_MEMORY_TIERING;
    EXPECT_EQ(run(vma, 0, 64, *t1), 0u);
}

}  // namespace
}  // namespace numasim::test
