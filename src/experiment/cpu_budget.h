// How many CPUs this process may really use: the CPUs of its affinity mask
// (sched_getaffinity(2), what taskset, numactl, Slurm and mpirun's binding set), capped by the
// CPU bandwidth quota of its cgroup (cgroup v2 cpu.max, v1 cpu.cfs_quota_us / cpu.cfs_period_us,
// what docker --cpus and Kubernetes CPU limits set), on this cgroup and every ancestor.
// std::thread::hardware_concurrency() counts the machine's CPUs and sees neither.
#pragma once

#include <functional>
#include <optional>
#include <string>

namespace numasim {

// The CPUs in the affinity mask (at least 1).
int affinity_cpus();

// Reads a file's contents; nullopt if it cannot be read.
using ReadFile = std::function<std::optional<std::string>(const std::string& path)>;

// The CPU limit the cgroup quota sets, rounded up (a quota of 1.5 CPUs allows 2 busy
// threads), or nullopt without a quota. `proc_self_cgroup` and `proc_self_mountinfo` are the
// texts of those /proc files; cgroup files are read through `read`.
std::optional<int> cgroup_cpu_limit(const std::string& proc_self_cgroup,
                                    const std::string& proc_self_mountinfo, const ReadFile& read);

// min(affinity_cpus(), the cgroup limit of this process); at least 1.
int available_cpus();

}  // namespace numasim
