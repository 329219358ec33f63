// task_numa_group's create and join rules, and task_numa_free.
#include "numab_fixture.h"

namespace numasim::test {
namespace {

struct Groups : ::testing::Test {
    NumabWorld w;
    Mm* mm_a = nullptr;
    Mm* mm_b = nullptr;
    void SetUp() override {
        mm_a = &w.new_mm();
        mm_b = &w.new_mm();
    }
};

TEST_F(Groups, SharedFaultCreatesOwnGroup) {
    Task& p = w.new_task(*mm_a, 1000, 0);
    w.set_mem_faults(p, 0, 3, 5);
    int priv = 0;
    task_numa_group(w.sys, p, cpu_pid_to_cpupid(2, 4242), 0, &priv);  // nobody runs on CPU 2
    ASSERT_NE(p.numa_group, nullptr);
    EXPECT_EQ(p.numa_group->gid, 1000);
    EXPECT_EQ(p.numa_group->nr_tasks, 1);
    EXPECT_EQ(p.numa_group->refcount, 1);
    EXPECT_EQ(p.numa_group->total_faults, 8u);
    EXPECT_EQ(group_faults(w.sys, p, 0), 8u);
    EXPECT_EQ(w.sys.numa_groups.size(), 1u);
    EXPECT_EQ(priv, 0);
}

// The kernel breaks a tie in size by the groups' addresses: the lower one joins the higher one.
// The simulator uses creation order for the address, so the older group joins the newer.
TEST_F(Groups, OlderEqualGroupJoinsNewerAndIsFreed) {
    Task& a = w.new_task(*mm_a, 1000, 0, true);
    Task& b = w.new_task(*mm_a, 1001, 2, true);
    w.set_mem_faults(a, 0, 10, 0);
    w.set_mem_faults(b, 1, 6, 0);
    int priv = 0;
    task_numa_group(w.sys, b, cpu_pid_to_cpupid(3, 4242), 0, &priv);  // b's group: older
    task_numa_group(w.sys, a, cpu_pid_to_cpupid(3, 4242), 0, &priv);  // a's group: newer
    task_numa_group(w.sys, b, cpu_pid_to_cpupid(0, 1000), 0, &priv);  // b faults on a's page
    EXPECT_EQ(b.numa_group, a.numa_group);
    EXPECT_EQ(priv, 0);  // same mm: join, shared
    EXPECT_EQ(a.numa_group->nr_tasks, 2);
    EXPECT_EQ(a.numa_group->refcount, 2);
    EXPECT_EQ(a.numa_group->total_faults, 16u);
    EXPECT_EQ(group_faults(w.sys, a, 1), 6u);
    EXPECT_EQ(w.sys.numa_groups.size(), 1u);  // b's old group was freed
}

TEST_F(Groups, NewerEqualGroupDoesNotJoin) {
    Task& a = w.new_task(*mm_a, 1000, 0, true);
    Task& b = w.new_task(*mm_a, 1001, 2, true);
    w.give_faults(a);
    w.give_faults(b);
    int priv = 0;
    task_numa_group(w.sys, a, cpu_pid_to_cpupid(3, 4242), 0, &priv);  // a older
    task_numa_group(w.sys, b, cpu_pid_to_cpupid(3, 4242), 0, &priv);  // b newer
    task_numa_group(w.sys, b, cpu_pid_to_cpupid(0, 1000), 0, &priv);  // b would join a: no
    EXPECT_NE(a.numa_group, b.numa_group);
    task_numa_group(w.sys, a, cpu_pid_to_cpupid(2, 1001), 0, &priv);  // a joins b
    EXPECT_EQ(a.numa_group, b.numa_group);
}

TEST_F(Groups, BiggerGroupDoesNotJoinSmaller) {
    Task& a = w.new_task(*mm_a, 1000, 0, true);
    Task& a2 = w.new_task(*mm_a, 1002, 1, true);
    Task& c = w.new_task(*mm_a, 1003, 2, true);
    for (Task* t : {&a, &a2, &c})
        w.give_faults(*t);
    int priv = 0;
    task_numa_group(w.sys, a2, cpu_pid_to_cpupid(3, 4242), 0, &priv);
    task_numa_group(w.sys, a, cpu_pid_to_cpupid(3, 4242), 0, &priv);
    task_numa_group(w.sys, a2, cpu_pid_to_cpupid(0, 1000), 0, &priv);  // a's group: 2 tasks
    ASSERT_EQ(a.numa_group, a2.numa_group);
    task_numa_group(w.sys, c, cpu_pid_to_cpupid(3, 4242), 0, &priv);  // c: 1 task, newest
    task_numa_group(w.sys, a, cpu_pid_to_cpupid(2, 1003), 0, &priv);
    EXPECT_NE(a.numa_group, c.numa_group);
    EXPECT_EQ(a.numa_group->nr_tasks, 2);
    task_numa_group(w.sys, c, cpu_pid_to_cpupid(0, 1000), 0, &priv);  // the smaller joins
    EXPECT_EQ(c.numa_group, a.numa_group);
    EXPECT_EQ(a.numa_group->nr_tasks, 3);
}

TEST_F(Groups, UnrelatedProcessNeedsTnfShared) {
    Task& a = w.new_task(*mm_a, 1000, 0, true);
    Task& x = w.new_task(*mm_b, 2000, 2, true);
    w.give_faults(a);
    w.give_faults(x);
    int priv = 0;
    task_numa_group(w.sys, x, cpu_pid_to_cpupid(3, 4242), 0, &priv);
    task_numa_group(w.sys, a, cpu_pid_to_cpupid(3, 4242), 0, &priv);
    task_numa_group(w.sys, x, cpu_pid_to_cpupid(0, 1000), 0, &priv);
    EXPECT_NE(x.numa_group, a.numa_group);
    EXPECT_EQ(priv, 1);  // counted as a pid-collision false positive: private
    priv = 0;
    task_numa_group(w.sys, x, cpu_pid_to_cpupid(0, 1000), TNF_SHARED, &priv);
    EXPECT_EQ(x.numa_group, a.numa_group);
    EXPECT_EQ(priv, 0);
}

TEST_F(Groups, StaleCpupidPidDoesNotJoin) {
    Task& a = w.new_task(*mm_a, 1000, 0, true);
    Task& b = w.new_task(*mm_a, 1001, 2, true);
    w.give_faults(a);
    w.give_faults(b);
    int priv = 0;
    task_numa_group(w.sys, a, cpu_pid_to_cpupid(3, 4242), 0, &priv);
    task_numa_group(w.sys, b, cpu_pid_to_cpupid(0, 1001 + 1), 0, &priv);  // CPU 0 runs 1000
    EXPECT_NE(a.numa_group, b.numa_group);
}

TEST_F(Groups, FreeRemovesContributionAndLastReference) {
    Task& a = w.new_task(*mm_a, 1000, 0, true);
    Task& b = w.new_task(*mm_a, 1001, 2, true);
    w.set_mem_faults(a, 0, 10, 0);
    w.set_mem_faults(b, 1, 6, 0);
    int priv = 0;
    task_numa_group(w.sys, b, cpu_pid_to_cpupid(3, 4242), 0, &priv);
    task_numa_group(w.sys, a, cpu_pid_to_cpupid(3, 4242), 0, &priv);
    task_numa_group(w.sys, b, cpu_pid_to_cpupid(0, 1000), 0, &priv);
    NumaGroup* g = a.numa_group;
    ASSERT_EQ(b.numa_group, g);
    task_numa_free(w.sys, b);
    EXPECT_EQ(g->total_faults, 10u);
    EXPECT_EQ(g->nr_tasks, 1);
    EXPECT_EQ(b.numa_group, nullptr);
    task_numa_free(w.sys, a);
    EXPECT_TRUE(w.sys.numa_groups.empty());
}

}  // namespace
}  // namespace numasim::test
