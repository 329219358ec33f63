// node_reclaim_distance: the SLIT distance beyond which sd_init() takes SD_BALANCE_FORK,
// SD_BALANCE_EXEC and SD_WAKE_AFFINE off a NUMA scheduling domain, so that forks, execs and
// affine wake-ups stay within nearer nodes. Its value depends on the architecture, the CPU and
// the kernel release, which is why the domains get their flags once the profile is known.
#pragma once

#include <optional>

#include "kernel/release.h"
#include "machine/cpu_model.h"

namespace numasim {

struct SchedTopology;

// include/linux/topology.h: RECLAIM_DISTANCE, what every architecture but powerpc uses.
inline constexpr int RECLAIM_DISTANCE = 30;
// arch/powerpc/include/asm/topology.h defines RECLAIM_DISTANCE as 10, in every release the
// profiles run, so that no NUMA level of a POWER machine balances forks or wakes affine.
inline constexpr int RECLAIM_DISTANCE_POWERPC = 10;
// arch/x86/kernel/cpu/amd.c sets node_reclaim_distance to 32 on AMD Zen parts (init_amd_zn(),
// later init_amd_zen_common()), so that the 32 AMD 2P BIOSes publish between sockets keeps those
// flags.
inline constexpr int RECLAIM_DISTANCE_AMD_ZEN = 32;

// The value the booted kernel has. `release` nullopt: before any profile is known, the
// architecture's RECLAIM_DISTANCE.
//   Zen 1/2, family 17h: from v5.4, a55c7454a8c8 ("sched/topology: Improve load balancing on AMD
//     EPYC systems"), which made the distance a variable;
//   Zen 3/4, family 19h: from v5.7, 753039ef8b2f ("x86/cpu/amd: Call init_amd_zn() om Family
//     19h processors too");
//   Zen 5, family 1Ah: from v6.9, 3e4147f33f8b ("x86/CPU/AMD: Add X86_FEATURE_ZEN5"), with its
//     model ranges (Turin's 0x02 and 0x11 among them) completed before that release.
int node_reclaim_distance(const CpuModel& cpu, std::optional<KernelRelease> release);

// sd_init()'s NUMA branch: a NUMA level whose distance exceeds `distance` loses
// SD_BALANCE_FORK, SD_BALANCE_EXEC and SD_WAKE_AFFINE; the others keep them.
void apply_node_reclaim_distance(SchedTopology& st, int distance);

}  // namespace numasim
