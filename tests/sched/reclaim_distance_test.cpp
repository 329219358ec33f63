// node_reclaim_distance by architecture, CPU family and release, the NUMA levels' fork, exec and
// affine-wake flags it decides (sd_init()), and where forks land because of them: on a 2-node
// machine with the SLIT 10/32 of AMD 2P BIOSes, and on POWER8.
#include "sched/reclaim_distance.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "kernel/system.h"
#include "machine/machine_file.h"
#include "machine/presets.h"
#include "sched/load_balance.h"
#include "sched/sched_domain.h"
#include "sched_fixture.h"

namespace numasim {
namespace {

CpuModel cpu(const std::string& name) {
    return *find_cpu_model(name);
}

int distance(const std::string& model, std::optional<KernelRelease> r) {
    return node_reclaim_distance(cpu(model), r);
}

TEST(NodeReclaimDistance, ByArchitectureCpuAndRelease) {
    const KernelRelease v4_18{4, 18}, v5_3{5, 3}, v5_4{5, 4}, v5_6{5, 6}, v5_7{5, 7}, v6_6{6, 6},
        v6_8{6, 8}, v6_9{6, 9}, v6_12{6, 12};
    // Intel, and any x86 before a release knows: the generic RECLAIM_DISTANCE.
    EXPECT_EQ(distance("haswell", v6_12), 30);
    EXPECT_EQ(distance("zen3", std::nullopt), 30);
    // powerpc's own definition, whatever the release.
    EXPECT_EQ(distance("power8", v4_18), 10);
    EXPECT_EQ(distance("power9", v6_12), 10);
    EXPECT_EQ(distance("power8", std::nullopt), 10);
    // Zen 1/2 from v5.4, Zen 3/4 from v5.7, Zen 5 from v6.9.
    EXPECT_EQ(distance("zen1", v5_3), 30);
    EXPECT_EQ(distance("zen2", v5_4), 32);
    EXPECT_EQ(distance("zen3", v5_6), 30);
    EXPECT_EQ(distance("zen4", v5_7), 32);
    EXPECT_EQ(distance("zen3", v4_18), 30);
    EXPECT_EQ(distance("zen5", v6_6), 30);
    EXPECT_EQ(distance("zen5", v6_8), 30);
    EXPECT_EQ(distance("zen5", v6_9), 32);
    // An AMD part before Zen, and qemu's default model, keep the generic value.
    EXPECT_EQ(distance("amd", v6_12), 30);
    EXPECT_EQ(distance("qemu64", v6_12), 30);
}

// Two nodes of 2 CPUs (one LLC each) at SLIT distance `remote`, with `cpu_line` in [machine].
Topology two_nodes(int remote, const std::string& cpu_line) {
    const std::string d = std::to_string(remote);
    return load_machine_text("[machine]\nname = \"t\"\n" + cpu_line +
                                 "\nsockets = 2\ncores_per_node = 2\nmemory_per_node = \"1GiB\"\n"
                                 "distance = [[10, " +
                                 d + "], [" + d + ", 10]]\n[hardware]\nlatency_ns = { 10 = 90.0, " +
                                 d +
                                 " = 140.0 }\ndram_bandwidth_gbs = 60.0\nlink_bandwidth_gbs = "
                                 "20.8\nllc_mb = 16\nllc_latency_ns = 20.0\nline_fill_buffers = "
                                 "10\nsmt_core_speedup = 1.0\ncpu_ghz = 2.5\n",
                             "t.toml");
}

NumaBalancingKnobs off() {
    NumaBalancingKnobs k;
    k.numa_balancing = 0;
    return k;
}

// The NUMA level's three flags, and that the levels below keep theirs.
void expect_numa_flags(const System& sys, bool set) {
    for (const auto& levels : sys.sched.domains)
        for (const SchedDomain& sd : levels) {
            const bool want = sd.numa ? set : true;
            EXPECT_EQ(sd.balance_fork, want) << sd.name;
            EXPECT_EQ(sd.balance_exec, want) << sd.name;
            EXPECT_EQ(sd.wake_affine, want) << sd.name;
        }
}

TEST(SdInitNumaFlags, ALevelBeyondTheDistanceLosesThem) {
    {
        const System sys(two_nodes(21, ""), off(), 1);
        expect_numa_flags(sys, true);  // 21 <= 30
    }
    {
        const System sys(two_nodes(30, ""), off(), 1);
        expect_numa_flags(sys, true);  // at the distance: kept (the test is "greater than")
    }
    System sys(two_nodes(32, "cpu = \"zen3\""), off(), 1);
    ASSERT_EQ(sys.sched.sd_numa(0)->numa_distance, 32);
    expect_numa_flags(sys, false);  // no release yet: x86's 30
    sys.set_kernel_release("v6.1");
    expect_numa_flags(sys, true);  // Zen 3 on v6.1: 32
    sys.set_kernel_release("v4.18");
    expect_numa_flags(sys, false);
}

TEST(SdInitNumaFlags, EveryNumaLevelOfPower8LosesThem) {
    System sys(load_preset("power8-2s4n"), off(), 1);  // distances 20 and 40
    sys.set_kernel_release("v6.12");
    int numa_levels = 0;
    for (const SchedDomain& sd : sys.sched.domains[0])
        numa_levels += sd.numa;
    EXPECT_EQ(numa_levels, 2);
    expect_numa_flags(sys, false);
}

// Where `n` CPU-bound processes forked one after another from the first land, by node.
std::map<int, int> fork_nodes(Topology t, const char* release, int n) {
    System sys(std::move(t), off(), 1);
    sys.set_kernel_release(release);
    schedtest::Programs programs;
    return schedtest::fork_nodes_of(sys, programs, n);
}

// Four forks on 2 x 2 CPUs. Where the NUMA level balances forks, the third and fourth go to the
// idle node (the ForkPlacement test of fair_test.cpp works the steps); where it does not, the
// search starts at the node's own level and all four stay on the parent's node, two per CPU.
TEST(ForkPlacement, StaysOnTheParentsNodeBeyondTheReclaimDistance) {
    const std::map<int, int> spread{{0, 2}, {1, 2}}, local{{0, 4}};
    EXPECT_EQ(fork_nodes(two_nodes(21, ""), "v6.1", 4), spread);
    EXPECT_EQ(fork_nodes(two_nodes(32, ""), "v6.1", 4), local);
    EXPECT_EQ(fork_nodes(two_nodes(32, "cpu = \"zen3\""), "v6.1", 4), spread);
    EXPECT_EQ(fork_nodes(two_nodes(32, "cpu = \"zen3\""), "v4.18", 4), local);
    EXPECT_EQ(fork_nodes(two_nodes(21, "cpu = \"power8\""), "v6.1", 4), local);
}

}  // namespace
}  // namespace numasim
