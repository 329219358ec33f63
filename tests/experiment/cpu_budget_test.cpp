// The -j default: the cgroup CPU quota read from hand-written /proc and cgroup files.
#include "experiment/cpu_budget.h"

#include <gtest/gtest.h>

#include <map>

namespace numasim {
namespace {

// A file system of a few files.
ReadFile files(std::map<std::string, std::string> f) {
    return [f](const std::string& path) -> std::optional<std::string> {
        const auto it = f.find(path);
        if (it == f.end()) return std::nullopt;
        return it->second;
    };
}

const std::string kV2Mount =
    "30 25 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 "
    "rw,nsdelegate\n";

TEST(CpuBudget, CgroupV2QuotaRoundsUp) {
    // 150000 us per 100000 us: 1.5 CPUs lets 2 threads run.
    EXPECT_EQ(cgroup_cpu_limit("0::/job\n", kV2Mount,
                               files({{"/sys/fs/cgroup/job/cpu.max", "150000 100000\n"}})),
              2);
    EXPECT_EQ(cgroup_cpu_limit("0::/job\n", kV2Mount,
                               files({{"/sys/fs/cgroup/job/cpu.max", "max 100000\n"}})),
              std::nullopt);
    EXPECT_EQ(cgroup_cpu_limit("0::/\n", kV2Mount, files({})), std::nullopt);
}

TEST(CpuBudget, TheTightestAncestorWins) {
    const auto read = files({{"/sys/fs/cgroup/a/b/cpu.max", "400000 100000"},
                             {"/sys/fs/cgroup/a/cpu.max", "300000 100000"},
                             {"/sys/fs/cgroup/cpu.max", "max 100000"}});
    EXPECT_EQ(cgroup_cpu_limit("0::/a/b\n", kV2Mount, read), 3);
}

TEST(CpuBudget, CgroupV1CfsQuota) {
    const std::string mount =
        "35 25 0:30 / /sys/fs/cgroup/cpu,cpuacct rw,nosuid - cgroup cgroup rw,cpu,cpuacct\n";
    const auto read = files({{"/sys/fs/cgroup/cpu,cpuacct/docker/x/cpu.cfs_quota_us", "250000"},
                             {"/sys/fs/cgroup/cpu,cpuacct/docker/x/cpu.cfs_period_us", "100000"},
                             {"/sys/fs/cgroup/cpu,cpuacct/docker/cpu.cfs_quota_us", "-1"},
                             {"/sys/fs/cgroup/cpu,cpuacct/docker/cpu.cfs_period_us", "100000"}});
    EXPECT_EQ(cgroup_cpu_limit("4:cpu,cpuacct:/docker/x\n", mount, read), 3);
}

TEST(CpuBudget, InsideACgroupNamespaceThePathStartsAtTheMount) {
    // The mount's root is the container's cgroup; /proc/self/cgroup shows "/" inside it.
    const std::string mount = "30 25 0:26 /kubepods/pod1 /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n";
    EXPECT_EQ(
        cgroup_cpu_limit("0::/\n", mount, files({{"/sys/fs/cgroup/cpu.max", "100000 100000"}})), 1);
}

TEST(CpuBudget, ThisProcessHasAtLeastOneCpu) {
    EXPECT_GE(affinity_cpus(), 1);
    EXPECT_GE(available_cpus(), 1);
    EXPECT_LE(available_cpus(), affinity_cpus());
}

}  // namespace
}  // namespace numasim
