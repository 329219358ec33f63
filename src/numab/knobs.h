// NUMA-balancing knobs and the seed postings' changes as switches.
//
// The first block are the kernel's own knobs with their names and defaults
// (/proc/sys/kernel/numa_balancing and debugfs sched/numa_balancing/*). The second block are the
// behaviours that differ between kernel releases or that one of the seed postings changed; a
// kernel profile (numab/profiles/*.toml) sets them together, and a scenario or the command line
// may override any one. docs/policies.md documents each with its origin.
#pragma once

#include <string>

namespace numasim {

// /proc/sys/kernel/numa_balancing bits (include/linux/sched/sysctl.h).
inline constexpr int NUMA_BALANCING_DISABLED = 0x0;
inline constexpr int NUMA_BALANCING_NORMAL = 0x1;
inline constexpr int NUMA_BALANCING_MEMORY_TIERING = 0x2;

// Which VMAs task_numa_work() may scan (switch (c)).
enum class VmaScanSelection {
    All,               // before per-VMA pid tracking (<= v6.3)
    PidsActive,        // v6.6: skip VMAs whose pids_active lacks the current task
    PidsActiveForced,  // v6.7+: also finish partial VMAs and force one inactive VMA
    FourPass,          // experimental: task-active, multi-task, any-task, then inactive
};

// What counts as a "shared" COW folio in change_pte_range().
enum class CowSharedTest { Mapcount, Refcount, LikelyMappedShared };

// How the NUMA imbalance allowance is computed in the load balancer and task_numa_find_cpu.
enum class NumaImbalance {
    None,          // before v5.6: no allowance, task_numa_find_cpu compares loads only
    ImbalancePct,  // first posting (2019-12-18): threshold from imbalance_pct, balancer only
    BusiestMin,    // v5.6, b396f52326de: busiest group with <= 2 tasks, balancer only
    SrcMin,        // v5.7, fb86f5b21192: adjust_numa_imbalance(imb, src_nr_running)
    Fixed,         // v5.7-v5.17: allow NUMA_IMBALANCE_MIN running tasks
    ImbNumaNr,     // v5.18+: sd->imb_numa_nr from the LLC count
};

// The fair class's policy (docs/policies.md, "Scheduler"): CFS up to v6.5, the EEVDF merge of
// v6.6 (147f3efaa241 and its series), and v6.12's "Complete EEVDF" series (delayed dequeue,
// DELAY_ZERO, PLACE_REL_DEADLINE, new tasks placed at their first enqueue). sched/features.h
// decodes it into the kernel's feature flags.
enum class SchedClass { Cfs, Eevdf, EevdfComplete };

struct NumaBalancingKnobs {
    // --- kernel knobs ---
    int numa_balancing = NUMA_BALANCING_NORMAL;  // sysctl kernel.numa_balancing
    unsigned scan_delay_ms = 1000;               // debugfs sched/numa_balancing/scan_delay_ms
    unsigned scan_period_min_ms = 1000;          // .../scan_period_min_ms
    unsigned scan_period_max_ms = 60000;         // .../scan_period_max_ms
    unsigned scan_size_mb = 256;                 // .../scan_size_mb
    unsigned hot_threshold_ms = 1000;            // .../hot_threshold_ms (tiering mode only)

    // --- seed switches ---
    int smallimp = 30;            // (a) SMALLIMP; 0 restores the code before 6fd98e775f24 (v4.19)
    bool skip_shared_cow = true;  // (b) change_prot_numa skips shared COW folios (v4.16+)
    VmaScanSelection vma_scan = VmaScanSelection::PidsActiveForced;  // (c)
    int pids_active_bits = 64;    // (d) 64 (BITS_PER_LONG) or 128
    bool idle_early_stop = true;  // (e) stop task_numa_find_cpu at an idle CPU (v4.19+)

    // --- release differences (numa-balancing reference, section 12) ---
    bool per_vma_start_scan_seq = true;  // v6.8: first two passes counted per VMA
    bool starvation_guard = true;        // v6.12: f22cde4371f3, scan_seq > prev + nr_threads
    bool pid_reset_before_check = true;  // v6.7+: age pids_active before the access test
    CowSharedTest cow_shared_test = CowSharedTest::LikelyMappedShared;  // v6.10+
    bool thp_sets_tnf_shared = true;  // v6.12: huge PMD faults may set TNF_SHARED
    bool thp_mapcount_check = false;  // v6.6 and before: refuse to migrate a multiply mapped THP
    bool numa_classify = true;        // v5.7+: task_numa_find_cpu classifies nodes
    NumaImbalance numa_imbalance = NumaImbalance::ImbNumaNr;

    // --- scheduler history (docs/policies.md, "Scheduler and load-balancer history") ---
    SchedClass sched_class = SchedClass::EevdfComplete;
    bool lb_rework = true;  // v5.5, 0b0695f2b34a: group_type classes and migration_type
    // The scheduler side of NUMA balancing as it arrived for v3.13 (and v3.14), each part off
    // separately; all off is the v3.8 state: scanning and page migration only.
    bool numa_preferred_nid = true;  // task_numa_placement picks a preferred node
    bool numa_task_migrate = true;   // task_numa_migrate moves and swaps tasks toward it
    bool numa_groups = true;         // task_numa_group pools shared faults
    bool numa_scan_adapt = true;     // update_task_scan_period adapts the scan period

    bool enabled() const { return numa_balancing != NUMA_BALANCING_DISABLED; }
    bool normal_mode() const { return numa_balancing & NUMA_BALANCING_NORMAL; }
    bool tiering_mode() const { return numa_balancing & NUMA_BALANCING_MEMORY_TIERING; }
};

std::string to_string(VmaScanSelection v);
bool parse_vma_scan_selection(const std::string& s, VmaScanSelection& out);
std::string to_string(CowSharedTest v);
bool parse_cow_shared_test(const std::string& s, CowSharedTest& out);
std::string to_string(NumaImbalance v);
bool parse_numa_imbalance(const std::string& s, NumaImbalance& out);
std::string to_string(SchedClass v);
bool parse_sched_class(const std::string& s, SchedClass& out);

}  // namespace numasim
