// Task::allow_all and Task::allow_only, the cpumask a task may run on, across the 64-CPU words
// of the mask.
#include <gtest/gtest.h>

#include "sched/task.h"

namespace numasim {
namespace {

TEST(TaskAffinity, AllCpusOfAMachineOfThreeWords) {
    Task p;
    p.allow_all(130);
    ASSERT_EQ(p.cpus_allowed.size(), 3u);  // 64 + 64 + 2
    EXPECT_EQ(p.cpus_allowed[0], ~uint64_t{0});
    EXPECT_EQ(p.cpus_allowed[1], ~uint64_t{0});
    EXPECT_EQ(p.cpus_allowed[2], uint64_t{3});
    EXPECT_EQ(p.nr_cpus_allowed, 130);
    EXPECT_TRUE(p.allowed(0));
    EXPECT_TRUE(p.allowed(129));
}

TEST(TaskAffinity, OnlyTheListedCpus) {
    Task p;
    p.allow_all(130);
    p.allow_only({0, 64, 129});
    EXPECT_EQ(p.nr_cpus_allowed, 3);
    for (int c : {0, 64, 129})
        EXPECT_TRUE(p.allowed(c)) << c;
    for (int c : {1, 63, 65, 128})
        EXPECT_FALSE(p.allowed(c)) << c;
    // Back to every CPU, as a phase's clear_affinity does.
    p.allow_all(130);
    EXPECT_TRUE(p.allowed(63));
    EXPECT_EQ(p.nr_cpus_allowed, 130);
}

}  // namespace
}  // namespace numasim
