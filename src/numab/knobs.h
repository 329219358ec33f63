// NUMA-balancing knobs and the seed postings' changes as switches, declared once.
//
// Every knob is one row of NUMASIM_KNOBS below: its type, name, default, valid values, the kernel
// change it stands for and what it does. The struct NumaBalancingKnobs, the reader of
// `[numa_balancing]` tables and overrides, the valid-value messages, `numasim profiles show`
// and the check that docs/policies.md lists every knob all come from that table.
//
// The first rows are the kernel's own knobs with their names and defaults
// (/proc/sys/kernel/numa_balancing and debugfs sched/numa_balancing/*). The others are the
// behaviours that differ between kernel releases or that one of the seed postings changed; a
// kernel profile (numab/profiles/*.toml) sets them together, and a scenario or the command line
// may override any one. docs/policies.md documents each.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "mm/huge_memory.h"
#include "mm/pghot_record.h"
#include "mm/watermarks.h"

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

// How NUMA groups may stay imbalanced (adjust_numa_imbalance and its callers); decoded only in
// sched/numa_imbalance.cpp.
enum class NumaImbalance {
    None,          // before v5.6: no allowance, task_numa_find_cpu compares loads only
    ImbalancePct,  // first posting (2019-12-18): threshold from imbalance_pct, balancer only
    BusiestMin,    // v5.6, b396f52326de: busiest group with <= 2 tasks, balancer only
    SrcMin,        // v5.7, fb86f5b21192: adjust_numa_imbalance(imb, src_nr_running)
    Fixed,         // v5.10: NUMA_IMBALANCE_MIN running tasks at the destination
    ImbNumaNr,     // v5.18+: sd->imb_numa_nr from the LLC count
};

// The fair class's policy (docs/policies.md, "Scheduler"): CFS up to v6.5, the EEVDF merge of
// v6.6 (147f3efaa241 and its series), and v6.12's "Complete EEVDF" series (delayed dequeue,
// DELAY_ZERO, PLACE_REL_DEADLINE, new tasks placed at their first enqueue). sched/features.h
// decodes it into the kernel's feature flags.
enum class SchedClass { Cfs, Eevdf, EevdfComplete };

// The names of an enum knob's values, by value.
constexpr std::array<std::string_view, 4> knob_value_names(VmaScanSelection) {
    return {"all", "pids_active", "pids_active_forced", "four_pass"};
}
constexpr std::array<std::string_view, 3> knob_value_names(CowSharedTest) {
    return {"mapcount", "refcount", "likely_mapped_shared"};
}
constexpr std::array<std::string_view, 6> knob_value_names(NumaImbalance) {
    return {"none", "imbalance_pct", "busiest_min", "src_min", "fixed", "imb_numa_nr"};
}
constexpr std::array<std::string_view, 3> knob_value_names(SchedClass) {
    return {"cfs", "eevdf", "eevdf_complete"};
}
// As the sysfs files take them (mm/huge_memory.c).
constexpr std::array<std::string_view, 3> knob_value_names(ThpEnabled) {
    return {"always", "madvise", "never"};
}
constexpr std::array<std::string_view, 5> knob_value_names(ThpDefrag) {
    return {"always", "defer", "defer+madvise", "madvise", "never"};
}

// Upper bounds that keep the arithmetic of the scan code in range; the kernel itself takes any
// unsigned int for the debugfs knobs.
inline constexpr int64_t KNOB_MAX_MS = 3600 * 1000;        // one hour
inline constexpr int64_t KNOB_MAX_SCAN_SIZE_MB = 1 << 20;  // 1 TiB per window
inline constexpr int64_t KNOB_MAX_SMALLIMP = 1998;         // the largest importance (2 x 999)
inline constexpr int64_t KNOB_MAX_PAGEVEC = 255;           // folio_batch::nr is an unsigned char
inline constexpr int64_t KNOB_MAX_BATCH_NR = 1 << 20;      // an unsigned int in the kernel
// The rate limit in pages (MBps << (20 - PAGE_SHIFT)) stays well inside 64 bits; 2^31 MB/s is far
// above any memory's bandwidth.
inline constexpr int64_t KNOB_MAX_PROMOTE_RATE_LIMIT_MBPS = int64_t{1} << 31;

// The valid values of a knob: a range of integers, true/false, named values, or a short list.
struct KnobDomain {
    enum Kind { Integer, Bool, Enum, OneOf } kind = Integer;
    int64_t lo = 0, hi = 0;
    std::span<const std::string_view> names;  // Enum: the value names, by value
    std::span<const int64_t> one_of;          // OneOf: the allowed integers
};
constexpr KnobDomain knob_range(int64_t lo, int64_t hi) {
    return {KnobDomain::Integer, lo, hi, {}, {}};
}
constexpr KnobDomain knob_bool() {
    return {KnobDomain::Bool, 0, 1, {}, {}};
}
template <typename E>
inline constexpr auto knob_names_of = knob_value_names(E{});
// The name of an enum knob's value, e.g. knob_name(SchedClass::Cfs) == "cfs".
template <typename E>
constexpr std::string_view knob_name(E v) {
    return knob_names_of<E>[static_cast<size_t>(v)];
}
template <typename E>
constexpr KnobDomain knob_enum() {
    return {KnobDomain::Enum,
            0,
            static_cast<int64_t>(knob_names_of<E>.size()) - 1,
            knob_names_of<E>,
            {}};
}
template <int64_t... V>
inline constexpr std::array<int64_t, sizeof...(V)> knob_values_of = {V...};
template <int64_t... V>
constexpr KnobDomain knob_one_of() {
    return {KnobDomain::OneOf, std::min({V...}), std::max({V...}), {}, knob_values_of<V...>};
}

// X(type, name, default, valid values, kernel change, what it does)
// clang-format off
#define NUMASIM_KNOBS(X)                                                                          \
    X(int, numa_balancing, NUMA_BALANCING_NORMAL, knob_range(0, 3),                               \
      "v3.8 (Mel Gorman's automatic NUMA balancing); bit 1 v5.18 (c574bbe91703)",                 \
      "sysctl kernel.numa_balancing: bit 0 NORMAL, bit 1 MEMORY_TIERING")                         \
    X(unsigned, scan_delay_ms, 1000, knob_range(0, KNOB_MAX_MS),                                  \
      "v3.8; debugfs since v5.13",                                                                \
      "delay before a new address space is first scanned")                                        \
    X(unsigned, scan_period_min_ms, 1000, knob_range(1, KNOB_MAX_MS),                             \
      "v3.8; debugfs since v5.13",                                                                \
      "shortest scan period of a task")                                                           \
    X(unsigned, scan_period_max_ms, 60000, knob_range(1, KNOB_MAX_MS),                            \
      "v3.8; debugfs since v5.13",                                                                \
      "longest scan period of a task (at least scan_period_min_ms)")                              \
    X(unsigned, scan_size_mb, 256, knob_range(1, KNOB_MAX_SCAN_SIZE_MB),                          \
      "v3.8; debugfs since v5.13",                                                                \
      "address space made PROT_NONE per scan window")                                             \
    X(unsigned, numa_balancing_hot_threshold_ms, 1000, knob_range(1, KNOB_MAX_MS),                \
      "v6.0 (hot page selection series); debugfs hot_threshold_ms",                                            \
      "tiering: a slow-tier page faulting this soon after its scan is hot")                       \
    X(unsigned, numa_balancing_promote_rate_limit_MBps, 65536,                                    \
      knob_range(0, KNOB_MAX_PROMOTE_RATE_LIMIT_MBPS),                                            \
      "v6.0 (hot page selection series); sysctl ..._promote_rate_limit_MBps",                \
      "tiering: promotion candidates a target node takes per second, in MB")                      \
    X(bool, demotion_enabled, false, knob_bool(),                                                 \
      "v5.15 (20b51af15e01); /sys/kernel/mm/numa/demotion_enabled",                               \
      "tiering: reclaim moves cold anon pages to the next memory tier (docs/tiering.md)")         \
    X(unsigned, watermark_scale_factor, WATERMARK_SCALE_FACTOR, knob_range(1, 3000),              \
      "v4.6 (795ae7a0de6b); sysctl vm.watermark_scale_factor, at most 3000",                      \
      "gap between a node's min, low, high and promo watermarks, in 1/10000 of its memory")       \
    X(ThpEnabled, transparent_hugepage_enabled, ThpEnabled::Madvise, knob_enum<ThpEnabled>(),     \
      "v2.6.38; /sys/kernel/mm/transparent_hugepage/enabled",                                     \
      "which anonymous VMAs take THPs at a fault: all, the madvised ones, none")                  \
    X(ThpDefrag, transparent_hugepage_defrag, ThpDefrag::Madvise, knob_enum<ThpDefrag>(),         \
      "v4.6 (default madvise; defer); v4.11 defer+madvise; sysfs transparent_hugepage/defrag",    \
      "whether a THP fault reclaims directly or wakes kswapd, for madvised VMAs and others")      \
    X(int, smallimp, 30, knob_range(0, KNOB_MAX_SMALLIMP),                                        \
      "v4.19 (6fd98e775f24, seed 000)",                                                           \
      "SMALLIMP threshold of task_numa_compare; 0 = the code before it")                          \
    X(bool, skip_shared_cow, true, knob_bool(),                                                   \
      "v4.16 (859d4adc3415, seed 004)",                                                           \
      "change_prot_numa leaves shared copy-on-write pages alone")                                 \
    X(VmaScanSelection, vma_scan, VmaScanSelection::PidsActiveForced, knob_enum<VmaScanSelection>(), \
      "v6.4 (fc137c0ddab2); v6.7 (f169c62ff7cd, seed 002)",                                       \
      "which VMAs task_numa_work scans")                                                          \
    X(int, pids_active_bits, 64, (knob_one_of<64, 128>()),                                        \
      "none: seed 002's question (the kernel uses BITS_PER_LONG)",                                \
      "bits of the per-VMA pids_active hash")                                                     \
    X(bool, idle_early_stop, true, knob_bool(),                                                   \
      "v4.19 (seed 003)",                                                                         \
      "task_numa_find_cpu stops at an idle destination")                                          \
    X(bool, per_vma_start_scan_seq, true, knob_bool(),                                            \
      "v6.8 (84db47ca7146)",                                                                      \
      "the two unconditional passes count from the VMA's own first pass")                         \
    X(bool, starvation_guard, true, knob_bool(),                                                  \
      "v6.12 (f22cde4371f3)",                                                                     \
      "scan a VMA anyway when numa_scan_seq > prev_scan_seq + nr_threads")                        \
    X(bool, pid_reset_before_check, true, knob_bool(),                                            \
      "v6.7 (\"sched/numa: Move up the access pid reset logic\")",                                \
      "age pids_active before the access test")                                                   \
    X(CowSharedTest, cow_shared_test, CowSharedTest::LikelyMappedShared, knob_enum<CowSharedTest>(), \
      "v4.16 mapcount; 2022 refcount; v6.10 likely mapped shared",                                \
      "what counts as a shared copy-on-write folio")                                              \
    X(bool, thp_sets_tnf_shared, true, knob_bool(),                                               \
      "v6.12",                                                                                    \
      "huge PMD faults may set TNF_SHARED")                                                       \
    X(bool, thp_mapcount_check, false, knob_bool(),                                               \
      "dropped around v6.7",                                                                      \
      "refuse to migrate a THP mapped by more than one process")                                  \
    X(bool, numa_classify, true, knob_bool(),                                                     \
      "v5.7 (fb86f5b21192)",                                                                      \
      "task_numa_find_cpu classifies nodes as the load balancer does")                            \
    X(NumaImbalance, numa_imbalance, NumaImbalance::ImbNumaNr, knob_enum<NumaImbalance>(),        \
      "v5.6 (b396f52326de); v5.7 (fb86f5b21192); v5.10 (233e7aca4c8a); v5.18 (e496132ebedd)",     \
      "how far NUMA groups may stay imbalanced")                                                  \
    X(SchedClass, sched_class, SchedClass::EevdfComplete, knob_enum<SchedClass>(),                \
      "v6.6 EEVDF (147f3efaa241); v6.12 complete EEVDF",                                          \
      "the fair class's policy")                                                                  \
    X(bool, lb_rework, true, knob_bool(),                                                         \
      "v5.5 (0b0695f2b34a)",                                                                      \
      "the load balancer's group_type classes and migration_type; false = the one before")        \
    X(bool, wake_affine_prev_idle, true, knob_bool(),                                             \
      "v5.10 (d8fcb81f1acf)",                                                                     \
      "wake_affine_idle keeps a wakee on its idle previous CPU across caches")                    \
    X(bool, recent_used_cpu_prev, true, knob_bool(),                                              \
      "v5.15 (89aafd67f28c)",                                                                     \
      "select_idle_sibling records prev as recent_used_cpu at every wakeup")                      \
    X(bool, numa_preferred_nid, true, knob_bool(),                                                \
      "v3.13",                                                                                    \
      "task_numa_placement picks a preferred node")                                               \
    X(bool, numa_task_migrate, true, knob_bool(),                                                 \
      "v3.13",                                                                                    \
      "task_numa_migrate moves and swaps tasks toward the preferred node")                        \
    X(bool, numa_task_swap, true, knob_bool(),                                                    \
      "v3.13",                                                                                    \
      "task_numa_compare may swap p with the task running on a busy destination")                 \
    X(bool, numa_groups, true, knob_bool(),                                                       \
      "v3.13",                                                                                    \
      "task_numa_group pools the faults of tasks that share memory")                              \
    X(bool, numa_scan_adapt, true, knob_bool(),                                                   \
      "v3.14",                                                                                    \
      "update_task_scan_period adapts the scan period")                                           \
    X(bool, per_vma_lock, true, knob_bool(),                                                      \
      "v6.4 (0bff0aaea03e, CONFIG_PER_VMA_LOCK)",                                                 \
      "faults take the faulting VMA's lock instead of mmap_lock")                                 \
    X(bool, migrate_tlb_batch, true, knob_bool(),                                                 \
      "v6.3 (7e12beb8ca2a); v6.4 (4d4b6d66db63)",                                                 \
      "one batched TLB flush for a migration's unmaps")                                           \
    X(unsigned, pagevec_size, 31, knob_range(1, KNOB_MAX_PAGEVEC),                                \
      "v4.15 (PAGEVEC_SIZE 15); v6.9 (9cecde80aae0, 31)",                                          \
      "folios a CPU's LRU add batch holds (1: none kept); one in it cannot be isolated to migrate") \
    X(bool, nohz, true, knob_bool(),                                                              \
      "v2.6.21 (CONFIG_NO_HZ); boot parameter nohz=on|off",                                       \
      "idle CPUs stop their tick; a busy CPU's tick kicks one idle CPU to balance for them")      \
    X(bool, pghot, false, knob_bool(),                                                            \
      "not merged: pghot RFC v6 (2026-03-23, Bharata B Rao), on v6.12 here",                      \
      "tiering: hint faults record slow-tier accesses; kmigrated promotes in batches (docs/tiering.md)") \
    X(unsigned, pghot_freq_threshold, PGHOT_DEFAULT_FREQ_THRESHOLD, knob_range(1, PGHOT_FREQ_MAX), \
      "pghot RFC v6; debugfs pghot/freq_threshold",                                               \
      "pghot: accesses within the window that make a page ready for promotion")                   \
    X(unsigned, pghot_promote_freq_window_ms, PGHOT_DEFAULT_FREQ_WINDOW_MS, knob_range(0, KNOB_MAX_MS), \
      "pghot RFC v6; sysctl vm.pghot_promote_freq_window_ms",                                     \
      "pghot: window of the access count, and kmigrated's reference hot threshold")               \
    X(unsigned, kmigrated_sleep_ms, KMIGRATED_DEFAULT_SLEEP_MS, knob_range(1, KNOB_MAX_MS),       \
      "pghot RFC v6; debugfs pghot/kmigrated_sleep_ms",                                           \
      "pghot: kmigrated's sleep between passes over its node")                                    \
    X(unsigned, kmigrated_batch_nr, KMIGRATED_DEFAULT_BATCH_NR, knob_range(1, KNOB_MAX_BATCH_NR), \
      "pghot RFC v6; debugfs pghot/kmigrated_batch_nr",                                           \
      "pghot: folios kmigrated isolates before it migrates them")
// clang-format on

struct NumaBalancingKnobs {
#define NUMASIM_KNOB_FIELD(type, name, def, ...) type name = def;
    NUMASIM_KNOBS(NUMASIM_KNOB_FIELD)
#undef NUMASIM_KNOB_FIELD

    bool enabled() const {
        return numa_balancing != NUMA_BALANCING_DISABLED;
    }
    bool normal_mode() const {
        return numa_balancing & NUMA_BALANCING_NORMAL;
    }
    bool tiering_mode() const {
        return numa_balancing & NUMA_BALANCING_MEMORY_TIERING;
    }
};

// One row of the table, with access to the knob in a NumaBalancingKnobs as an integer (a bool
// as 0/1, an enum as its value).
struct KnobInfo {
    std::string_view name;
    KnobDomain domain;
    std::string_view kernel;       // the kernel change it stands for
    std::string_view description;  // what it does
    int64_t (*get)(const NumaBalancingKnobs&);
    void (*set)(NumaBalancingKnobs&, int64_t);
};

// Every knob, in table order.
const std::vector<KnobInfo>& knob_table();
const KnobInfo* find_knob(std::string_view name);

// A value as a scenario file writes it ("30", "true", "pids_active").
std::string knob_value_text(const KnobInfo& k, int64_t value);
// "0-3", "true or false", "all, pids_active, ...", "64 or 128".
std::string knob_valid_values(const KnobInfo& k);
// Whether `value` is in the knob's domain.
bool knob_value_valid(const KnobInfo& k, int64_t value);

}  // namespace numasim
