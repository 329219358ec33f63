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

TEST(GuestKernelCmdline, SerialConsoleAndExtraWords) {
    const std::string s = guest_kernel_cmdline("numasim.probe");
    EXPECT_NE(s.find("console=ttyS0"), std::string::npos);
    EXPECT_EQ(s.substr(s.size() - 13), "numasim.probe");
}

}  // namespace
}  // namespace numasim
