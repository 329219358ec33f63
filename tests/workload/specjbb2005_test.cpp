#include <gtest/gtest.h>

#include "helpers.h"
#include "workload/hotspot_jvm.h"
#include "workload/specjbb2005.h"

namespace numasim {
namespace {

TEST(Specjbb2005, HotspotGcThreads) {
    EXPECT_EQ(hotspot_parallel_gc_threads(4), 4);
    EXPECT_EQ(hotspot_parallel_gc_threads(8), 8);
    EXPECT_EQ(hotspot_parallel_gc_threads(48), 33);
    EXPECT_EQ(hotspot_parallel_gc_threads(32), 23);  // -XX:+PrintFlagsFinal, 32 CPUs
}

// CICompilerCount of OpenJDK 17 with -XX:ActiveProcessorCount=32: 15; small machines get 2.
TEST(Specjbb2005, HotspotCompilerThreads) {
    EXPECT_EQ(hotspot_compiler_threads(32), 15);
    EXPECT_EQ(hotspot_compiler_threads(2), 1);
    EXPECT_EQ(hotspot_compiler_threads(48), 15);
    EXPECT_EQ(hotspot_compiler_threads(256), 36);
}

TEST(Specjbb2005, SweepPoints) {
    const Topology m = load_preset("tiny-2n");
    auto pts = [&](const std::string& s) {
        return specjbb_sweep_points(TomlTable::parse_text(s, "t.toml"), m);
    };
    EXPECT_EQ(pts("warehouses = 3\nwarehouse_sweep = true"), (std::vector<int>{1, 2, 3}));
    EXPECT_EQ(pts("warehouse_sweep = [2, 4]"), (std::vector<int>{2, 4}));
    EXPECT_EQ(pts("jvms = 2"), (std::vector<int>{2}));  // 4 CPUs / 2 JVMs
    EXPECT_THROW(pts("warehouse_sweep = 'yes'"), InputError);
}

TEST(Specjbb2005, PerSocketJvmsReportBops) {
    auto r = test::run_workload("tiny-2n",
                                "[[workload]]\ntype='specjbb2005'\nlayout='per_socket'\n"
                                "warehouses=2\nheap='96MiB'\nramp_up='100ms'\nduration='400ms'\n",
                                2);
    const WorkloadResult m = r.w->result(*r.sys);
    EXPECT_EQ(test::figure<int64_t>(m, "jvms"), 2);
    ASSERT_EQ(test::figure<std::vector<Record>>(m, "bops_per_jvm").size(), 2u);
    for (const Record& j : test::figure<std::vector<Record>>(m, "bops_per_jvm"))
        EXPECT_GT(test::figure<double>(j, "bops"), 1000.0);
    // 2 JVMs x (the launcher's thread, the Java main thread, 2 GC workers and 2 compiler
    // threads for a 2-CPU socket, the VM thread and 8 other service threads, the periodic task
    // thread, 2 warehouses).
    EXPECT_EQ(m.tasks.size(), 2u * (2 + 2 + 2 + 9 + 1 + 2));
    int warehouses = 0, gc = 0;
    for (const auto& t : r.sys->tasks) {
        warehouses += t->comm == "java" && t->utime > 100 * NSEC_PER_MSEC;
        gc += t->comm.rfind("GC Thread#", 0) == 0;
    }
    EXPECT_EQ(warehouses, 4);
    EXPECT_EQ(gc, 4);
    // per_socket: every thread of JVM j ran on socket j's CPUs.
    for (const auto& t : r.sys->tasks) {
        if (t->workload == 0) {
            EXPECT_EQ(t->nr_cpus_allowed, 2);
        }
    }
}

TEST(Specjbb2005, SingleLayoutRejectsSeveralJvms) {
    EXPECT_THROW(test::run_workload(
                     "tiny-2n", "[[workload]]\ntype='specjbb2005'\nlayout='single'\njvms=2\n", 0),
                 InputError);
}

}  // namespace
}  // namespace numasim
