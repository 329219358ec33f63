#include "oracle/guest_machine.h"

#include <gtest/gtest.h>

#include "config/input_error.h"
#include "machine/presets.h"

namespace numasim {
namespace {

TEST(GuestMachine, SmallMachineIsUnchanged) {
    const Topology m = load_preset("tiny-2n");
    const GuestMachine g = fit_guest_machine(m, {.max_vcpus = 8}, "test");
    EXPECT_TRUE(g.scaled.empty());
    EXPECT_EQ(g.topo.nr_cpus(), 4);
    EXPECT_EQ(g.topo.nodes[1].cpus, (std::vector<int>{2, 3}));
    EXPECT_EQ(g.topo.nodes[0].mem_bytes, m.nodes[0].mem_bytes);
    EXPECT_EQ(g.topo.distance, m.distance);
}

TEST(GuestMachine, CpusShrinkPerNodeAndKeepSmtWhenCoresStayWhole) {
    const Topology m = load_preset("haswell-2s-24c");  // 2 nodes x 12 cores x 2 threads
    const GuestMachine g = fit_guest_machine(m, {.max_vcpus = 8}, "test");
    ASSERT_EQ(g.topo.nr_nodes(), 2);
    EXPECT_EQ(g.topo.nodes[0].cpus, (std::vector<int>{0, 1, 2, 3}));
    EXPECT_EQ(g.topo.nodes[1].cpus, (std::vector<int>{4, 5, 6, 7}));
    EXPECT_EQ(g.threads_per_core, 2);
    EXPECT_EQ(g.topo.smt_siblings(4), (std::vector<int>{4, 5}));  // qemu: siblings adjacent
    ASSERT_EQ(g.scaled.size(), 1u);
    EXPECT_NE(g.scaled[0].find("48 -> 8"), std::string::npos) << g.scaled[0];
}

TEST(GuestMachine, OddVcpuLimitDropsSmt) {
    const GuestMachine g =
        fit_guest_machine(load_preset("haswell-2s-24c"), {.max_vcpus = 6}, "test");
    EXPECT_EQ(g.topo.nodes[0].cpus.size(), 3u);
    EXPECT_EQ(g.threads_per_core, 1);
    EXPECT_NE(g.scaled[0].find("without SMT"), std::string::npos);
}

TEST(GuestMachine, MemoryShrinksInProportionToWholeSections) {
    const Topology m = load_preset("tiny-2n");  // 2 x 2 GiB
    const GuestMachine g =
        fit_guest_machine(m, {.max_vcpus = 8, .max_mem_bytes = uint64_t{3} << 30}, "test");
    EXPECT_EQ(g.topo.nodes[0].mem_bytes, uint64_t{1536} << 20);
    EXPECT_EQ(g.topo.nodes[1].mem_bytes, uint64_t{1536} << 20);
    ASSERT_EQ(g.scaled.size(), 1u);
    EXPECT_NE(g.scaled[0].find("memory"), std::string::npos);
}

TEST(GuestMachine, MoreNodesThanVcpusIsAnError) {
    EXPECT_THROW(fit_guest_machine(load_preset("tiny-4n"), {.max_vcpus = 3}, "test"), InputError);
}

}  // namespace
}  // namespace numasim
