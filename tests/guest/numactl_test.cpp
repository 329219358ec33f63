// Static bindings in the guest runner (guest/numactl.h): which numactl line each started
// process gets, counted over the workloads as the model counts them.
#include "guest/numactl.h"

#include <gtest/gtest.h>

#include "config/toml_reader.h"
#include "guest/context.h"
#include "machine/presets.h"

namespace numasim::guest {
namespace {

// tiny-2n: CPUs 0-1 on node 0, 2-3 on node 1.
const Topology& two_nodes() {
    static const Topology m = load_preset("tiny-2n");
    return m;
}

constexpr const char* kStreams = R"(
[scenario]
machine = "tiny-2n"
policy = "numactl"
[[workload]]
type = "streams"
[[workload.process]]
name = "a"
count = 2
[[workload.process.region]]
name = "r"
size = "1MiB"
[[workload.process.thread]]
phases = [ { streams = [ { region = "r" } ], rate_gbs = 1.0, cpu_time = "1s" } ]
[[workload.process]]
name = "b"
count = 3
[[workload.process.region]]
name = "r"
size = "1MiB"
[[workload.process.thread]]
phases = [ { streams = [ { region = "r" } ], rate_gbs = 1.0, cpu_time = "1s" } ]
[[workload]]
type = "autonumabench"
test = "NUMA01_THREADLOCAL"
[policy.numactl]
processes = ["--cpunodebind=0 --membind=0", "--physcpubind=3 --balancing --membind=1"]
)";

TEST(GuestNumactl, ReadsTheLinesOnlyUnderPolicyNumactl) {
    const TomlTable doc = TomlTable::parse_text(kStreams, "s.toml");
    const auto lines = read_numactl_bindings(doc, two_nodes());
    ASSERT_EQ(lines.size(), 2u);
    EXPECT_EQ(*lines[0].cpus, (std::vector<int>{0, 1}));
    EXPECT_EQ(lines[0].mempolicy->mode, MpolMode::Bind);
    EXPECT_EQ(lines[0].mempolicy->nodes, 1u);
    EXPECT_EQ(*lines[1].cpus, (std::vector<int>{3}));
    EXPECT_EQ(lines[1].mempolicy->nodes, 2u);
    EXPECT_TRUE(lines[1].mempolicy->flags & MPOL_F_NUMA_BALANCING);

    const TomlTable mainline =
        TomlTable::parse_text(kStreams, "s.toml", {{"-V", "scenario.policy", "\"mainline\""}});
    EXPECT_TRUE(read_numactl_bindings(mainline, two_nodes()).empty());
    const TomlTable no_table = TomlTable::parse_text(
        "[scenario]\npolicy = \"numactl\"\n[[workload]]\ntype = \"cowsum\"\n", "t.toml");
    EXPECT_THROW(read_numactl_bindings(no_table, two_nodes()), std::runtime_error);
}

TEST(GuestNumactl, StreamsStartsEachInstanceTheOthersOneProcess) {
    const TomlTable doc = TomlTable::parse_text(kStreams, "s.toml");
    const auto w = doc.tables("workload");
    EXPECT_EQ(exec_processes(w[0], two_nodes()), 5);  // a.0, a.1, b.0, b.1, b.2
    EXPECT_EQ(exec_processes(w[1], two_nodes()), 1);  // numa01's main; its children fork
}

TEST(GuestNumactl, TheListRepeatsFromItsStart) {
    const TomlTable doc = TomlTable::parse_text(kStreams, "s.toml");
    const auto lines = read_numactl_bindings(doc, two_nodes());
    EXPECT_EQ(binding_for(lines, 0), &lines[0]);
    EXPECT_EQ(binding_for(lines, 1), &lines[1]);
    // The autonumabench process is the sixth started (after the streams workload's five): line 1.
    EXPECT_EQ(binding_for(lines, 5), &lines[1]);
    EXPECT_EQ(binding_for(lines, 4), &lines[0]);
    EXPECT_EQ(binding_for({}, 3), nullptr);
}

}  // namespace
}  // namespace numasim::guest
