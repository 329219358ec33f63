// Automatic NUMA balancing: the kernel's functions under their own names, split by the files
// that implement them (docs/kernel-functions.md maps every kernel function to its file):
//   hash.cpp             hash_32
//   scan.cpp             init_numa_balancing, task_tick_numa, task_scan_min/max/start,
//                        update_scan_period
//   scan_work.cpp        task_numa_work (VMA selection, windows, numa_scan_offset)
//   vma_access.cpp       vma_is_accessed, vma_set_access_pid_bit
//   change_prot_numa.cpp change_prot_numa (change_pte_range / change_huge_pmd, prot_numa)
//   fault.cpp            do_numa_page, do_huge_pmd_numa_page, numa_migrate_check,
//                        mpol_misplaced, should_numa_migrate_memory
//   promotion.cpp        memory tiering's hot-page selection: numa_hint_fault_latency,
//                        pgdat_free_space_enough, numa_promotion_adjust_threshold,
//                        numa_promotion_rate_limit
//   task_numa_fault.cpp  task_numa_fault
//   placement.cpp        task_numa_placement, update_task_scan_period, sched_setnuma,
//                        preferred_group_nid, score_nearby_nodes, task/group weights
//   group.cpp            task_numa_group, task_numa_free
//   migrate_task.cpp     numa_migrate_preferred, task_numa_migrate, update_numa_stats,
//                        numa_classify, task_numa_find_cpu, task_numa_compare,
//                        task_numa_assign, load_too_imbalanced, migrate_task_to, migrate_swap
//   lb.cpp               account_numa_enqueue/dequeue, fbq classification,
//                        migrate_degrades_locality
//   pids_telemetry.cpp   the pids_active collision telemetry of switch (d)
//   proc_sched.cpp       the /proc/<pid>/sched NUMA lines (sched_show_numa)
//   profile.cpp          kernel profiles and knob overrides
#pragma once

#include <cstdint>

#include "mm/cpupid.h"
#include "mm/migrate_cost.h"

namespace numasim {

struct System;
struct Task;
struct Vma;
struct Mm;
struct NumaGroup;
struct PageFrame;
struct Rq;
struct SchedDomain;

// --- include/linux/sched/numa_balancing.h ---
inline constexpr int TNF_MIGRATED = 0x01;
inline constexpr int TNF_NO_GROUP = 0x02;
inline constexpr int TNF_SHARED = 0x04;
inline constexpr int TNF_FAULT_LOCAL = 0x08;
inline constexpr int TNF_MIGRATE_FAIL = 0x10;

// --- constants of kernel/sched/fair.c ---
inline constexpr int MAX_SCAN_WINDOW = 2560;           // MB/s: 100 ms floor at 256 MB windows
inline constexpr int VMA_PID_RESET_PERIOD_DELAYS = 4;  // VMA_PID_RESET_PERIOD = 4 * scan_delay
inline constexpr int NUMA_PERIOD_SLOTS = 10;
inline constexpr int NUMA_PERIOD_THRESHOLD = 7;
inline constexpr int ACTIVE_NODE_FRACTION = 3;
inline constexpr unsigned long LOAD_AVG_MAX = 47742;  // first-placement period (PELT)
inline constexpr int NUMA_EARLY_SCAN_SEQ = 4;         // should_numa_migrate_memory early life
inline constexpr int NUMA_UNCONDITIONAL_PASSES = 2;   // vma_is_accessed first passes

enum numa_faults_stats { NUMA_MEM = 0, NUMA_CPU = 1, NUMA_MEMBUF = 2, NUMA_CPUBUF = 3 };

// --- hash.cpp ---
uint32_t hash_32(uint32_t val, unsigned bits);  // include/linux/hash.h, GOLDEN_RATIO_32

// --- scan.cpp ---
void init_numa_balancing(System& sys, Task& p, Task* parent, bool clone_vm);
void task_tick_numa(System& sys, Task& curr);
// The runtime (sum_exec_runtime) past which task_tick_numa() acts on curr: it starts the next
// scan period and may queue task_numa_work. The largest Nanos if it never would as things stand.
Nanos task_tick_numa_deadline(const System& sys, const Task& curr);
// Runs the queued scan work on return to user mode; returns kernel CPU time in ns.
double task_numa_work(System& sys, Task& p);
// task_work_run() on the return to user mode with task_numa_work queued: runs it and charges its
// time to p as kernel time, and, with latency accounting on, as one task_numa_work call.
void task_work_run(System& sys, Task& p);
bool vma_is_accessed(System& sys, Mm& mm, Vma& vma, Task& current);
void vma_set_access_pid_bit(System& sys, Vma& vma, Task& current);
unsigned task_scan_min(const System& sys, const Task& p);
unsigned task_scan_max(const System& sys, const Task& p);
unsigned task_scan_start(const System& sys, const Task& p);
void update_scan_period(System& sys, Task& p, int new_cpu);

// --- change_prot_numa.cpp ---
// Makes present PTEs of [start, end) PROT_NONE; returns the number changed (a THP counts
// HPAGE_PMD_NR) and adds the walk's kernel time to `kernel_ns`.
unsigned long change_prot_numa(System& sys, Task& current, Vma& vma, uint64_t start, uint64_t end,
                               double& kernel_ns);

// --- fault.cpp ---
// What a base-page hinting fault did, for the like pages after it to repeat (fault runs).
struct NumaFaultOutcome {
    // The like pages after it would do the same: no allocation was tried, or the page migrated
    // and the next `run_limit` pages would migrate alike.
    bool repeatable = false;
    bool migrated = false;
    uint64_t run_limit = UINT64_MAX;
    int nid = 0;    // the node the fault was accounted to (the target, if migrated)
    int flags = 0;  // TNF_* passed to task_numa_fault
    cpupid_t last_cpupid = CPUPID_UNSET;
    MigrateCostRecord migration;  // if migrated
};
// A hinting fault by `p` at page `idx` of `vma` (PTE or, if PMD-mapped, the huge path).
// Returns kernel CPU time in ns. With `outcome`, also says what it did (see above).
double do_numa_page(System& sys, Task& p, Vma& vma, uint64_t idx, bool write,
                    NumaFaultOutcome* outcome = nullptr);
// Fault runs (docs/model.md, "Fault runs"). Asked before page `idx` of a sweep takes its
// hinting fault: whether the like pages after it could repeat that fault's decision, because
// nothing the decision reads besides their own state can change with it. Reads only.
bool numa_fault_run_allowed(const System& sys, const Task& p, const Vma& vma, uint64_t idx,
                            bool write);
// Whether numa_fault_run could find a run at all, asked before the dearer question above: the
// page after `idx` (below `hi`, in its page table) is PROT_NONE with the state idx has now.
bool numa_fault_run_possible(const Vma& vma, uint64_t idx, uint64_t hi);
// After that fault, if it was repeatable: how many pages after `idx`, up to `hi` and within its
// page table, are PROT_NONE with the state idx had (`before`: its frame before the fault).
uint64_t numa_fault_run(const Vma& vma, uint64_t idx, uint64_t hi, const PageFrame& before);
// Repeats for pages (idx, idx + nr], a run counted by numa_fault_run, what the fault of page
// `idx` did (its `outcome`, repeatable): the per-page path's counters, tags, PTEs and fault
// statistics, all at once. The engine counts the faults and the kernel time, as for one page.
void repeat_numa_fault(System& sys, Task& p, Vma& vma, uint64_t idx, uint64_t nr,
                       const NumaFaultOutcome& outcome);
// do_numa_access() of the IBS-driven NUMA balancing posting (Bharata B Rao, "Memory access
// profiler(IBS) driven NUMA balancing", linux-mm, 2023-02-08, patch 2/5): a sampled access by
// `p` to page `idx` of `vma`, fed to NUMA balancing as a hinting-fault equivalent, with no PTE
// made PROT_NONE or restored. Counts numa_hint_faults (and _local) as a hinting fault does.
// Returns the kernel time of a migration it made; the sample's own handling is the caller's.
double do_numa_access(System& sys, Task& p, Vma& vma, uint64_t idx);
int mpol_misplaced(System& sys, Task& p, Vma& vma, uint64_t idx, int folio_nid, int this_cpu);
bool should_numa_migrate_memory(System& sys, Task& p, Vma& vma, uint64_t idx, int src_nid,
                                int dst_cpu);

// --- promotion.cpp ---
// jiffies_to_msecs(jiffies): the clock tiering mode stamps folios with, an unsigned int.
unsigned jiffies_to_msecs(const System& sys);
// Stores `time_ms` as the folio's access time; returns the one it held (folio_xchg_access_time).
unsigned folio_xchg_access_time(PageFrame& f, unsigned time_ms);
// The ms since the folio's scan stamped it, modulo PAGE_ACCESS_TIME_MASK; stamps it with now.
unsigned numa_hint_fault_latency(const System& sys, PageFrame& f);
// Node nid has at least max(1 GiB, 1/16 of it) free above its promo watermark.
bool pgdat_free_space_enough(const System& sys, int nid);
// Counts nr candidate pages toward nid; true if its one-second window has reached `rate_limit`.
bool numa_promotion_rate_limit(System& sys, int nid, uint64_t rate_limit, uint64_t nr);
// Once per scan_period_max_ms, moves nid's threshold by 1/16 of 2 * ref_th toward the rate limit.
void numa_promotion_adjust_threshold(System& sys, int nid, uint64_t rate_limit, unsigned ref_th);
// The two above at `now` ms, the threshold once per `th_period` ms: pghot's kmigrated runs the
// same code with its own period (mm/pghot.h).
bool promotion_rate_limit_at(System& sys, int nid, uint64_t rate_limit, uint64_t nr, unsigned now);
void promotion_adjust_threshold_over(System& sys, int nid, uint64_t rate_limit, unsigned ref_th,
                                     unsigned th_period, unsigned now);
// should_numa_migrate_memory's test for a slow-tier folio (frame `f`, nr pages) in tiering
// mode: whether to promote it to dst_nid.
bool numa_promote_hot_folio(System& sys, PageFrame& f, int dst_nid, uint64_t nr);

// --- task_numa_fault.cpp ---
void task_numa_fault(System& sys, Task& p, cpupid_t last_cpupid, int mem_node, int pages,
                     int flags);
// Whether task_numa_fault for a fault tagged `last_cpupid`, now and again after it, changes
// nothing but the fault counts it adds: no placement or task migration is due, and no group
// is made or joined. `may_group`: the fault may go to the group step (its PTE is writable, so
// no TNF_NO_GROUP).
bool task_numa_fault_only_counts(const System& sys, const Task& p, cpupid_t last_cpupid,
                                 bool may_group);

// --- placement.cpp ---
int task_faults_idx(const System& sys, numa_faults_stats s, int nid, int priv);
unsigned long task_faults(const System& sys, const Task& p, int nid);
unsigned long group_faults(const System& sys, const Task& p, int nid);
unsigned long group_faults_cpu(const System& sys, const NumaGroup& ng, int nid);
unsigned long score_nearby_nodes(const System& sys, const Task& p, int nid, int maxdist, bool task);
unsigned long task_weight(const System& sys, const Task& p, int nid, int dist);
unsigned long group_weight(const System& sys, const Task& p, int nid, int dist);
void task_numa_placement(System& sys, Task& p);
void update_task_scan_period(System& sys, Task& p, unsigned long shared, unsigned long priv);
int preferred_group_nid(System& sys, Task& p, int nid);
void numa_group_count_active_nodes(System& sys, NumaGroup& ng);
void sched_setnuma(System& sys, Task& p, int nid);

// --- group.cpp ---
void task_numa_group(System& sys, Task& p, cpupid_t cpupid, int flags, int* priv);
// Whether task_numa_group for a fault tagged `cpupid` returns before making or joining a group.
bool task_numa_group_settled(const System& sys, const Task& p, cpupid_t cpupid);
void task_numa_free(System& sys, Task& p);

// --- migrate_task.cpp ---
void numa_migrate_preferred(System& sys, Task& p);
int task_numa_migrate(System& sys, Task& p);
int migrate_task_to(System& sys, Task& p, int target_cpu);
int migrate_swap(System& sys, Task& cur, Task& p, int target_cpu, int curr_cpu);

// --- lb.cpp ---
enum class FbqType { Regular = 0, Remote = 1, All = 2 };
void account_numa_enqueue(System& sys, Rq& rq, Task& p);
void account_numa_dequeue(System& sys, Rq& rq, Task& p);
FbqType fbq_classify_group(unsigned sum_nr_running, unsigned nr_numa_running,
                           unsigned nr_preferred_running);
FbqType fbq_classify_rq(const Rq& rq);
// -1 no opinion, 0 improves (or neutral toward preferred), 1 degrades.
int migrate_degrades_locality(System& sys, Task& p, int src_cpu, int dst_cpu, const SchedDomain& sd,
                              bool dst_idle);

}  // namespace numasim
