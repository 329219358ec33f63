#include "report/proc_vmstat.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace numasim {
namespace {

TEST(ProcVmstat, KernelOrderAndFormat) {
    Counters c;
    c[Vm::numa_hit] = 1200;
    c[Vm::pgalloc] = 1300;
    c[Vm::pgfault] = 77;
    c[Vm::numa_pte_updates] = 4096;
    c[Vm::numa_pages_migrated] = 9;
    c[Vm::pgmigrate_success] = 9;
    c[Vm::thp_migration_fail] = 2;
    c[Vm::thp_fault_alloc] = 5;
    c.pgpromote_success = {0, 0, 3, 4};  // node stats, summed over the nodes
    c.pgpromote_candidate = {0, 1, 20, 0};
    // mm/vmstat.c's vmstat_text: the NUMA event counters (after the zone counters), the node
    // stats (of which numasim has the two promotion counters, v5.18 and v6.0), then the vm
    // events: pgalloc_<zone>, pgfree, pgfault, the numa_* balancing events, the migration
    // events, and thp_fault_alloc after the unevictable_* ones. numasim's "pgalloc" is
    // pgalloc_normal (every simulated page is in ZONE_NORMAL).
    const std::string expected =
        "numa_hit 1200\n"
        "numa_miss 0\n"
        "numa_foreign 0\n"
        "numa_interleave 0\n"
        "numa_local 0\n"
        "numa_other 0\n"
        "pgpromote_success 7\n"
        "pgpromote_candidate 21\n"
        "pgalloc_normal 1300\n"
        "pgfree 0\n"
        "pgfault 77\n"
        "numa_pte_updates 4096\n"
        "numa_huge_pte_updates 0\n"
        "numa_hint_faults 0\n"
        "numa_hint_faults_local 0\n"
        "numa_pages_migrated 9\n"
        "pgmigrate_success 9\n"
        "pgmigrate_fail 0\n"
        "thp_migration_success 0\n"
        "thp_migration_fail 2\n"
        "thp_migration_split 0\n"
        "thp_fault_alloc 5\n";
    EXPECT_EQ(proc_vmstat_text(c, "v6.6"), expected);
    EXPECT_EQ(proc_vmstat_text(c, "v6.12"), expected);
    EXPECT_EQ(proc_vmstat_text(c, "custom"), expected);
    EXPECT_EQ(proc_vmstat_text(c, "v6.1"), expected);
}

// thp_fault_fallback follows thp_fault_alloc in vmstat_text; it is listed once a run has one.
TEST(ProcVmstat, ThpFaultFallbackAfterThpFaultAllocOnceThereIsOne) {
    Counters c;
    c[Vm::thp_fault_alloc] = 5;
    EXPECT_EQ(proc_vmstat_text(c, "v6.6").find("thp_fault_fallback"), std::string::npos);
    c.thp_fault_fallback = 3;
    const std::string text = proc_vmstat_text(c, "v6.6");
    EXPECT_TRUE(text.ends_with("thp_fault_alloc 5\nthp_fault_fallback 3\n")) << text;
}

TEST(ProcVmstat, PromotionNodeStatsOnlyFromTheirReleases) {
    EXPECT_FALSE(proc_vmstat_lists("pgpromote_success", "v5.17"));
    EXPECT_TRUE(proc_vmstat_lists("pgpromote_success", "v5.18"));
    EXPECT_FALSE(proc_vmstat_lists("pgpromote_candidate", "v5.19"));
    EXPECT_TRUE(proc_vmstat_lists("pgpromote_candidate", "v6.0"));
    Counters c;
    c.pgpromote_success = {5};
    EXPECT_NE(proc_vmstat_text(c, "v5.18").find("numa_other 0\npgpromote_success 5\npgalloc"),
              std::string::npos);
    EXPECT_EQ(proc_vmstat_text(c, "v4.19").find("pgpromote"), std::string::npos);
}

TEST(ProcVmstat, ThpMigrationCountersOnlyFromV5_9) {
    EXPECT_FALSE(proc_vmstat_lists("thp_migration_success", "v4.18"));
    EXPECT_FALSE(proc_vmstat_lists("thp_migration_split", "v5.8"));
    EXPECT_TRUE(proc_vmstat_lists("thp_migration_fail", "v5.9"));
    EXPECT_TRUE(proc_vmstat_lists("thp_migration_fail", "v6.1"));
    EXPECT_TRUE(proc_vmstat_lists("pgmigrate_success", "v4.18"));
    Counters c;
    const std::string old = proc_vmstat_text(c, "v4.19");
    EXPECT_EQ(old.find("thp_migration"), std::string::npos);
    // 20 counters, 3 of them missing before v5.9 (and the promotion node stats before v5.18).
    EXPECT_EQ(std::count(old.begin(), old.end(), '\n'), 17);
    EXPECT_NE(old.find("pgmigrate_fail 0\nthp_fault_alloc 0\n"), std::string::npos);
}

}  // namespace
}  // namespace numasim
