// The state of one task_numa_migrate() search (struct task_numa_env, struct numa_stats and
// enum numa_type of kernel/sched/fair.c) and the search steps, exposed for the unit tests.
#pragma once

namespace numasim {

struct System;
struct Task;

// The node's state at the moment of the search.
enum class NumaType {
    HasSpare = 0,   // node_has_spare: capacity left for more tasks
    FullyBusy = 1,  // node_fully_busy: used, but the tasks do not compete for cycles
    Overloaded = 2  // node_overloaded: cannot give every task the cycles it wants
};

// Sums over the CPUs of one node (update_numa_stats).
struct NumaStats {
    unsigned long load = 0;
    unsigned long runnable = 0;
    unsigned long util = 0;
    unsigned long compute_capacity = 0;
    unsigned nr_running = 0;
    unsigned weight = 0;  // CPUs in the node
    NumaType node_type = NumaType::HasSpare;
    int idle_cpu = -1;
};

struct TaskNumaEnv {
    Task* p = nullptr;
    int src_cpu = -1, src_nid = -1;
    int dst_cpu = -1, dst_nid = -1;
    int imb_numa_nr = 0;
    NumaStats src_stats, dst_stats;
    int imbalance_pct = 112;
    int dist = 0;
    Task* best_task = nullptr;
    long best_imp = 0;
    int best_cpu = -1;
    // Simulator: the cache lines the search pulled from the runqueues and tasks it looked at
    // (cost/constants.h), in ns; charged to p as kernel time when the search ends.
    double search_ns = 0;
};

NumaType numa_classify(unsigned imbalance_pct, const NumaStats& ns);
void update_numa_stats(const System& sys, const TaskNumaEnv& env, NumaStats& ns, int nid,
                       bool find_idle);
void task_numa_assign(System& sys, TaskNumaEnv& env, Task* p, long imp);
bool load_too_imbalanced(long src_load, long dst_load, const TaskNumaEnv& env);
// The CPU loop over env.dst_nid (and the move-or-swap decision before it); adds the lines it
// reads to env.search_ns.
void task_numa_find_cpu(System& sys, TaskNumaEnv& env, long taskimp, long groupimp);

// task_numa_compare(), static in migrate_task.cpp, callable from tests.
bool task_numa_compare_for_test(System& sys, TaskNumaEnv& env, long taskimp, long groupimp,
                                bool maymove);

}  // namespace numasim
