// The numad policy through a scenario (docs/placement-policies.md, "numad"): on a 2-node
// machine two one-thread processes whose memory starts interleaved over both nodes are each
// bound to one node, and their memory follows through migrate_pages(), which the kernel counts
// as pgmigrate_success and not as NUMA-hinting migrations; runs repeat bit for bit; bad keys
// are input errors naming the key.
#include <gtest/gtest.h>

#include <set>

#include "config/input_error.h"
#include "engine/engine.h"
#include "engine/process.h"
#include "experiment/run.h"
#include "experiment/scenario.h"
#include "kernel/agent_calls.h"
#include "kernel/proc_view.h"
#include "kernel/system.h"
#include "machine/presets.h"
#include "mm/vma.h"
#include "support/policy_run.h"
#include "workload/workload.h"

namespace numasim {
namespace {

// tiny-2n: CPUs 0-1 on node 0, 2-3 on node 1, 2 GiB each. Each process's main thread writes
// its 512 MiB (131072 pages) under MPOL_INTERLEAVE, so half of it lies on each node, then its
// worker sweeps it for the rest of the run (one busy CPU, over numad's 300 MB and half-a-CPU
// thresholds). NUMA balancing is off: only numad moves anything. With -i 1:2 numad reads the
// processes at 0.1 s, has their CPU use at 2.1 s and binds one of them, then the other a second
// later (manage_loads binds one process per pass).
constexpr const char* kSpread = R"(
[scenario]
machine = "tiny-2n"
duration = "5s"
policy = "numad"
[numa_balancing]
numa_balancing = 0
[policy.numad]
interval = "1:2"
[[workload]]
type = "streams"
[[workload.process]]
name = "p"
count = 2
threads = 1
[[workload.process.region]]
name = "data"
size = "512MiB"
[workload.process.main]
before = [ { policy = "interleave", nodes = [0, 1], streams = [ { region = "data", write_fraction = 1.0 } ], rate_gbs = 10.0, work = "512MiB" }, { policy = "default", cpu_time = "1ms" } ]
[[workload.process.thread]]
loop = true
phases = [ { streams = [ { region = "data", write_fraction = 1.0 } ], rate_gbs = 4.0, cpu_time = "100ms" } ]
)";

constexpr uint64_t kPages = 131072;

TEST(Numad, BindsEachProcessToOneNodeAndMigratesItsMemoryThere) {
    test::PolicyRun r(kSpread, "spread.toml");
    r.run();
    System& sys = r.sys;

    ASSERT_EQ(sys.mms.size(), 2u);
    std::set<int> nodes;
    for (const auto& mm : sys.mms) {
        // Every live thread may run on the CPUs of one node only, and the worker runs there
        // (the main thread sleeps in pthread_join() where it last ran).
        int node = -1;
        for (const Task* t : mm->tasks) {
            EXPECT_EQ(t->nr_cpus_allowed, 2) << t->comm;
            const int first = t->allowed(0) ? 0 : 1;
            EXPECT_TRUE(t->allowed(2 * first) && t->allowed(2 * first + 1)) << t->comm;
            if (t->state != TaskState::Sleeping) {
                EXPECT_EQ(sys.task_node(*t), first) << t->comm;
            }
            node = first;
        }
        nodes.insert(node);
        const Region* data = find_region(*mm, "data");
        ASSERT_NE(data, nullptr);
        EXPECT_GE(data->present, kPages - 1);  // the sweeps may leave the last page untouched
        EXPECT_EQ(data->pages_on(node), data->present);
        EXPECT_EQ(data->pages_on(1 - node), 0u);
    }
    // The second process goes where the first left room: the other node.
    EXPECT_EQ(nodes.size(), 2u);
    // At least the half of each region that was on the wrong node moved, by the system call:
    // pgmigrate_success counts it, numa_pages_migrated (NUMA hinting) does not.
    EXPECT_GE(sys.counters[Vm::pgmigrate_success], kPages - 2);
    EXPECT_EQ(sys.counters[Vm::pgmigrate_fail], 0u);
    EXPECT_EQ(sys.counters[Vm::numa_pages_migrated], 0u);
    EXPECT_GT(sys.agent_kernel_ns, 0.0);
}

// The daemon's own time (docs/placement-policies.md, "What an agent's system calls cost"): reading
// a process's numa_maps costs a line per VMA and an entry per present PTE. Each process here has
// 131072 present 4 KiB pages of data (less at most the last), so its numa_maps read is at least
// 131071 x 60 ns = 7.86 ms on top of 2 us per VMA.
TEST(Numad, NumaMapsReadCostsLinesAndPresentEntries) {
    test::PolicyRun r(kSpread, "spread.toml");
    r.run();
    System& sys = r.sys;
    for (const auto& mm : sys.mms) {
        uint64_t present = 0;
        for (const auto& v : mm->vmas)
            for (int n = 0; n < sys.nr_nodes(); ++n)
                present += v->pages_on(n);
        EXPECT_GE(present, kPages - 1);
        EXPECT_DOUBLE_EQ(numa_maps_read_ns(sys, *mm),
                         static_cast<double>(mm->vmas.size()) * NUMA_MAPS_LINE_NS +
                             static_cast<double>(present) * NUMA_MAPS_ENTRY_NS);
        EXPECT_GT(numa_maps_read_ns(sys, *mm), (kPages - 1) * 60.0);
    }
    // Every pass's reads and calls were charged to a CPU, to the nanosecond.
    EXPECT_GT(sys.agent_read_ns, 0.0);
    EXPECT_NEAR(sys.agent_charged_ns, sys.agent_read_ns + sys.agent_kernel_ns, 1.0);
}

// charge_agent_pass() charges what was spent since the last charge, once, to the CPU the
// daemon woke on; agent_wake_cpu() keeps an idle previous CPU, else takes an idle CPU of its
// LLC, else stays where it was.
TEST(Numad, APassIsChargedOnceToTheCpuItWokeOn) {
    System sys(load_preset("tiny-2n"), {}, 1);
    sys.agent_read_ns = 1000;
    sys.agent_cpu = agent_wake_cpu(sys);
    EXPECT_EQ(sys.agent_cpu, 0);
    charge_agent_pass(sys);
    EXPECT_EQ(sys.rqs[0].kthread_debt, 1000);
    charge_agent_pass(sys);  // nothing new
    EXPECT_EQ(sys.rqs[0].kthread_debt, 1000);
    sys.agent_kernel_ns += 500;
    // CPU 0 busy: tiny-2n's node 0 is one LLC of CPUs 0-1, so CPU 1.
    sys.rqs[0].nr_running = 1;
    sys.agent_cpu = agent_wake_cpu(sys);
    EXPECT_EQ(sys.agent_cpu, 1);
    charge_agent_pass(sys);
    EXPECT_EQ(sys.rqs[1].kthread_debt, 500);
    // Both busy: it stays on CPU 1 and waits its turn there.
    sys.rqs[1].nr_running = 1;
    EXPECT_EQ(agent_wake_cpu(sys), 1);
    EXPECT_DOUBLE_EQ(sys.agent_charged_ns, 1500.0);
    sys.rqs[0].nr_running = sys.rqs[1].nr_running = 0;
}

// run's report names the daemon's time; a mainline run has none.
TEST(Numad, TheRunResultCarriesTheDaemonsTime) {
    const Scenario sc = load_scenario_text(kSpread, "spread.toml");
    const RunResult r = run_once(sc, 7);
    EXPECT_TRUE(r.agent);
    EXPECT_GT(r.agent_read_s, 0.0);
    EXPECT_GT(r.agent_syscall_s, 0.0);
    std::string mainline = kSpread;
    mainline.replace(mainline.find("policy = \"numad\""), 16, "policy = \"mainline\"");
    const RunResult m = run_once(load_scenario_text(mainline, "m.toml"), 7);
    EXPECT_FALSE(m.agent);
}

TEST(Numad, ARunRepeatsBitForBit) {
    const Scenario sc = load_scenario_text(kSpread, "spread.toml");
    const RunResult a = run_once(sc, 7);
    const RunResult b = run_once(sc, 7);
    EXPECT_GT(a.counters[Vm::pgmigrate_success], 0u);
    EXPECT_EQ(a.counters[Vm::pgmigrate_success], b.counters[Vm::pgmigrate_success]);
    EXPECT_EQ(a.counters[Vm::pgalloc], b.counters[Vm::pgalloc]);
    EXPECT_EQ(a.counters.migrations, b.counters.migrations);
    EXPECT_EQ(a.user_s, b.user_s);
    ASSERT_EQ(a.tasks.size(), b.tasks.size());
    for (size_t i = 0; i < a.tasks.size(); ++i) {
        EXPECT_EQ(a.tasks[i].cpu, b.tasks[i].cpu);
        EXPECT_EQ(a.tasks[i].bytes, b.tasks[i].bytes);
        EXPECT_EQ(a.tasks[i].utime_s, b.tasks[i].utime_s);
    }
}

std::string input_error(const std::string& table) {
    const std::string text =
        "[scenario]\nmachine = \"tiny-2n\"\npolicy = \"numad\"\n[[workload]]\ntype = "
        "\"cowsum\"\n[policy.numad]\n" +
        table;
    try {
        load_scenario_text(text, "bad.toml");
    } catch (const InputError& e) {
        return e.where() + ": " + e.problem();
    }
    return "accepted";
}

TEST(Numad, BadKeysAreInputErrorsNamingTheKey) {
    EXPECT_EQ(input_error("interval = \"3\"\n"),
              "policy.numad.interval (line 7): max interval (3) must be greater than min "
              "interval (5)");
    EXPECT_EQ(input_error("interval = \"1:x\"\n"),
              "policy.numad.interval (line 7): \"1:x\" is not MAX or MIN:MAX in whole seconds "
              "(numad -i)");
    EXPECT_EQ(input_error("interval = \"0\"\n")
                  .rfind("policy.numad.interval (line 7): a maximum of 0", 0),
              0u);
    EXPECT_EQ(input_error("utilization = 131\n"),
              "policy.numad.utilization (line 7): 131 is out of range: numad's -u takes 10 to 130");
    EXPECT_EQ(input_error("memlocality = 49\n"),
              "policy.numad.memlocality (line 7): 49 is out of range: numad's -m takes 50 to 100");
    EXPECT_NE(input_error("scan_all = 1\n").find("scan_all"), std::string::npos);
    EXPECT_NE(input_error("scan_all = 1\n").find("unknown key"), std::string::npos);
    EXPECT_EQ(input_error("interval = \"5:15\"\nutilization = 70\nkeep_interleaved = true\n"),
              "accepted");
}

}  // namespace
}  // namespace numasim
