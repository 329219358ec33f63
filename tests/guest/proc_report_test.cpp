#include "guest/proc_report.h"

#include <gtest/gtest.h>

namespace numasim::guest {
namespace {

// As kernel/sched/debug.c prints it (v6.1), shortened.
constexpr const char* kSched =
    "numa01_tl (77, #threads: 5)\n"
    "-------------------------------------------------------------------\n"
    "se.exec_start                                :         23456.123456\n"
    "se.nr_migrations                             :                    3\n"
    "nr_switches                                  :                  120\n"
    "nr_voluntary_switches                        :                    2\n"
    "nr_involuntary_switches                      :                  118\n"
    "mm->numa_scan_seq                            :                    9\n"
    "numa_pages_migrated                          :                65537\n"
    "numa_preferred_nid                           :                    1\n"
    "total_numa_faults                            :                  512\n"
    "current_node=1, numa_group_id=0\n"
    "numa_faults node=0 task_private=10 task_shared=2 group_private=0 group_shared=0\n"
    "numa_faults node=1 task_private=106662 task_shared=0 group_private=0 group_shared=0\n";

TEST(SchedFields, TheNumaFieldsAndFaultsPerNode) {
    const auto f = sched_fields(kSched);
    EXPECT_EQ(f.at("nr_migrations"), "3");
    EXPECT_EQ(f.at("nr_involuntary_switches"), "118");
    EXPECT_EQ(f.at("numa_pages_migrated"), "65537");
    EXPECT_EQ(f.at("numa_preferred_nid"), "1");
    EXPECT_EQ(f.at("total_numa_faults"), "512");
    EXPECT_EQ(f.at("faults_N0"), "12");
    EXPECT_EQ(f.at("faults_N1"), "106662");
    EXPECT_EQ(f.count("nr_switches"), 0u);
    EXPECT_EQ(words({{"a", "1"}, {"b", "x"}}), "a=1 b=x");
}

constexpr const char* kNumaMaps =
    "7f0000000000 default anon=65536 dirty=65536 active=0 N0=1024 N1=64512 "
    "kernelpagesize_kB=4\n"
    "7f0010001000 bind:0 anon=3 dirty=3 N0=3 kernelpagesize_kB=4\n";

TEST(NumaMaps, NodesOfTheMappingStartingThere) {
    const auto n = numa_maps_nodes(kNumaMaps, 0x7f0000000000);
    EXPECT_EQ(n.at("N0"), 1024u);
    EXPECT_EQ(n.at("N1"), 64512u);
    EXPECT_EQ(n.size(), 2u);
    EXPECT_EQ(numa_maps_nodes(kNumaMaps, 0x7f0010001000).at("N0"), 3u);
    EXPECT_TRUE(numa_maps_nodes(kNumaMaps, 0x1000).empty());
}

TEST(Maps, StartOfTheMappingHoldingAnAddress) {
    const char* maps =
        "55a82c99e000-55a82c9a0000 r--p 00000000 fe:01 123 /usr/bin/head\n"
        "7f0000000000-7f0010000000 rw-p 00000000 00:00 0\n";
    EXPECT_EQ(mapping_start(maps, 0x7f0000001234), 0x7f0000000000u);
    EXPECT_EQ(mapping_start(maps, 0x55a82c99e000), 0x55a82c99e000u);
    EXPECT_EQ(mapping_start(maps, 0x7f0010000000), 0u);  // the end is exclusive
}

}  // namespace
}  // namespace numasim::guest
