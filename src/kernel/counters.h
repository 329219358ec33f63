// The counters a run reports, under the names /proc/vmstat, perf stat and the sched tracepoints
// use. Each is incremented at the point where the kernel increments its own.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

namespace numasim {

// clang-format off
#define NUMASIM_VMSTAT_ITEMS(X) \
    X(numa_pte_updates) \
    X(numa_huge_pte_updates) \
    X(numa_hint_faults) \
    X(numa_hint_faults_local) \
    X(numa_pages_migrated) \
    X(numa_hit) \
    X(numa_miss) \
    X(numa_foreign) \
    X(numa_interleave) \
    X(numa_local) \
    X(numa_other) \
    X(pgmigrate_success) \
    X(pgmigrate_fail) \
    X(thp_migration_success) \
    X(thp_migration_fail) \
    X(thp_migration_split) \
    X(pgfault) \
    X(thp_fault_alloc) \
    X(pgalloc) \
    X(pgfree)
// clang-format on

enum class Vm : int {
#define X(n) n,
    NUMASIM_VMSTAT_ITEMS(X)
#undef X
        NR
};

inline constexpr std::array<std::string_view, static_cast<size_t>(Vm::NR)> kVmNames = {
#define X(n) #n,
    NUMASIM_VMSTAT_ITEMS(X)
#undef X
};

// The counters as /proc/vmstat lists them: in the order of mm/vmstat.c's vmstat_text (the NUMA
// event counters after the zone counters, then the vm events), under the kernel's names. Every
// simulated page lives in ZONE_NORMAL, so the allocation count is pgalloc_normal.
inline constexpr std::array<std::pair<std::string_view, Vm>, static_cast<size_t>(Vm::NR)>
    kProcVmstatOrder = {{{"numa_hit", Vm::numa_hit},
                         {"numa_miss", Vm::numa_miss},
                         {"numa_foreign", Vm::numa_foreign},
                         {"numa_interleave", Vm::numa_interleave},
                         {"numa_local", Vm::numa_local},
                         {"numa_other", Vm::numa_other},
                         {"pgalloc_normal", Vm::pgalloc},
                         {"pgfree", Vm::pgfree},
                         {"pgfault", Vm::pgfault},
                         {"numa_pte_updates", Vm::numa_pte_updates},
                         {"numa_huge_pte_updates", Vm::numa_huge_pte_updates},
                         {"numa_hint_faults", Vm::numa_hint_faults},
                         {"numa_hint_faults_local", Vm::numa_hint_faults_local},
                         {"numa_pages_migrated", Vm::numa_pages_migrated},
                         {"pgmigrate_success", Vm::pgmigrate_success},
                         {"pgmigrate_fail", Vm::pgmigrate_fail},
                         {"thp_migration_success", Vm::thp_migration_success},
                         {"thp_migration_fail", Vm::thp_migration_fail},
                         {"thp_migration_split", Vm::thp_migration_split},
                         {"thp_fault_alloc", Vm::thp_fault_alloc}}};

// Reasons of the sched_skip_vma_numa tracepoint (include/trace/events/sched.h, v6.7+).
enum class SkipVmaReason : int {
    Unsuitable,
    SharedRo,
    Inaccessible,
    ScanDelay,
    PidInactive,
    IgnorePidInactive,
    SeqCompleted,
    NR
};
inline constexpr std::array<std::string_view, static_cast<size_t>(SkipVmaReason::NR)>
    kSkipVmaNames = {"unsuitable",   "shared_ro",           "inaccessible", "scan_delay",
                     "pid_inactive", "ignore_pid_inactive", "seq_completed"};

struct Counters {
    std::array<uint64_t, static_cast<size_t>(Vm::NR)> vm{};
    // perf stat / sched tracepoint counts.
    uint64_t cs = 0;          // context switches
    uint64_t migrations = 0;  // cpu-migrations (set_task_cpu to another CPU)
    uint64_t sched_move_numa = 0;
    uint64_t sched_swap_numa = 0;
    uint64_t sched_stick_numa = 0;
    // sched_swap_numa events between two CPUs of one node, and between two tasks of one numa
    // group: the "NUMA local swapped" and "NUMA group swapped" of 286549dc (v3.14), which added
    // the three NUMA tracepoints.
    uint64_t sched_swap_numa_local = 0;
    uint64_t sched_swap_numa_group = 0;
    uint64_t mm_migrate_pages = 0;  // migrate:mm_migrate_pages events (one per migrate_pages())
    uint64_t llc_misses = 0;        // perf cache-misses: lines the cost model sent to DRAM
    std::array<uint64_t, static_cast<size_t>(SkipVmaReason::NR)> sched_skip_vma_numa{};
    // pids_active hash telemetry (switch (d)): samples of distinct pids sharing a bit.
    uint64_t pids_active_samples = 0;
    uint64_t pids_active_pids = 0;
    uint64_t pids_active_colliding_pids = 0;

    // Memory tiering's node stats (enum node_stat_item, v5.18 and v6.0), by node: base pages
    // promoted from a slower tier by NUMA balancing to the node, and pages of slow-tier folios
    // that passed the hot-threshold test toward it (numa_promotion_rate_limit). Sized to the
    // machine's nodes by System.
    std::vector<uint64_t> pgpromote_success, pgpromote_candidate;
    // The machine has a slower memory tier under the profile's kernel, so promotion can happen:
    // the run reports list the promotion counters (on other machines they stay 0).
    bool promotion_possible = false;
    // numasim's count of wakeup_kswapd() calls by promotion: a migration in tiering mode found
    // its target at its high watermark and asked the node's kswapd to demote (src/mm/vmscan.h).
    // The kernel counts none; its mm_vmscan_wakeup_kswapd tracepoint fires only for the calls
    // that find kswapd asleep, so fewer.
    uint64_t wakeup_kswapd_calls = 0;

    // Reclaim (mm/vmscan.h), counted only with demotion_enabled (without it nothing is
    // reclaimable: the model has no swap and keeps file pages), and listed then. Under the
    // kernel's vm event names; pgsteal_* count demoted pages too, as shrink_folio_list's
    // nr_reclaimed does.
    bool reclaim_reported = false;
    uint64_t pgactivate = 0, pgdeactivate = 0, pgrefill = 0;
    uint64_t pgsteal_kswapd = 0, pgsteal_direct = 0, pgsteal_khugepaged = 0;
    uint64_t pgdemote_kswapd = 0, pgdemote_direct = 0, pgdemote_khugepaged = 0;
    uint64_t pgscan_kswapd = 0, pgscan_direct = 0, pgscan_khugepaged = 0;
    uint64_t pgscan_anon = 0, pgsteal_anon = 0;
    // Events of the mm_vmscan_* tracepoints, counted: a sleeping kswapd woken
    // (mm_vmscan_wakeup_kswapd), kswapd runs (mm_vmscan_kswapd_wake) and direct reclaims
    // (mm_vmscan_direct_reclaim_begin).
    uint64_t mm_vmscan_wakeup_kswapd = 0, mm_vmscan_kswapd_wake = 0,
             mm_vmscan_direct_reclaim_begin = 0;
    // ... and kswapd going to sleep, direct reclaims' ends, and the passes over the inactive
    // (that isolated something) and active lists.
    uint64_t mm_vmscan_kswapd_sleep = 0, mm_vmscan_direct_reclaim_end = 0,
             mm_vmscan_lru_shrink_inactive = 0, mm_vmscan_lru_shrink_active = 0;
    // Kernel time of direct reclaim, charged to the allocating tasks (ns).
    uint64_t direct_reclaim_ns = 0;
    // CPU time of each node's kswapd thread (kswapdN), by node (ns): its system time, the stime
    // of its /proc/PID/stat (a kernel thread has no user time). Sized to the machine's nodes.
    std::vector<uint64_t> kswapd_stime_ns;
    // Allocations that found no page on any node they may use, even after direct reclaim: where
    // the kernel calls out_of_memory() (oom_kill counts the kills). The model kills nothing:
    // the fault is retried later; the run reports say the machine ran out of memory.
    uint64_t oom_alloc_failures = 0;
    // THP faults that found no huge page and fell back to a base page (thp_fault_fallback, a vm
    // event of /proc/vmstat after thp_fault_alloc). Listed once a run has one, so that runs
    // without one read as before it was counted. thp_fault_fallback_charge (a memcg charge
    // that failed) has no counterpart: the model has no memory cgroups.
    uint64_t thp_fault_fallback = 0;

    // pghot (mm/pghot.h), counted and listed only with the pghot knob in tiering mode, under
    // the series' vm event names; pgpromote_candidate_nrl, the candidates promoted while the
    // target had plenty of free memory (not rate limited), is a node stat there, kept summed.
    bool pghot_reported = false;
    uint64_t pghot_recorded_accesses = 0, pghot_recorded_hintfaults = 0, pghot_recorded_hwhints = 0,
             pgpromote_candidate_nrl = 0;

    uint64_t& operator[](Vm v) { return vm[static_cast<size_t>(v)]; }
    uint64_t operator[](Vm v) const { return vm[static_cast<size_t>(v)]; }
};

// The node stats numasim keeps, by their /proc/vmstat names, in the kernel's order.
inline constexpr std::array<std::pair<std::string_view, std::vector<uint64_t> Counters::*>, 2>
    kNodeStats = {{{"pgpromote_success", &Counters::pgpromote_success},
                   {"pgpromote_candidate", &Counters::pgpromote_candidate}}};

// The sum of a node stat over the nodes, as /proc/vmstat prints it.
inline uint64_t node_stat_total(const std::vector<uint64_t>& per_node) {
    uint64_t s = 0;
    for (uint64_t v : per_node)
        s += v;
    return s;
}

// pghot's counters (listed when Counters::pghot_reported), under their /proc/vmstat names.
inline constexpr std::array<std::pair<std::string_view, uint64_t Counters::*>, 4> kPghotCounters = {
    {{"pgpromote_candidate_nrl", &Counters::pgpromote_candidate_nrl},
     {"pghot_recorded_accesses", &Counters::pghot_recorded_accesses},
     {"pghot_recorded_hintfaults", &Counters::pghot_recorded_hintfaults},
     {"pghot_recorded_hwhints", &Counters::pghot_recorded_hwhints}}};

// The reclaim counters (listed when Counters::reclaim_reported), under their /proc/vmstat names,
// in mm/vmstat.c's vmstat_text order: pgactivate and pgdeactivate follow pgfree, the others
// pgfault (pgdemote_* are node stats from v6.11, after pgpromote_candidate: report/proc_vmstat).
inline constexpr std::array<std::pair<std::string_view, uint64_t Counters::*>, 14>
    kReclaimCounters = {{{"pgactivate", &Counters::pgactivate},
                         {"pgdeactivate", &Counters::pgdeactivate},
                         {"pgrefill", &Counters::pgrefill},
                         {"pgsteal_kswapd", &Counters::pgsteal_kswapd},
                         {"pgsteal_direct", &Counters::pgsteal_direct},
                         {"pgsteal_khugepaged", &Counters::pgsteal_khugepaged},
                         {"pgdemote_kswapd", &Counters::pgdemote_kswapd},
                         {"pgdemote_direct", &Counters::pgdemote_direct},
                         {"pgdemote_khugepaged", &Counters::pgdemote_khugepaged},
                         {"pgscan_kswapd", &Counters::pgscan_kswapd},
                         {"pgscan_direct", &Counters::pgscan_direct},
                         {"pgscan_khugepaged", &Counters::pgscan_khugepaged},
                         {"pgscan_anon", &Counters::pgscan_anon},
                         {"pgsteal_anon", &Counters::pgsteal_anon}}};
// numasim's reclaim event counts beside them (the tracepoints' events, and the allocations that
// ran out of memory).
inline constexpr std::array<std::pair<std::string_view, uint64_t Counters::*>, 9> kReclaimEvents = {
    {{"mm_vmscan_wakeup_kswapd", &Counters::mm_vmscan_wakeup_kswapd},
     {"mm_vmscan_kswapd_wake", &Counters::mm_vmscan_kswapd_wake},
     {"mm_vmscan_kswapd_sleep", &Counters::mm_vmscan_kswapd_sleep},
     {"mm_vmscan_direct_reclaim_begin", &Counters::mm_vmscan_direct_reclaim_begin},
     {"mm_vmscan_direct_reclaim_end", &Counters::mm_vmscan_direct_reclaim_end},
     {"mm_vmscan_lru_shrink_inactive", &Counters::mm_vmscan_lru_shrink_inactive},
     {"mm_vmscan_lru_shrink_active", &Counters::mm_vmscan_lru_shrink_active},
     {"direct_reclaim_ns", &Counters::direct_reclaim_ns},
     {"oom_alloc_failures", &Counters::oom_alloc_failures}}};

// The scheduler counters a run reports under "sched", by name, in report order.
inline constexpr std::array<std::pair<std::string_view, uint64_t Counters::*>, 6> kSchedCounters = {
    {{"cs", &Counters::cs},
     {"migrations", &Counters::migrations},
     {"sched_move_numa", &Counters::sched_move_numa},
     {"sched_swap_numa", &Counters::sched_swap_numa},
     {"sched_stick_numa", &Counters::sched_stick_numa},
     {"mm_migrate_pages", &Counters::mm_migrate_pages}}};

}  // namespace numasim
