#include "sched/reclaim_distance.h"

#include "sched/sched_domain.h"

namespace numasim {

namespace {

constexpr int X86_FAMILY_ZEN12 = 0x17;
constexpr int X86_FAMILY_ZEN34 = 0x19;
constexpr int X86_FAMILY_ZEN5 = 0x1a;
constexpr KernelRelease kZen12Release{5, 4};
constexpr KernelRelease kZen34Release{5, 7};
constexpr KernelRelease kZen5Release{6, 9};

bool zen_sets_distance(const CpuModel& cpu, KernelRelease r) {
    if (cpu.vendor != CpuVendor::kAmd) return false;
    switch (cpu.x86_family) {
        case X86_FAMILY_ZEN12:
            return r >= kZen12Release;
        case X86_FAMILY_ZEN34:
            return r >= kZen34Release;
        case X86_FAMILY_ZEN5:
            return r >= kZen5Release;
        default:
            return false;
    }
}

}  // namespace

int node_reclaim_distance(const CpuModel& cpu, std::optional<KernelRelease> release) {
    if (cpu.arch == CpuArch::kPowerPC) return RECLAIM_DISTANCE_POWERPC;
    if (release && zen_sets_distance(cpu, *release)) return RECLAIM_DISTANCE_AMD_ZEN;
    return RECLAIM_DISTANCE;
}

void apply_node_reclaim_distance(SchedTopology& st, int distance) {
    for (auto& levels : st.domains)
        for (SchedDomain& sd : levels) {
            if (!sd.numa) continue;
            const bool near = sd.numa_distance <= distance;
            sd.balance_fork = near;
            sd.balance_exec = near;
            sd.wake_affine = near;
        }
}

}  // namespace numasim
