#include "oracle/qemu_command.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "machine/presets.h"
#include "oracle/guest_machine.h"

namespace numasim {
namespace {

// The value after each occurrence of `flag`.
std::vector<std::string> values_of(const std::vector<std::string>& argv, const std::string& flag) {
    std::vector<std::string> out;
    for (size_t i = 0; i + 1 < argv.size(); ++i)
        if (argv[i] == flag) out.push_back(argv[i + 1]);
    return out;
}

TEST(CpuListText, CollapsesRuns) {
    EXPECT_EQ(cpu_list_text({0, 1, 2, 3}), "0-3");
    EXPECT_EQ(cpu_list_text({0, 1, 4, 5, 7}), "0-1,4-5,7");
    EXPECT_EQ(cpu_list_text({}), "");
}

TEST(QemuArgv, NodesCpusMemoryAndSlitOfTiny2n) {
    const GuestMachine g = fit_guest_machine(load_preset("tiny-2n"), {}, "test");
    const auto argv = qemu_argv(g, {.kernel = "vmlinuz", .initrd = "initrd", .append = "x"});
    EXPECT_EQ(values_of(argv, "-m"), std::vector<std::string>{"4096M"});
    EXPECT_EQ(values_of(argv, "-smp"), std::vector<std::string>{"4,sockets=2,cores=2,threads=1"});
    EXPECT_EQ(values_of(argv, "-object"),
              (std::vector<std::string>{"memory-backend-ram,id=m0,size=2048M",
                                        "memory-backend-ram,id=m1,size=2048M"}));
    EXPECT_EQ(values_of(argv, "-numa"),
              (std::vector<std::string>{"node,nodeid=0,memdev=m0,cpus=0-1",
                                        "node,nodeid=1,memdev=m1,cpus=2-3",
                                        "dist,src=0,dst=1,val=21", "dist,src=1,dst=0,val=21"}));
    EXPECT_EQ(values_of(argv, "-accel"), std::vector<std::string>{"tcg,thread=multi,tb-size=512"});
    EXPECT_EQ(values_of(argv, "-kernel"), std::vector<std::string>{"vmlinuz"});
}

TEST(QemuArgv, KvmUsesTheHostCpu) {
    const GuestMachine g = fit_guest_machine(load_preset("tiny-4n"), {}, "test");
    const auto argv =
        qemu_argv(g, {.accel = Accel::Kvm, .kernel = "k", .initrd = "i", .append = ""});
    EXPECT_EQ(values_of(argv, "-accel"), std::vector<std::string>{"kvm"});
    EXPECT_EQ(values_of(argv, "-cpu"), std::vector<std::string>{"host"});
    // Every ordered pair of distinct nodes gets its SLIT entry.
    EXPECT_EQ(std::count_if(argv.begin(), argv.end(),
                            [](const std::string& a) { return a.rfind("dist,", 0) == 0; }),
              4 * 3);
}

// cascadelake-2s-pmem in 4 vCPUs and 4 GiB, tiered: nodes 0-1 DRAM with CPUs (85 ns, 100 GB/s),
// nodes 2-3 Optane (305 ns, 39.4 GB/s) nearest to sockets 0 and 1 (SLIT 17). The HMAT gives
// each node its figures from that initiator only; memory shrinks to 128 MiB per DRAM node
// (96/1704 of 4 GiB = 230 MiB, rounded down) and 1792 MiB per PMEM node (756/1704 of 4 GiB =
// 1817 MiB).
TEST(QemuArgv, TieredGuestPublishesAnHmat) {
    const Topology m = load_preset("cascadelake-2s-pmem");
    GuestMachine g =
        fit_guest_machine(m, {.max_vcpus = 4, .max_mem_bytes = uint64_t{4} << 30}, "test");
    publish_hmat(m, g);
    const auto argv = qemu_argv(g, {.kernel = "vmlinuz", .initrd = "initrd", .append = "x"});
    EXPECT_EQ(values_of(argv, "-machine"), std::vector<std::string>{"q35,hmat=on"});
    EXPECT_EQ(values_of(argv, "-m"), std::vector<std::string>{"3840M"});
    std::vector<std::string> numa = values_of(argv, "-numa");
    ASSERT_EQ(numa.size(), 4u + 12u + 8u);
    EXPECT_EQ(std::vector<std::string>(numa.begin(), numa.begin() + 4),
              (std::vector<std::string>{
                  "node,nodeid=0,memdev=m0,cpus=0-1", "node,nodeid=1,memdev=m1,cpus=2-3",
                  "node,nodeid=2,memdev=m2,initiator=0", "node,nodeid=3,memdev=m3,initiator=1"}));
    EXPECT_EQ(numa[4], "dist,src=0,dst=1,val=21");
    const std::string lb = "hierarchy=memory,data-type=access-";
    EXPECT_EQ(std::vector<std::string>(numa.begin() + 16, numa.end()),
              (std::vector<std::string>{
                  "hmat-lb,initiator=0,target=0," + lb + "latency,latency=85",
                  "hmat-lb,initiator=0,target=0," + lb + "bandwidth,bandwidth=100000M",
                  "hmat-lb,initiator=1,target=1," + lb + "latency,latency=85",
                  "hmat-lb,initiator=1,target=1," + lb + "bandwidth,bandwidth=100000M",
                  "hmat-lb,initiator=0,target=2," + lb + "latency,latency=305",
                  "hmat-lb,initiator=0,target=2," + lb + "bandwidth,bandwidth=39400M",
                  "hmat-lb,initiator=1,target=3," + lb + "latency,latency=305",
                  "hmat-lb,initiator=1,target=3," + lb + "bandwidth,bandwidth=39400M"}));
}

// Without publish_hmat a machine with memory-only nodes boots as before: plain q35, no
// initiators, no HMAT entries.
TEST(QemuArgv, UntieredGuestHasNoHmat) {
    const GuestMachine g =
        fit_guest_machine(load_preset("cascadelake-2s-pmem"),
                          {.max_vcpus = 4, .max_mem_bytes = uint64_t{4} << 30}, "test");
    const auto argv = qemu_argv(g, {.kernel = "vmlinuz", .initrd = "initrd", .append = "x"});
    EXPECT_EQ(values_of(argv, "-machine"), std::vector<std::string>{"q35"});
    for (const std::string& a : values_of(argv, "-numa")) {
        EXPECT_EQ(a.find("initiator"), std::string::npos) << a;
        EXPECT_NE(a.rfind("hmat-lb", 0), 0u) << a;
    }
    EXPECT_EQ(values_of(argv, "-numa")[3], "node,nodeid=3,memdev=m3");
}

TEST(GuestKernelCmdline, SerialConsoleAndExtraWords) {
    const std::string s = guest_kernel_cmdline("numasim.probe");
    EXPECT_NE(s.find("console=ttyS0"), std::string::npos);
    EXPECT_EQ(s.substr(s.size() - 13), "numasim.probe");
}

}  // namespace
}  // namespace numasim
