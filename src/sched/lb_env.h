// What one load_balance() pass works with (struct sg_lb_stats and struct lb_env of
// kernel/sched/fair.c), shared by the balancer of v5.5 and later (load_balance.cpp) and the one
// it replaced (load_balance_v54.cpp).
#pragma once

#include <vector>

#include "numab/numab.h"
#include "sched/load_balance.h"

namespace numasim {

struct System;
struct SchedDomain;

struct SgStats {
    const std::vector<int>* cpus = nullptr;
    unsigned long load = 0, util = 0, runnable = 0, capacity = 0;
    unsigned sum_nr_running = 0, idle_cpus = 0, weight = 0;
    unsigned nr_numa_running = 0, nr_preferred_running = 0;
    double avg_load = 0;
    GroupType type = GroupType::HasSpare;  // the v5.7+ classification
    bool local = false;
};

// enum migration_type (v5.5); LoadV54 is the balancer before it, which always moved load and
// took a task unless half its load exceeded what was left to move.
enum class MigrationType { Load, Util, Task, LoadV54 };

struct LbEnv {
    int dst_cpu;
    const SchedDomain* sd;
    CpuIdleType idle;
    MigrationType type = MigrationType::Load;
    long imbalance = 0;
    FbqType fbq = FbqType::All;
};

// update_sg_lb_stats() over group `g` of `sd`, its sums from System::sg_cache while that is on.
SgStats group_stats(System& sys, const SchedDomain& sd, size_t g);

// find_busiest_group() + calculate_imbalance() + fix_small_imbalance() as they were before
// 0b0695f2b34a (v5.5). `groups` receives the statistics of the domain's groups.
const SgStats* find_busiest_group_v54(System& sys, LbEnv& env, std::vector<SgStats>& groups);

}  // namespace numasim
