// Layouts of Srikar Dronamraju's SMALLIMP posting ("sched/numa: Avoid task migration for small
// NUMA improvement"), reproduced byte-for-byte.
#include "report/seed_tables.h"

#include <gtest/gtest.h>

#include "report/aligned_text.h"
#include "report/text_format.h"

namespace numasim {
namespace {

TEST(SeedTables, ThousandsSeparators) {
    EXPECT_EQ(with_thousands(0), "0");
    EXPECT_EQ(with_thousands(999), "999");
    EXPECT_EQ(with_thousands(1000), "1,000");
    EXPECT_EQ(with_thousands(55259546768), "55,259,546,768");
    EXPECT_EQ(with_thousands(-1234567), "-1,234,567");
}

TEST(SeedTables, SpecjbbBlocks) {
    SpecjbbBlock haswell{"2 Socket - 2  Node Haswell - X86",
                         {"Prev", "Current"},
                         {{4, {198512, 205910}}, {1, {313559, 318491}}}};
    EXPECT_EQ(render_specjbb_block(haswell),
              "2 Socket - 2  Node Haswell - X86\n"
              "JVMS  Prev    Current  %Change\n"
              "4     198512  205910   3.72673\n"
              "1     313559  318491   1.57291\n");
    SpecjbbBlock power8{"2 Socket - 4 Node Power8 - PowerNV",
                        {"Prev", "Current"},
                        {{8, {74761.9, 74935.9}}, {1, {214874, 226796}}}};
    EXPECT_EQ(render_specjbb_block(power8),
              "2 Socket - 4 Node Power8 - PowerNV\n"
              "JVMS  Prev     Current  %Change\n"
              "8     74761.9  74935.9  0.232739\n"
              "1     214874   226796   5.54837\n");
    SpecjbbBlock power9{"2 Socket - 2  Node Power9 - PowerNV",
                        {"Prev", "Current"},
                        {{4, {180536, 189780}}, {1, {210281, 205695}}}};
    EXPECT_EQ(render_specjbb_block(power9),
              "2 Socket - 2  Node Power9 - PowerNV\n"
              "JVMS  Prev    Current  %Change\n"
              "4     180536  189780   5.12031\n"
              "1     210281  205695   -2.18089\n");
    SpecjbbBlock power7{"4 Socket - 4  Node Power7 - PowerVM",
                        {"Prev", "Current"},
                        {{8, {56511.4, 60370}}, {1, {104899, 108100}}}};
    EXPECT_EQ(render_specjbb_block(power7),
              "4 Socket - 4  Node Power7 - PowerVM\n"
              "JVMS  Prev     Current  %Change\n"
              "8     56511.4  60370    6.828\n"
              "1     104899   108100   3.05151\n");
}

TEST(SeedTables, SpecjbbMoreSettings) {
    SpecjbbBlock b{"t", {"A", "B", "C"}, {{1, {100, 110, 90}}}};
    EXPECT_EQ(render_specjbb_block(b),
              "t\n"
              "JVMS  A    B    C   %Change-B  %Change-C\n"
              "1     100  110  90  10         -10\n");
}

TEST(SeedTables, PerfStatsTable) {
    std::vector<std::map<std::string, std::int64_t>> cols = {
        {{"cs", 13818546},
         {"migrations", 1149960},
         {"faults", 385583},
         {"cache-misses", 55259546768},
         {"sched:sched_move_numa", 2257},
         {"sched:sched_stick_numa", 9},
         {"sched:sched_swap_numa", 512},
         {"migrate:mm_migrate_pages", 2225}},
        {{"cs", 13801554},
         {"migrations", 1151541},
         {"faults", 433246},
         {"cache-misses", 55168691835},
         {"sched:sched_move_numa", 2551},
         {"sched:sched_stick_numa", 24},
         {"sched:sched_swap_numa", 904},
         {"migrate:mm_migrate_pages", 1571}},
    };
    EXPECT_EQ(render_perf_stats_table("8th warehouse Multi JVM 2 Socket - 2  Node Haswell - X86",
                                      {"Before", "After"}, event_rows(kPerfStatEvents, cols)),
              "perf stats 8th warehouse Multi JVM 2 Socket - 2  Node Haswell - X86\n"
              "Event                     Before          After\n"
              "cs                        13,818,546      13,801,554\n"
              "migrations                1,149,960       1,151,541\n"
              "faults                    385,583         433,246\n"
              "cache-misses              55,259,546,768  55,168,691,835\n"
              "sched:sched_move_numa     2,257           2,551\n"
              "sched:sched_stick_numa    9               24\n"
              "sched:sched_swap_numa     512             904\n"
              "migrate:mm_migrate_pages  2,225           1,571\n");
}

TEST(SeedTables, VmstatTable) {
    std::vector<std::map<std::string, std::int64_t>> cols = {
        {{"numa_hint_faults", 72692},
         {"numa_hint_faults_local", 62270},
         {"numa_hit", 238762},
         {"numa_huge_pte_updates", 48},
         {"numa_interleave", 75},
         {"numa_local", 238676},
         {"numa_other", 86},
         {"numa_pages_migrated", 2225},
         {"numa_pte_updates", 98557}},
        {{"numa_hint_faults", 113682},
         {"numa_hint_faults_local", 102163},
         {"numa_hit", 240181},
         {"numa_huge_pte_updates", 36},
         {"numa_interleave", 64},
         {"numa_local", 240103},
         {"numa_other", 78},
         {"numa_pages_migrated", 1564},
         {"numa_pte_updates", 134080}},
    };
    EXPECT_EQ(render_vmstat_table("8th warehouse Multi JVM 2 Socket - 2  Node Haswell - X86",
                                  {"Before", "After"}, event_rows(kVmstatNumaEvents, cols)),
              "vmstat 8th warehouse Multi JVM 2 Socket - 2  Node Haswell - X86\n"
              "Event                   Before  After\n"
              "numa_hint_faults        72692   113682\n"
              "numa_hint_faults_local  62270   102163\n"
              "numa_hit                238762  240181\n"
              "numa_huge_pte_updates   48      36\n"
              "numa_interleave         75      64\n"
              "numa_local              238676  240103\n"
              "numa_other              86      78\n"
              "numa_pages_migrated     2225    1564\n"
              "numa_pte_updates        98557   134080\n");
}

TEST(SeedTables, ThreeColumnEventTable) {
    EXPECT_EQ(render_event_table("h", {"A", "B", "C"}, {{"cs", {1000, 2, 3}}}, true),
              "h\n"
              "Event  A      B  C\n"
              "cs     1,000  2  3\n");
}

}  // namespace
}  // namespace numasim
