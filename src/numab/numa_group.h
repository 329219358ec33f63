// struct numa_group: tasks that share memory pool their fault statistics so that placement
// decisions consider the whole group (kernel/sched/fair.c).
#pragma once

#include <cstdint>
#include <vector>

namespace numasim {

struct NumaGroup {
    int refcount = 1;
    int nr_tasks = 1;
    int gid = 0;         // pid of the task that created the group
    uint64_t order = 0;  // creation order: stands in for the kernel's address tie-break
    int active_nodes = 1;
    unsigned long max_faults_cpu = 0;
    unsigned long total_faults = 0;
    std::vector<unsigned long> faults;  // NUMA_MEM then NUMA_CPU regions: 2 x nodes x 2
};

}  // namespace numasim
