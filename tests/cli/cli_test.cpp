// End-to-end tests of the numasim binary: JSON keys, examples, bad input, determinism.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "numasim_process.h"

namespace {

using numasim::test::Output;
using numasim::test::run_numasim;
using numasim::test::write_temp;

TEST(Cli, JsonHasEveryCounter) {
    const Output o = run_numasim("run --json --duration 8s");
    ASSERT_EQ(o.status, 0) << o.out;
    const auto j = nlohmann::json::parse(o.out);
    for (const char* k :
         {"elapsed_s", "user_s", "system_s", "vmstat", "sched", "workloads", "tasks"})
        EXPECT_TRUE(j.contains(k)) << k;
    for (const char* k :
         {"numa_hit", "numa_miss", "numa_foreign", "numa_local", "numa_other", "numa_interleave",
          "pgmigrate_success", "pgmigrate_fail", "numa_pte_updates", "numa_huge_pte_updates",
          "numa_hint_faults", "numa_hint_faults_local", "numa_pages_migrated"})
        EXPECT_TRUE(j["vmstat"].contains(k)) << k;
    for (const char* k : {"cs", "migrations", "sched_move_numa", "sched_swap_numa",
                          "sched_stick_numa", "sched_skip_vma_numa"})
        EXPECT_TRUE(j["sched"].contains(k)) << k;
    for (const char* k : {"unsuitable", "shared_ro", "inaccessible", "scan_delay", "pid_inactive",
                          "ignore_pid_inactive", "seq_completed"})
        EXPECT_TRUE(j["sched"]["sched_skip_vma_numa"].contains(k)) << k;
    EXPECT_NE(j["tasks"][0]["proc_sched"].get<std::string>().find("numa_preferred_nid"),
              std::string::npos);
}

TEST(Cli, VersionNamesCommitAndCompiler) {
    const Output o = run_numasim("--version");
    ASSERT_EQ(o.status, 0) << o.out;
    EXPECT_TRUE(std::regex_match(
        o.out,
        std::regex("numasim [0-9]+\\.[0-9]+\\.[0-9]+ \\(git ([0-9a-f]{12}(-dirty)?|unknown)\\)\n"
                   "compiler: (g\\+\\+|clang\\+\\+) [0-9][^\n]*\n")))
        << o.out;
}

TEST(Cli, SameSeedSameBytesWhateverTheWorkers) {
    const std::string args = "run examples/variants.toml --json --iterations 3 --duration 10s";
    const Output a = run_numasim(args + " -j 1");
    const Output b = run_numasim(args + " -j 2");
    const Output c = run_numasim(args + " -j 2");
    ASSERT_EQ(a.status, 0) << a.out;
    EXPECT_EQ(a.out, b.out);
    EXPECT_EQ(b.out, c.out);
}

// The sample-driven policy keeps the promise too: its samples come from the run's own random
// stream, so a compare of it against mainline prints the same bytes at any number of workers.
TEST(Cli, IbsComparesTheSameWhateverTheWorkers) {
    const std::string args =
        "compare examples/streams.toml --iterations 2 --duration 4s -V kernel:policy=mainline "
        "-V ibs:policy=ibs";
    const Output a = run_numasim(args + " -j 1");
    const Output b = run_numasim(args + " -j 2");
    ASSERT_EQ(a.status, 0) << a.out;
    EXPECT_EQ(a.out, b.out);
    EXPECT_NE(a.out.find("policies: kernel mainline, ibs ibs\n"), std::string::npos) << a.out;
}

// numasim policies lists every registered policy; an unknown one is an input error that lists
// them, with nothing else written.
TEST(Cli, PoliciesAreListedAndAnUnknownOneIsRefused) {
    const Output list = run_numasim("policies");
    ASSERT_EQ(list.status, 0) << list.out;
    EXPECT_EQ(list.out.rfind("autonuma-2012 ", 0), 0u) << list.out;
    EXPECT_NE(list.out.find("\nibs "), std::string::npos) << list.out;
    EXPECT_NE(list.out.find("\nmainline "), std::string::npos) << list.out;
    EXPECT_NE(list.out.find("\nnumactl "), std::string::npos) << list.out;
    EXPECT_NE(list.out.find("\nnumad "), std::string::npos) << list.out;
    const Output bad = run_numasim("run " + std::string(NUMASIM_SOURCE_DIR) +
                                   "/examples/placement-policies.toml --param policy=nosuch");
    EXPECT_EQ(bad.status, 2);
    EXPECT_EQ(bad.out,
              "numasim: error: --param policy=nosuch: scenario.policy: unknown policy 'nosuch' "
              "(known: autonuma-2012, ibs, mainline, numactl, numad)\n");
}

// A report names the policy of a run or compare column that is not mainline; one of mainline
// runs only reads as before.
TEST(Cli, ReportsNameAPolicyOtherThanMainline) {
    const std::string ex = std::string(NUMASIM_SOURCE_DIR) + "/examples/placement-policies.toml";
    const Output cmp = run_numasim(
        "compare " + ex + " --duration 1s -V kernel:policy=mainline -V bound:policy=numactl");
    ASSERT_EQ(cmp.status, 0) << cmp.out;
    EXPECT_NE(cmp.out.find("per variant\npolicies: kernel mainline, bound numactl\n\n"),
              std::string::npos)
        << cmp.out;
    const Output plain =
        run_numasim("compare " + ex + " --duration 1s -V a:smallimp=0 -V b:smallimp=1");
    ASSERT_EQ(plain.status, 0) << plain.out;
    EXPECT_EQ(plain.out.find("policies:"), std::string::npos) << plain.out;
    const Output run = run_numasim("run " + ex + " --duration 1s --param policy=numad");
    ASSERT_EQ(run.status, 0) << run.out;
    EXPECT_NE(run.out.find(", seed 1, policy numad)\n"), std::string::npos) << run.out;
    const Output mainline = run_numasim("run " + ex + " --duration 1s");
    EXPECT_NE(mainline.out.find(", seed 1)\n"), std::string::npos) << mainline.out;
}

TEST(Cli, EveryExampleRuns) {
    for (const auto& e :
         std::filesystem::directory_iterator(std::string(NUMASIM_SOURCE_DIR) + "/examples")) {
        if (e.path().extension() != ".toml") continue;
        SCOPED_TRACE(e.path().string());
        const Output o = run_numasim("run " + e.path().string() + " --iterations 1 --duration 3s");
        EXPECT_EQ(o.status, 0) << o.out;
        EXPECT_NE(o.out.find("numasim:"), std::string::npos);
    }
}

TEST(Cli, BadInputNamesFileKeyAndLine) {
    const std::string f = write_temp("numasim_bad.toml",
                                     "[scenario]\nmachine = \"tiny-2n\"\nduraton = \"5s\"\n"
                                     "[[workload]]\ntype = \"cowsum\"\n");
    const Output o = run_numasim("run " + f);
    EXPECT_EQ(o.status, 2);
    EXPECT_NE(o.out.find(f), std::string::npos) << o.out;
    EXPECT_NE(o.out.find("scenario.duraton"), std::string::npos) << o.out;
    EXPECT_NE(o.out.find("line 3"), std::string::npos) << o.out;
    EXPECT_NE(o.out.find("unknown key"), std::string::npos) << o.out;
}

TEST(Cli, ImpossibleRequestsAreErrors) {
    const std::string pinned =
        write_temp("numasim_pinned.toml",
                   "[scenario]\nmachine = \"tiny-2n\"\n[[workload]]\ntype = \"streams\"\n"
                   "[[workload.process]]\nname = \"p\"\n[[workload.process.region]]\nname = \"r\"\n"
                   "size = \"1MiB\"\n[[workload.process.thread]]\nphases = [ { affinity = [0, 9], "
                   "streams = [ { region = \"r\" } ], rate_gbs = 1.0, cpu_time = \"1s\" } ]\n");
    const Output a = run_numasim("run " + pinned);
    EXPECT_EQ(a.status, 2) << a.out;
    EXPECT_NE(a.out.find(pinned), std::string::npos) << a.out;
    const std::string big = write_temp(
        "numasim_big.toml",
        "[scenario]\nmachine = \"tiny-2n\"\n[[workload]]\ntype = \"streams\"\n"
        "[[workload.process]]\nname = \"p\"\n[[workload.process.region]]\nname = \"r\"\n"
        "size = \"64GiB\"\n[[workload.process.thread]]\nphases = [ { streams = [ { region = "
        "\"r\" } ], rate_gbs = 1.0, cpu_time = \"1s\" } ]\n");
    const Output b = run_numasim("run " + big);
    EXPECT_EQ(b.status, 2) << b.out;
    EXPECT_NE(b.out.find("workload"), std::string::npos) << b.out;
}

// The trace's sched_skip_vma_numa events, counted per reason, are the run's counters of the same
// name (what docs/oracle.md compares with the real kernel's hist counts). knobs.toml under v6.12
// skips for every reason.
TEST(Cli, SkipVmaEventsPerReasonEqualTheCounters) {
    const std::string trace = numasim::test::scratch_path("numasim_skip.trace");
    const Output o = run_numasim("run examples/knobs.toml --profile v6.12 --json --trace " + trace);
    ASSERT_EQ(o.status, 0) << o.out;
    const auto counters = nlohmann::json::parse(o.out)["sched"]["sched_skip_vma_numa"];
    std::map<std::string, uint64_t> traced;
    std::ifstream in(trace);
    for (std::string line; std::getline(in, line);) {
        if (line.find(": sched_skip_vma_numa: ") == std::string::npos) continue;
        const size_t at = line.find(" reason=");
        ASSERT_NE(at, std::string::npos) << line;
        ++traced[line.substr(at + 8)];
    }
    ASSERT_EQ(counters.size(), 7u);
    for (const auto& [reason, n] : counters.items()) {
        EXPECT_GT(n.get<uint64_t>(), 0u) << reason;
        EXPECT_EQ(traced[reason], n.get<uint64_t>()) << reason;
    }
    EXPECT_EQ(traced.size(), counters.size());  // no reason the counters do not name
}

TEST(Cli, FailedRunLeavesNoTraceFile) {
    const std::string trace = numasim::test::scratch_path("numasim_never.trace");
    const Output o = run_numasim("run examples/knobs.toml --set smallimp=-5 --trace " + trace);
    EXPECT_EQ(o.status, 2) << o.out;
    EXPECT_FALSE(std::filesystem::exists(trace));
}

TEST(Cli, TraceIsFtraceText) {
    const std::string trace = numasim::test::scratch_path("numasim_ok.trace");
    const Output o = run_numasim("run examples/knobs.toml --profile v6.12 --trace " + trace);
    ASSERT_EQ(o.status, 0) << o.out;
    std::ifstream in(trace);
    std::string line;
    std::getline(in, line);
    EXPECT_EQ(line, "# tracer: nop");
    int events = 0;
    while (std::getline(in, line)) {
        // "<comm>-<pid> [<cpu>] <flags> <sec>.<usec>: <event>: <fields>"
        if (line.find("_numa: ") == std::string::npos) continue;
        ++events;
        EXPECT_NE(line.find("] ..... "), std::string::npos) << line;
        const bool skip = line.find(": sched_skip_vma_numa: ") != std::string::npos;
        EXPECT_NE(line.find(skip ? "reason=" : "pid="), std::string::npos) << line;
    }
    EXPECT_GT(events, 0);
}

// The stems of the files in `dir` with extension `ext`: what the binary has compiled in.
std::vector<std::string> stems(const std::string& dir, const std::string& ext) {
    std::vector<std::string> out;
    for (const auto& e : std::filesystem::directory_iterator(std::string(NUMASIM_SOURCE_DIR) + dir))
        if (e.path().extension() == ext) out.push_back(e.path().stem().string());
    return out;
}

TEST(Cli, ListsOneLineEach) {
    const Output m = run_numasim("machines");
    ASSERT_EQ(m.status, 0);
    const auto presets = stems("/src/machine/presets", ".toml");
    for (const auto& p : presets)
        EXPECT_NE(m.out.find("\n" + p + " "), std::string::npos) << p;
    EXPECT_EQ(std::count(m.out.begin(), m.out.end(), '\n'), 1 + std::ssize(presets));
    const Output p = run_numasim("profiles");
    const auto profiles = stems("/src/numab/profiles", ".toml");
    for (const auto& name : profiles)
        EXPECT_NE(p.out.find(name + "\n"), std::string::npos) << name;
    EXPECT_EQ(std::count(p.out.begin(), p.out.end(), '\n'), std::ssize(profiles));
    const Output w = run_numasim("workloads");
    EXPECT_NE(w.out.find("streams"), std::string::npos);
}

// A memory-only node as numactl -H lists it, and the tiers and demotion targets the profile's
// kernel forms, as sysfs and the boot log show them (docs/tiering.md).
TEST(Cli, MachinesShowPrintsMemoryTiers) {
    const Output o = run_numasim("machines show cascadelake-2s-pmem --profile v6.1");
    ASSERT_EQ(o.status, 0) << o.out;
    for (const char* line :
         {"\nnode 2 cpus:\nnode 2 size: 774144 MB\n",
          "\n  node 3: pmem, 774144 MB, onlined by dax/kmem, latency 305 ns, bandwidth 39.4 GB/s\n",
          "\n/sys/devices/virtual/memory_tiering/memory_tier4/nodelist: 0-1\n",
          "\n/sys/devices/virtual/memory_tiering/memory_tier22/nodelist: 2-3\n",
          "\n/sys/kernel/mm/numa/demotion_enabled: false\n",
          "\nDemotion targets for Node 1: preferred: 3, fallback: 2-3\n",
          "\nDemotion targets for Node 3: null\n"})
        EXPECT_NE(o.out.find(line), std::string::npos) << line << o.out;
    // v6.12 (the default) reads the HMAT: 576 * 610 / 170 * 200000 / 78800 = 5243.
    const Output v612 = run_numasim("machines show cascadelake-2s-pmem");
    EXPECT_NE(v612.out.find("memory_tier40/nodelist: 2-3\n"), std::string::npos) << v612.out;
    const Output v418 = run_numasim("machines show cascadelake-2s-pmem --profile v4.18");
    EXPECT_NE(v418.out.find("memory tiers: none"), std::string::npos) << v418.out;
    EXPECT_EQ(v418.out.find("memory_tier4"), std::string::npos);
    const Output bad = run_numasim("machines show tiny-2n --profile v9.9");
    EXPECT_EQ(bad.status, 2) << bad.out;
    EXPECT_NE(bad.out.find("--profile v9.9: unknown kernel profile 'v9.9'"), std::string::npos)
        << bad.out;
}

// Memory bound to a CPU-less PMEM node: its tasks run on the CPUs' nodes, keep a node with CPUs
// as their preferred node (task_numa_placement skips CPU-less nodes), and stream slower than the
// DRAM-bound ones at the device's latency.
TEST(Cli, MemoryOnlyNodeRunsSlowerAndIsNeverPreferred) {
    const Output o =
        run_numasim("run examples/memory-only-node.toml --json --iterations 1 --duration 3s");
    ASSERT_EQ(o.status, 0) << o.out;
    const auto j = nlohmann::json::parse(o.out);
    double dram = 0, pmem = 0;
    for (const auto& t : j["workloads"][0]["tasks"]) {
        EXPECT_LT(t["numa_preferred_nid"].get<int>(), 2) << t;
        EXPECT_LT(t["last_node"].get<int>(), 2) << t;
        (t["comm"] == "on-pmem" ? pmem : dram) += t["bytes"].get<double>();
    }
    EXPECT_GT(pmem, 0);
    EXPECT_LT(pmem * 2, dram);
    // Each process's buffer is all on the node it is bound to: 2 GiB of 4 KiB pages.
    int buffers = 0;
    for (const auto& r : j["regions"]) {
        if (r["region"] != "buffer") continue;
        ++buffers;
        const int node = r["comm"] == "on-pmem" ? 2 : 0;
        EXPECT_EQ(r["node_pages"][node].get<int64_t>(), 524288) << r;
    }
    EXPECT_EQ(buffers, 2);
}

TEST(Cli, MemoryNodeWithoutMemoryIsAnInputError) {
    const std::string f = write_temp("numasim_memnode.toml", R"([machine]
name = "m"
sockets = 1
cores_per_node = 2
memory_per_node = "1GiB"
distance = [[10, 17], [17, 10]]
[[memory_node]]
memory = "0GiB"
kind = "cxl"
latency_ns = 200
bandwidth_gbs = 20
[hardware]
latency_ns = { 10 = 80.0 }
dram_bandwidth_gbs = 50.0
link_bandwidth_gbs = 20.0
llc_mb = 8
llc_latency_ns = 15
line_fill_buffers = 10
smt_core_speedup = 1.2
cpu_ghz = 3.0
)");
    const Output o = run_numasim("machines show " + f);
    EXPECT_EQ(o.status, 2) << o.out;
    EXPECT_NE(o.out.find("numasim_memnode.toml"), std::string::npos) << o.out;
    EXPECT_NE(o.out.find("memory_node[0].memory"), std::string::npos) << o.out;
}

TEST(Cli, HelpListsWhatIsRegistered) {
    const Output h = run_numasim("run --help");
    for (const auto& p : stems("/src/machine/presets", ".toml"))
        EXPECT_NE(h.out.find(p), std::string::npos) << p;
    for (const auto& p : stems("/src/numab/profiles", ".toml"))
        EXPECT_NE(h.out.find(p), std::string::npos) << p;
}

TEST(Cli, ProfilesShowSaysWhatSetEachKnob) {
    const std::string f =
        write_temp("numasim_knobs.toml",
                   "[scenario]\nmachine = \"tiny-2n\"\nprofile = \"v4.18\"\n[numa_balancing]\n"
                   "smallimp = 12\n[[workload]]\ntype = \"cowsum\"\nprocesses = 2\n");
    const Output o = run_numasim("profiles show v6.6 " + f + " --set vma_scan=all");
    ASSERT_EQ(o.status, 0) << o.out;
    auto line = [&](const std::string& knob) {
        const auto at = o.out.find("\n" + knob + " ");
        return at == std::string::npos ? std::string()
                                       : o.out.substr(at + 1, o.out.find('\n', at + 1) - at - 1);
    };
    EXPECT_NE(line("smallimp").find("12"), std::string::npos) << o.out;
    EXPECT_NE(line("smallimp").find(f), std::string::npos) << o.out;
    EXPECT_NE(line("vma_scan").find("--set vma_scan=all"), std::string::npos) << o.out;
    EXPECT_NE(line("numa_imbalance").find("profile v6.6"), std::string::npos) << o.out;
    const Output d = run_numasim("profiles show v6.12");
    ASSERT_EQ(d.status, 0) << d.out;
    EXPECT_EQ(d.out.find("default"), std::string::npos) << "v6.12 sets every knob";
    EXPECT_EQ(run_numasim("profiles show v9.9").status, 2);
}

TEST(Cli, PerfBenchNumaPrintsPerfLines) {
    const Output o = run_numasim("perf-bench-numa mem -p 2 -t 2 -P 64 -s 5 -zZ0qcm --thp 1");
    ASSERT_EQ(o.status, 0) << o.out;
    EXPECT_NE(o.out.find("secs latency to NUMA-converge"), std::string::npos) << o.out;
    EXPECT_NE(o.out.find("GB/sec total speed"), std::string::npos) << o.out;
}

// run runs a scenario as written; its [[variant]] tables are compare's. Running them silently
// not at all left a user to think the variants ran, so run says so on stderr, and only then.
TEST(Cli, RunSaysItDoesNotRunTheVariantTables) {
    const Output o = numasim::test::shell(
        "{ $NUMASIM run examples/variants.toml --duration 1s >/dev/null; } 2>&1");
    ASSERT_EQ(o.status, 0) << o.out;
    EXPECT_EQ(o.out,
              "numasim: note: examples/variants.toml: the [[variant]] tables (v6.12, v6.1, "
              "v6.12-small-windows) are not run: `run` runs the scenario as written; -V NAME "
              "runs one of them, `numasim compare` runs them all\n");
    const Output one = numasim::test::shell(
        "{ $NUMASIM run examples/variants.toml -V v6.1 --duration 1s >/dev/null; } 2>&1");
    EXPECT_EQ(one.status, 0);
    EXPECT_EQ(one.out, "");
}

// Two NUMA01_THREADLOCAL processes that each bind 1 GiB to node 0 of tiny-4n (2 GiB, part of it
// kept free by the watermarks) run out of memory: the kernel would kill a task, the model
// retries the faults. The run's figures are not the kernel's, so run and compare say so on
// stderr, and say nothing where memory sufficed (the example binds 512 MiB each).
TEST(Cli, RunsThatRanOutOfMemorySaySo) {
    const char* note = "out of memory in 1 of 1 run(s): ";
    const Output run = numasim::test::shell(
        "{ $NUMASIM run examples/knobs.toml --duration 1s --param 'workload.size=\"1GiB\"' "
        ">/dev/null; } 2>&1");
    ASSERT_EQ(run.status, 0) << run.out;
    EXPECT_EQ(
        run.out.rfind("numasim: note: examples/knobs.toml: out of memory in 1 of 1 run(s): ", 0),
        0u)
        << run.out;
    EXPECT_NE(run.out.find("out_of_memory()"), std::string::npos) << run.out;
    const Output cmp = numasim::test::shell(
        "{ $NUMASIM compare examples/knobs.toml --duration 1s --iterations 1 -V a:smallimp=0 "
        "-V b:smallimp=30 --param 'workload.size=\"1GiB\"' >/dev/null; } 2>&1");
    ASSERT_EQ(cmp.status, 0) << cmp.out;
    for (const char* v : {"variant a: ", "variant b: "})
        EXPECT_NE(cmp.out.find(std::string("examples/knobs.toml: ") + v + note), std::string::npos)
            << cmp.out;
    const Output fits =
        numasim::test::shell("{ $NUMASIM run examples/knobs.toml --duration 1s >/dev/null; } 2>&1");
    EXPECT_EQ(fits.status, 0);
    EXPECT_EQ(fits.out, "");
}

// numa_balancing=2 on a machine with one memory tier: the kernel accepts it and its scans skip
// every top-tier folio, so nothing is balanced. run says so, and only in that case.
TEST(Cli, TieringModeWithoutASlowerTierSaysSo) {
    const Output one_tier = numasim::test::shell(
        "{ $NUMASIM run examples/streams.toml --duration 1s --set numa_balancing=2 "
        ">/dev/null; } 2>&1");
    ASSERT_EQ(one_tier.status, 0) << one_tier.out;
    EXPECT_EQ(one_tier.out.rfind("numasim: note: examples/streams.toml: numa_balancing=2 (memory "
                                 "tiering only) on a machine whose memory is all in one tier "
                                 "(tiny-2n): ",
                                 0),
              0u)
        << one_tier.out;
    for (const char* other : {"--set numa_balancing=3", "--set numa_balancing=1"}) {
        const Output o = numasim::test::shell(
            std::string("{ $NUMASIM run examples/streams.toml --duration 1s ") + other +
            " >/dev/null; } 2>&1");
        EXPECT_EQ(o.status, 0);
        EXPECT_EQ(o.out, "") << other;
    }
    const Output tiered = numasim::test::shell(
        "{ $NUMASIM run examples/tiering-promotion.toml -V mode2 --duration 1s >/dev/null; } 2>&1");
    EXPECT_EQ(tiered.status, 0);
    EXPECT_EQ(tiered.out, "");
}

TEST(Cli, CompareWithVariantsPrintsTables) {
    const Output o = run_numasim(
        "compare examples/variants.toml --iterations 2 --duration 10s -V base:profile=v6.12 "
        "-V old:profile=v6.1");
    ASSERT_EQ(o.status, 0) << o.out;
    for (const char* s : {"Amean", "elsp-NUMA02", "Duration User", "Ops NUMA hint faults",
                          "Ops AutoNUMA cost", "sched:sched_move_numa", "numa_pages_migrated"})
        EXPECT_NE(o.out.find(s), std::string::npos) << s;
}

}  // namespace
