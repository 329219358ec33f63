#include "report/monitor_tables.h"

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

namespace numasim {
namespace {

const std::vector<std::string> kColumns = {"6.6.0-rc2-sched-numabtrace-v1",
                                           "6.6.0-rc2-sched-numabselective-v1"};

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);)
        out.push_back(l);
    return out;
}

TEST(MonitorTables, AutonumaCostWorkedExample) {
    // (7*1041416 + 5000*263296 + 19*258021) / 1e6 = (7289912 + 1316480000 + 4902399) / 1e6
    //                                               = 1328.672311
    EXPECT_NEAR(autonuma_cost(1041416, 263296, 258021), 1328.672311, 1e-9);
    MonitorTable t = build_mmtests_vmstat_table({"a-b"}, {{{"numa_pte_updates", 1041416},
                                                           {"numa_hint_faults", 263296},
                                                           {"numa_pages_migrated", 258021}}});
    const auto lines = lines_of(render_monitor_table(t));
    // The cost is mmtests' last row; numasim's two THP migration rows follow it.
    ASSERT_GE(lines.size(), 3u);
    EXPECT_EQ(lines[lines.size() - 3], "Ops AutoNUMA cost                       1328.67");
}

TEST(MonitorTables, DurationRowsMatchPosting) {
    MonitorTable t =
        build_duration_table(kColumns, {{91201.80, 2015.53, 1234.77}, {63506.64, 1819.78, 868.37}});
    const auto lines = lines_of(render_monitor_table(t));
    ASSERT_EQ(lines.size(), 5u);
    EXPECT_EQ(lines[0], "                   6.6.0-rc2   6.6.0-rc2");
    // Row 2 of the posting's Duration header was hand-edited; ours spills the long names left.
    EXPECT_EQ(lines[1], "         sched-numabtrace-v1 sched-numabselective-v1");
    EXPECT_EQ(lines[2], "Duration User       91201.80    63506.64");
    EXPECT_EQ(lines[3], "Duration System      2015.53     1819.78");
    EXPECT_EQ(lines[4], "Duration Elapsed     1234.77      868.37");
}

TEST(MonitorTables, VmstatOpsMatchPosting) {
    // Raw /proc/vmstat deltas reconstructed from the posting: PTE updates = range updates -
    // 512 * PMD updates (64272 - 512*54 = 36624; 26374386 - 512*51404 = 55538).
    std::vector<VmstatDelta> deltas = {
        {{"numa_pte_updates", 64272},
         {"numa_huge_pte_updates", 54},
         {"numa_hint_faults", 15504},
         {"numa_hint_faults_local", 14860},
         {"numa_pages_migrated", 1629}},
        {{"numa_pte_updates", 26374386},
         {"numa_huge_pte_updates", 51404},
         {"numa_hint_faults", 75786},
         {"numa_hint_faults_local", 56763},
         {"numa_pages_migrated", 6469222}},
    };
    const auto lines = lines_of(render_monitor_table(build_mmtests_vmstat_table(kColumns, deltas)));
    ASSERT_EQ(lines.size(), 22u);
    EXPECT_EQ(lines[0], "                                      6.6.0-rc2      6.6.0-rc2");
    EXPECT_EQ(lines[1], "                            sched-numabtrace-v1 sched-numabselective-v1");
    EXPECT_EQ(lines[2], "Ops Minor Faults                           0.00           0.00");
    EXPECT_EQ(lines[8], "Ops NUMA alloc hit                         0.00           0.00");
    // Lines 12..18 are the posting's rows verbatim (it omitted the alloc rows and the cost).
    const std::vector<std::string> posted = {
        "Ops NUMA base-page range updates       64272.00    26374386.00",
        "Ops NUMA PTE updates                   36624.00       55538.00",
        "Ops NUMA PMD updates                      54.00       51404.00",
        "Ops NUMA hint faults                   15504.00       75786.00",
        "Ops NUMA hint local faults %           14860.00       56763.00",
        "Ops NUMA hint local percent               95.85          74.90",
        "Ops NUMA pages migrated                 1629.00     6469222.00",
    };
    for (size_t i = 0; i < posted.size(); ++i)
        EXPECT_EQ(lines[12 + i], posted[i]);
}

TEST(MonitorTables, HintLocalPercentWithoutFaultsIs100) {
    MonitorTable t = build_mmtests_vmstat_table({"x"}, {VmstatDelta{}});
    for (const auto& r : t.rows) {
        if (r.operation == "NUMA hint local percent") {
            EXPECT_DOUBLE_EQ(r.values[0], 100.0);
        }
    }
    EXPECT_EQ(t.field_length, 15);
    EXPECT_EQ(t.rows.size(), 20u);
}

TEST(MonitorTables, VmstatFaultAllocMigrateRowsInMmtestsOrder) {
    // Minor Faults = pgfault - pgmajfault = 5000 - 40 = 4960; the others are the raw deltas.
    const VmstatDelta d = {{"pgfault", 5000},         {"pgmajfault", 40},
                           {"pgalloc_normal", 70000}, {"thp_fault_alloc", 120},
                           {"thp_split_page", 3},     {"pgmigrate_success", 8192},
                           {"pgmigrate_fail", 512},   {"thp_migration_success", 16},
                           {"thp_migration_fail", 1}, {"numa_pages_migrated", 8192}};
    const auto lines = lines_of(render_monitor_table(build_mmtests_vmstat_table({"k"}, {d})));
    ASSERT_EQ(lines.size(), 22u);
    // "Ops " + the operation padded to 28 ("NUMA base-page range updates") + "%15.2f".
    EXPECT_EQ(lines[2], "Ops Minor Faults                        4960.00");
    EXPECT_EQ(lines[3], "Ops Normal allocs                      70000.00");
    EXPECT_EQ(lines[4], "Ops THP fault alloc                      120.00");
    EXPECT_EQ(lines[5], "Ops THP split                              3.00");
    EXPECT_EQ(lines[6], "Ops Page migrate success                8192.00");
    EXPECT_EQ(lines[7], "Ops Page migrate failure                 512.00");
    EXPECT_EQ(lines[18], "Ops NUMA pages migrated                 8192.00");
    // 19 * 8192 / 1e6 = 0.155648
    EXPECT_EQ(lines[19], "Ops AutoNUMA cost                          0.16");
    EXPECT_EQ(lines[20], "Ops THP migration success                 16.00");
    EXPECT_EQ(lines[21], "Ops THP migration failure                  1.00");
}

TEST(MonitorTables, NumaTaskMigrationSummary) {
    // 4 moves and 4 swaps (1 within a node, 2 within a numa group) touch 4 + 2*4 = 12 task
    // migrations, spread 0, 2, 4, 6 over four tasks: mean 3, sample variance
    // (9 + 1 + 1 + 9) / 3 = 6.667 -> stddev 2.58, max 6; remote swapped = 4 - 1 = 3.
    NumaTaskMigrations m;
    m.stuck = 5;
    m.idle = 4;
    m.swapped = 4;
    m.local_swapped = 1;
    m.group_swapped = 2;
    m.per_task = {0, 2, 4, 6};
    const auto lines =
        lines_of(render_monitor_table(build_numa_task_migration_table({"base"}, {m})));
    // "Ops " + the operation padded to 21 ("NUMA migrated swapped") + "%16.2f".
    const std::vector<std::string> expected = {
        "Ops NUMA migrated stuck              5.00", "Ops NUMA migrated idle               4.00",
        "Ops NUMA migrated swapped            4.00", "Ops NUMA local swapped               1.00",
        "Ops NUMA remote swapped              3.00", "Ops NUMA group swapped               2.00",
        "Ops NUMA avg task migs.              3.00", "Ops NUMA stddev task mig             2.58",
        "Ops NUMA max task migs.              6.00",
    };
    ASSERT_EQ(lines.size(), 2 + expected.size());
    for (size_t i = 0; i < expected.size(); ++i)
        EXPECT_EQ(lines[2 + i], expected[i]);
    // No tasks: mean and max 0, stddev NaN (as mmtests prints a single sample's).
    const MonitorTable empty = build_numa_task_migration_table({"x"}, {NumaTaskMigrations{}});
    EXPECT_EQ(empty.rows[6].values[0], 0.0);
    EXPECT_TRUE(std::isnan(empty.rows[7].values[0]));
    EXPECT_EQ(empty.rows[8].values[0], 0.0);
}

TEST(MonitorTables, ColumnMismatchThrows) {
    EXPECT_THROW(build_duration_table({"a"}, {}), std::invalid_argument);
}

}  // namespace
}  // namespace numasim
