// NUMA groups (kernel/sched/fair.c): tasks that take shared faults on each other's pages pool
// their statistics. task_numa_group() creates and joins groups; task_numa_free() leaves at exit.
// Groups are owned by System::numa_groups and freed when their refcount drops to zero.
#include <algorithm>
#include <memory>

#include "numab/internal.h"
#include "sched/rq.h"

namespace numasim {

using namespace numab;

namespace {

// NR_NUMA_HINT_FAULT_STATS * nr_node_ids: the MEM and CPU regions a group keeps.
size_t group_stats_size(const System& sys) {
    return static_cast<size_t>(4 * sys.nr_nodes());
}

void put_numa_group(System& sys, NumaGroup* grp) {
    if (--grp->refcount > 0) return;
    auto& v = sys.numa_groups;
    v.erase(std::remove_if(v.begin(), v.end(),
                           [grp](const std::unique_ptr<NumaGroup>& g) { return g.get() == grp; }),
            v.end());
}

}  // namespace

void task_numa_group(System& sys, Task& p, cpupid_t cpupid, int flags, int* priv) {
    const size_t n = group_stats_size(sys);
    if (!p.numa_group) {
        // Every task that takes a shared fault gets at least a group of its own.
        auto grp = std::make_unique<NumaGroup>();
        grp->refcount = 1;
        grp->nr_tasks = 1;
        grp->gid = p.pid;
        grp->order = sys.next_group_order++;
        grp->active_nodes = 1;
        grp->max_faults_cpu = 0;
        grp->faults.assign(p.numa_faults.begin(), p.numa_faults.begin() + static_cast<long>(n));
        grp->total_faults = p.total_numa_faults;
        p.numa_group = grp.get();
        sys.numa_groups.push_back(std::move(grp));
    }

    // The task running now on the CPU recorded in the tag, if its pid bits still match.
    const int cpu = cpupid_to_cpu(cpupid);
    if (cpu >= sys.nr_cpus()) return;
    Task* tsk = sys.rqs[cpu].curr;
    if (!tsk || !cpupid_match_pid(tsk->pid, cpupid)) return;
    NumaGroup* grp = tsk->numa_group;
    NumaGroup* my_grp = p.numa_group;
    if (!grp || grp == my_grp) return;
    // Only the smaller group joins the bigger; ties go by the kernel's pointer comparison,
    // modelled by creation order.
    if (my_grp->nr_tasks > grp->nr_tasks) return;
    if (my_grp->nr_tasks == grp->nr_tasks && my_grp->order > grp->order) return;

    // Threads of one process always join; other processes only with TNF_SHARED, which filters
    // false matches of the 8-bit pid tag. An unrelated match counts as private.
    const bool join = tsk->mm == p.mm || (flags & TNF_SHARED);
    *priv = !join;
    if (!join) return;

    ++grp->refcount;
    for (size_t i = 0; i < n; ++i) {
        my_grp->faults[i] -= p.numa_faults[i];
        grp->faults[i] += p.numa_faults[i];
    }
    my_grp->total_faults -= p.total_numa_faults;
    grp->total_faults += p.total_numa_faults;
    --my_grp->nr_tasks;
    ++grp->nr_tasks;
    p.numa_group = grp;
    put_numa_group(sys, my_grp);
}

bool task_numa_group_settled(const System& sys, const Task& p, cpupid_t cpupid) {
    // The early returns of task_numa_group, in its order, once p has a group.
    if (!p.numa_group) return false;
    const int cpu = cpupid_to_cpu(cpupid);
    if (cpu >= sys.nr_cpus()) return true;
    const Task* tsk = sys.rqs[cpu].curr;
    if (!tsk || !cpupid_match_pid(tsk->pid, cpupid)) return true;
    const NumaGroup* grp = tsk->numa_group;
    const NumaGroup* my_grp = p.numa_group;
    if (!grp || grp == my_grp) return true;
    if (my_grp->nr_tasks > grp->nr_tasks) return true;
    return my_grp->nr_tasks == grp->nr_tasks && my_grp->order > grp->order;
}

void task_numa_free(System& sys, Task& p) {
    // The exiting task's final free: take its statistics out of the group and drop the arrays.
    if (p.numa_faults.empty()) return;
    if (NumaGroup* grp = p.numa_group) {
        for (size_t i = 0; i < group_stats_size(sys); ++i)
            grp->faults[i] -= p.numa_faults[i];
        grp->total_faults -= p.total_numa_faults;
        --grp->nr_tasks;
        p.numa_group = nullptr;
        put_numa_group(sys, grp);
    }
    p.numa_faults.clear();
    p.numa_faults.shrink_to_fit();
}

}  // namespace numasim
