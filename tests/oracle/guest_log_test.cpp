#include "oracle/guest_log.h"

#include <gtest/gtest.h>

namespace numasim {
namespace {

// A console as a boot prints it: kernel messages, carriage returns, a line the kernel
// interrupted, and our lines.
constexpr const char* kConsole =
    "[    0.000000] Linux version 6.1.0-57-amd64\r\n"
    "NUMASIM kernel release=6.1.0-57-amd64\r\n"
    "NUMASIM node id=0 cpus=0-1 mem_kb=1951736 distance=10,21\r\n"
    "NUMASIM node id=1 cpus=2-3 mem_kb=2062884 distance=21,10\r\n"
    "NUMASIM setting numa_balancing=1\r\n"
    "NUMASIM setting scan_delay_ms=1000\r\n"
    "NUMASIM vmstat when=before numa_pte_updates=10 numa_pages_migrated=5 pgfault=100\r\n"
    "NUMASIM progress 5.0 s: numa01_tl.0 thread 0 phase 1/1 3.2 GB\r\n"
    "NUMASIM sample t_s=1.00 numa_pte_updates=57683 numa_pages_migrated=3\r\n"
    "[   12.3] random: crng init done NUMASIM region process=p instance=0 name=buffer "
    "when=end N0=65536 N1=0\r\n"
    "NUMASIM task process=p instance=0 thread=1 pid=77 cpu=2 node=1 nr_migrations=3\r\n"
    "NUMASIM runner end rc=0 elapsed_s=20.5\r\n"
    "NUMASIM vmstat when=after numa_pte_updates=650010 numa_pages_migrated=131087 pgfault=9\r\n"
    "NUMASIM end rc=0\r\n";

TEST(BootLog, ReadsEveryKind) {
    const BootLog b = parse_boot_log(kConsole);
    EXPECT_TRUE(b.ended);
    EXPECT_EQ(b.rc, 0);
    EXPECT_EQ(b.kernel_release, "6.1.0-57-amd64");
    ASSERT_EQ(b.nodes.size(), 2u);
    EXPECT_EQ(b.nodes[1].cpus, "2-3");
    EXPECT_EQ(b.nodes[1].mem_kb, 2062884u);
    EXPECT_EQ(b.settings.at("scan_delay_ms"), "1000");
    const auto d = b.vmstat_delta();
    EXPECT_EQ(d.at("numa_pte_updates"), 650000);
    EXPECT_EQ(d.at("numa_pages_migrated"), 131082);
    EXPECT_EQ(d.at("pgfault"), -91);  // deltas are plain differences
    ASSERT_EQ(b.samples.size(), 1u);
    EXPECT_DOUBLE_EQ(b.samples[0].t_s, 1.0);
    EXPECT_EQ(b.samples[0].delta.at("numa_pte_updates"), 57683);
    ASSERT_EQ(b.regions.size(), 1u);
    EXPECT_EQ(b.regions[0].at("N0"), "65536");
    ASSERT_EQ(b.tasks.size(), 1u);
    EXPECT_EQ(b.tasks[0].at("node"), "1");
    ASSERT_EQ(b.progress.size(), 1u);
    EXPECT_EQ(b.progress[0], "5.0 s: numa01_tl.0 thread 0 phase 1/1 3.2 GB");
    EXPECT_DOUBLE_EQ(b.elapsed_s, 20.5);
}

// `damon` lines are the record's lines as printed, spaces and colons kept, in order.
TEST(BootLog, DamonRecordLinesKeptVerbatim) {
    const BootLog b = parse_boot_log(
        "NUMASIM damon # target_id=0 pid=77 comm=numa01_tl threads=5\r\n"
        "NUMASIM damon   kdamond.0-90 [001] ..... 3.100000: damon_aggregated: target_id=0 "
        "nr_regions=10 4096-8192: 3 1\r\n"
        "NUMASIM end rc=0\r\n");
    ASSERT_EQ(b.damon_record.size(), 2u);
    EXPECT_EQ(b.damon_record[0], "# target_id=0 pid=77 comm=numa01_tl threads=5");
    EXPECT_EQ(b.damon_record[1],
              "  kdamond.0-90 [001] ..... 3.100000: damon_aggregated: target_id=0 nr_regions=10 "
              "4096-8192: 3 1");
}

TEST(BootLog, ADeadBootHasNoEnd) {
    const BootLog b = parse_boot_log("NUMASIM kernel release=6.1\nKernel panic - not syncing\n");
    EXPECT_FALSE(b.ended);
    EXPECT_EQ(b.rc, -1);
}

TEST(BootLog, ErrorsAndProbeReply) {
    BootLogReader r;
    EXPECT_EQ(r.feed("NUMASIM error no knob scan_size_mb (wanted 64)"), "error");
    EXPECT_EQ(r.feed("NUMASIM probe-ok\r"), "probe-ok");
    EXPECT_EQ(r.feed("plain kernel line"), "");
    EXPECT_EQ(r.log().errors, std::vector<std::string>{"no knob scan_size_mb (wanted 64)"});
    EXPECT_TRUE(r.log().probe_ok);
}

TEST(BootLog, ProbeCountsPerThreadOfArmedEvents) {
    const BootLog b = parse_boot_log(
        "NUMASIM probe event=task_numa_work armed=1\n"
        "NUMASIM probe event=task_numa_fault armed=0\n"
        "NUMASIM probe event=task_numa_work pid=77 hits=13\n"
        "NUMASIM probe event=task_numa_work pid=78 hits=2\n"
        "NUMASIM probe event=task_numa_fault pid=77 hits=5\n");
    ASSERT_EQ(b.probe_hits.size(), 1u);  // the fault probe was not armed: no figure from it
    const auto& work = b.probe_hits.at("task_numa_work");
    EXPECT_EQ(work.at(77), 13);
    EXPECT_EQ(work.at(78), 2);
    EXPECT_EQ(work.size(), 2u);
}

// guest/init.sh announces one probe event per NUMAB_SKIP_* reason of the sched_skip_vma_numa
// tracepoint (v6.7+) and prints its hist counts under that name; a kernel without the
// tracepoint announces none, so its boots have no skip figures.
TEST(BootLog, SkipVmaReasonsAreProbeEventsPerThread) {
    const BootLog b = parse_boot_log(
        "NUMASIM probe event=sched_skip_vma_numa.UNSUITABLE armed=1\n"
        "NUMASIM probe event=sched_skip_vma_numa.PID_INACTIVE armed=1\n"
        "NUMASIM probe event=sched_skip_vma_numa.UNSUITABLE pid=186 hits=312\n"
        "NUMASIM probe event=sched_skip_vma_numa.SEQ_COMPLETED pid=191 hits=10\n");
    ASSERT_EQ(b.probe_hits.size(), 2u);
    EXPECT_EQ(b.probe_hits.at("sched_skip_vma_numa.UNSUITABLE").at(186), 312);
    // Armed and never hit: a zero count, not a missing one.
    EXPECT_TRUE(b.probe_hits.at("sched_skip_vma_numa.PID_INACTIVE").empty());
    // A reason that was not announced is not counted.
    EXPECT_EQ(b.probe_hits.count("sched_skip_vma_numa.SEQ_COMPLETED"), 0u);
}

TEST(BootLog, TieredGuestsTiersAndHmatFigures) {
    const BootLog log = parse_boot_log(
        "NUMASIM tier id=4 nodes=0-1\n"
        "NUMASIM tier id=40 nodes=2-3\n"
        "NUMASIM hmat node=2 latency_ns=305 bandwidth_mbs=39400\n"
        "NUMASIM setting demotion_enabled=true\n");
    EXPECT_EQ(log.tiers, (std::map<int, std::string>{{4, "0-1"}, {40, "2-3"}}));
    ASSERT_EQ(log.hmat.size(), 1u);
    EXPECT_EQ(log.hmat[0].at("latency_ns"), "305");
    EXPECT_EQ(log.settings.at("demotion_enabled"), "true");
}

TEST(ParseKeyValues, IgnoresBareWords) {
    const KeyValues kv = parse_key_values("a=1  b=x=y bare c=");
    EXPECT_EQ(kv.at("a"), "1");
    EXPECT_EQ(kv.at("b"), "x=y");
    EXPECT_EQ(kv.at("c"), "");
    EXPECT_EQ(kv.count("bare"), 0u);
}

}  // namespace
}  // namespace numasim
