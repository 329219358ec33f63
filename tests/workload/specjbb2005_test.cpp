#include <gtest/gtest.h>

#include "helpers.h"
#include "workload/specjbb2005.h"

namespace numasim {
namespace {

TEST(Specjbb2005, HotspotGcThreads) {
    EXPECT_EQ(hotspot_parallel_gc_threads(4), 4);
    EXPECT_EQ(hotspot_parallel_gc_threads(8), 8);
    EXPECT_EQ(hotspot_parallel_gc_threads(48), 33);
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
    // 2 JVMs x (main + 2 warehouses + 2 GC threads on a 2-CPU socket).
    EXPECT_EQ(m.tasks.size(), 10u);
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
