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
#include "kernel/system.h"
#include "mm/vma.h"
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
    const Scenario sc = load_scenario_text(kSpread, "spread.toml");
    System sys(sc.machine, sc.knobs, sc.seed, sc.figures);
    sys.set_kernel_release(profile_release(sc.profile));
    sys.placement_policy = sc.placement.get();
    auto workloads = sc.make_workloads();
    workloads[0]->setup(sys, 0);
    Engine engine(sys);
    engine.run(sc.duration);

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
