#include "oracle/guest_image.h"

#include <gtest/gtest.h>

#include <cstring>

namespace numasim {
namespace {

// A minimal ELF64 x86-64 header with `types` as its program header types.
std::string fake_elf(const std::vector<uint32_t>& types) {
    std::string e(64 + 56 * types.size(), '\0');
    std::memcpy(e.data(),
                "\x7f"
                "ELF",
                4);
    e[4] = 2;  // ELFCLASS64
    e[5] = 1;  // little endian
    const uint16_t machine = 62, phentsize = 56, phnum = static_cast<uint16_t>(types.size());
    const uint64_t phoff = 64;
    std::memcpy(e.data() + 18, &machine, 2);
    std::memcpy(e.data() + 32, &phoff, 8);
    std::memcpy(e.data() + 54, &phentsize, 2);
    std::memcpy(e.data() + 56, &phnum, 2);
    for (size_t i = 0; i < types.size(); ++i)
        std::memcpy(e.data() + 64 + 56 * i, &types[i], 4);
    return e;
}

TEST(StaticElf, InterpreterMeansDynamic) {
    EXPECT_TRUE(is_static_x86_64_elf(fake_elf({1, 1, 4})));   // LOAD, LOAD, NOTE
    EXPECT_FALSE(is_static_x86_64_elf(fake_elf({6, 3, 1})));  // PHDR, INTERP, LOAD
    EXPECT_FALSE(is_static_x86_64_elf("#!/bin/sh\n"));
}

TEST(GuestEnv, ShellAssignmentsForTheInit) {
    GuestConfig c;
    c.numa_balancing = 0;
    c.knobs = {{"scan_delay_ms", 100}, {"scan_size_mb", 64}};
    c.runner_args = {"--duration-ms", "20000"};
    const std::string env = guest_env_text(c);
    EXPECT_NE(env.find("NUMA_BALANCING=0\n"), std::string::npos) << env;
    EXPECT_NE(env.find("THP='madvise'\n"), std::string::npos) << env;
    EXPECT_NE(env.find("KNOBS='scan_delay_ms=100 scan_size_mb=64'\n"), std::string::npos) << env;
    EXPECT_NE(env.find("RUNNER_ARGS='/oracle/scenario.toml --params /oracle/params "
                       "--duration-ms 20000'"),
              std::string::npos)
        << env;
}

TEST(GuestEnv, TieredGuestAddsTieredAndDemotion) {
    GuestConfig c;
    EXPECT_EQ(guest_env_text(c).find("TIERED"), std::string::npos);
    c.tiered = true;
    c.demotion_enabled = true;
    const std::string env = guest_env_text(c);
    EXPECT_NE(env.find("\nTIERED=1\nDEMOTION=1\n"), std::string::npos) << env;
    c.demotion_enabled = false;
    EXPECT_NE(guest_env_text(c).find("\nDEMOTION=0\n"), std::string::npos);
}

TEST(GuestImage, HoldsInitRunnerAndScenario) {
    GuestConfig c;
    c.scenario_text = "[scenario]\n";
    c.params = {"workload.size=\"1GiB\""};
    const std::string a = build_initramfs("BUSYBOX", "RUNNER", c);
    for (const char* s :
         {"init\0", "bin/busybox", "bin/numasim-guest", "oracle/scenario.toml", "oracle/params",
          "dev/console", "BUSYBOX", "RUNNER", "workload.size=\"1GiB\"\n"})
        EXPECT_NE(a.find(s), std::string::npos) << s;
    EXPECT_NE(a.find(std::string(guest_init_script())), std::string::npos);
}

}  // namespace
}  // namespace numasim
