// The oracle's initramfs: a static busybox (Debian's busybox-static), the static workload
// runner numasim-guest, the init script (guest/init.sh, compiled into numasim), the scenario
// file with its command-line overrides, and /oracle/env with the knobs for the init to set.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace numasim {

struct GuestConfig {
    int numa_balancing = 1;              // /proc/sys/kernel/numa_balancing
    std::string thp = "madvise";         // /sys/kernel/mm/transparent_hugepage/enabled
    std::string thp_defrag = "madvise";  // /sys/kernel/mm/transparent_hugepage/defrag
    std::vector<std::pair<std::string, unsigned>> knobs;  // debugfs sched/numa_balancing/*
    std::string scenario_text;                            // the scenario file as written
    std::vector<std::string> params;       // "dotted.key=value" overrides, applied by the runner
    std::vector<std::string> runner_args;  // after the scenario path
    // A tiered guest (publish_hmat): the init prints the memory tiers the kernel formed and
    // writes demotion_enabled (/sys/kernel/mm/numa/demotion_enabled).
    bool tiered = false;
    bool demotion_enabled = false;
};

// Where the runner finds its inputs inside the guest.
inline constexpr const char* kGuestScenarioPath = "/oracle/scenario.toml";
inline constexpr const char* kGuestParamsPath = "/oracle/params";

// The shell assignments /oracle/env holds (NUMA_BALANCING, THP, THP_DEFRAG, KNOBS, RUNNER_ARGS;
// for a tiered guest also TIERED and DEMOTION).
std::string guest_env_text(const GuestConfig& c);

// The archive bytes. `busybox` and `runner` are the contents of the two static executables.
std::string build_initramfs(std::string_view busybox, std::string_view runner,
                            const GuestConfig& c);

// True if `elf` is an x86-64 ELF executable without a program interpreter (statically linked).
bool is_static_x86_64_elf(std::string_view elf);

// The init script compiled into numasim (src/oracle/guest/init.sh).
std::string_view guest_init_script();

}  // namespace numasim
