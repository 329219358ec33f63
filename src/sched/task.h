// A task (struct task_struct): scheduling entity, CPU affinity, accounting, and the
// NUMA-balancing fields of include/linux/sched.h under their kernel names. What the task runs
// is a program the engine drives (engine/program.h); the engine keeps its phase and cursors.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "mm/mempolicy.h"
#include "sched/wakee.h"
#include "sim/clock.h"

namespace numasim {

struct AccessMix;
struct Mm;
struct NumaGroup;
struct Region;
class TaskProgram;

enum class TaskState : uint8_t { Running, Runnable, Sleeping, Dead };

inline constexpr int NUMA_NO_NODE = -1;
inline constexpr unsigned long NICE_0_LOAD = 1024;  // scale_load_down(NICE_0_LOAD), nice 0 weight

// struct sched_avg, reduced to what the load balancer and task_h_load read. Values are in the
// kernel's units: load_avg and runnable_avg up to NICE_0_LOAD, util_avg up to 1024.
struct SchedAvg {
    double load_avg = 0;
    double runnable_avg = 0;
    double util_avg = 0;
    double load_sum = 0;  // read by numa_get_avg_runtime() on the first placement
    Nanos last_update_time = 0;
    // The interval of the last update if it left the averages bit for bit as they were (their
    // fixed point for that interval and state), else 0: the same update again changes nothing.
    Nanos settled_delta = 0;
    // What that update decayed towards: whether the task was runnable and running, and its
    // weight. An update with the same interval and these the same is skipped (update_load_avg).
    bool settled_runnable = false, settled_running = false;
    unsigned long settled_weight = 0;
};

struct Task {
    int pid = 0;
    int tgid = 0;
    std::string comm;
    Mm* mm = nullptr;
    int index = 0;  // position in System::tasks (-1: a kernel thread, not in it)
    // A kswapd kernel thread (PF_KTHREAD, no mm) of this node, or -1 for any other task
    // (mm/vmscan.h): the engine runs its reclaim where it runs another task's phases.
    int kswapd_nid = -1;

    // --- scheduling ---
    TaskState state = TaskState::Runnable;
    int cpu = 0;                         // task_cpu(p)
    std::vector<uint64_t> cpus_allowed;  // bitmask words
    int nr_cpus_allowed = 0;
    MemPolicy mempolicy;  // task policy (set_mempolicy)
    bool has_mempolicy = false;
    double vruntime = 0;
    unsigned long weight = NICE_0_LOAD;
    // EEVDF (v6.6+): se->deadline and se->slice of the current request, se->vlag (the lag stored
    // at dequeue, or while running the deadline stashed by RUN_TO_PARITY), and the v6.12 flags.
    double deadline = 0;
    Nanos slice = 0;
    double vlag = 0;
    bool sched_delayed = false;  // asleep but still queued until its negative lag is burnt off
    bool rel_deadline = false;   // deadline held relative to vruntime across a migration
    Nanos sum_exec_runtime = 0;
    Nanos prev_sum_exec_runtime = 0;  // at the last pick, for the slice check
    Nanos exec_start = 0;             // se.exec_start
    SchedAvg avg;
    uint64_t wake_generation = 0;  // invalidates stale wakeup events
    // The clock of the runqueue try_to_wake_up() last queued it on (sched_info's last_queued
    // for a wakeup), -1 before any: the start of its wakeup latency.
    Nanos last_wakeup = -1;
    // The wake-up path (sched/select_task_rq.h): this task as a waker, and p->recent_used_cpu
    // (-1 before any wake-up set it; the kernel copies the parent's at fork).
    WakeeFlips wakee;
    int recent_used_cpu = -1;

    // --- accounting (getrusage, perf stat, /proc/<pid>/sched) ---
    Nanos utime = 0;
    Nanos stime = 0;
    Nanos kernel_debt = 0;  // kernel work done on the task's behalf, charged as it next runs
    Nanos stall_debt = 0;   // user time lost refilling caches after a migration
    // Time asleep on a migration entry (TASK_UNINTERRUPTIBLE), passing without CPU time.
    Nanos blocked_debt = 0;
    uint64_t nvcsw = 0, nivcsw = 0;
    uint64_t nr_migrations = 0;  // se.nr_migrations
    // schedstats of wake_affine(): the wake-ups that asked it, and those it moved to the waker's
    // CPU (se.statistics.nr_wakeups_affine_attempts, nr_wakeups_affine).
    uint64_t nr_wakeups_affine_attempts = 0;
    uint64_t nr_wakeups_affine = 0;
    uint64_t nr_faults = 0;  // page faults (perf "faults")
    Nanos start_time = 0, exit_time = -1;
    std::string proc_sched_at_exit;  // /proc/<pid>/sched NUMA lines read just before exit

    // --- NUMA balancing (include/linux/sched.h) ---
    unsigned numa_scan_period = 0;      // ms
    unsigned numa_scan_period_max = 0;  // ms
    Nanos node_stamp = 0;               // ns of task CPU time
    bool numa_work_pending = false;     // task_numa_work queued (callback_head)
    int numa_scan_seq = 0;
    int numa_preferred_nid = NUMA_NO_NODE;
    int64_t numa_migrate_retry = 0;          // jiffies
    std::vector<unsigned long> numa_faults;  // 4 regions x nodes x 2, empty until first fault
    unsigned long total_numa_faults = 0;
    unsigned long numa_faults_locality[3] = {0, 0, 0};
    unsigned long numa_pages_migrated = 0;
    Nanos last_task_numa_placement = 0;
    Nanos last_sum_exec_runtime = 0;
    NumaGroup* numa_group = nullptr;

    // --- per-task telemetry the kernel keeps only system-wide (samplers read it) ---
    uint64_t numa_hint_faults = 0;        // this task's share of vmstat numa_hint_faults
    uint64_t numa_hint_faults_local = 0;  // ... and of numa_hint_faults_local
    uint64_t numa_task_migrations = 0;    // sched_move_numa and sched_swap_numa it took part in

    // --- what it runs ---
    TaskProgram* program = nullptr;  // driven by the engine
    // What its current phase touches (nullptr between phases), kept by the engine: the narrow
    // view the kernel's cost paths read (the cache refill after a move, waits on migrations).
    const AccessMix* touches = nullptr;
    double total_bytes = 0;  // bytes moved by its phases
    // The bytes its streams loaded and stored, per region, since it started: kept only while
    // `--perf-mem-record` samples them (observe/perf_mem_recorder.h), in the order first met.
    struct RegionTraffic {
        const Region* region = nullptr;
        double loads = 0, stores = 0;
    };
    std::vector<RegionTraffic> traffic;
    double total_ops = 0;  // workload operations completed (Phase::ops_per_byte)
    int workload = -1;     // index of the owning workload instance
    int thread_index = 0;  // index within its workload

    bool allowed(int c) const { return (cpus_allowed[c >> 6] >> (c & 63)) & 1; }
    // The cpumask a task may run on (set_cpus_allowed_ptr()): every CPU of an `nr_cpus` machine,
    // or only `cpus` (within the mask's machine). Neither moves the task.
    void allow_all(int nr_cpus) {
        cpus_allowed.assign(static_cast<size_t>((nr_cpus + 63) / 64), 0);
        for (int c = 0; c < nr_cpus; ++c)
            cpus_allowed[c >> 6] |= uint64_t{1} << (c & 63);
        nr_cpus_allowed = nr_cpus;
    }
    void allow_only(const std::vector<int>& cpus) {
        std::fill(cpus_allowed.begin(), cpus_allowed.end(), 0);
        for (int c : cpus)
            cpus_allowed[c >> 6] |= uint64_t{1} << (c & 63);
        nr_cpus_allowed = static_cast<int>(cpus.size());
    }
    bool exiting() const { return state == TaskState::Dead; }
    bool kthread() const { return kswapd_nid >= 0; }
};

}  // namespace numasim
