// Page reclaim as mm/vmscan.c does it for anonymous memory on a machine without swap (v6.1 to
// v6.12, the classic two-list LRU: none of the profiles' kernels turns MGLRU on by default, and
// Debian's configs leave it off), with demotion to the next memory tier (demotion_enabled).
// docs/tiering.md, "Step 3: demotion", says what is modelled and what is left out.
//
// The LRU. Each anon page is on its node's inactive or active list (PF_ACTIVE; the node counts
// its active pages, NodeMemory::nr_active_anon). A new page starts inactive (v5.9+). The lists'
// order is a clock: per node and list, a hand walks the node's anon pages in address-space order
// (every mm, every VMA, every page), and the pages it passes are the lists' tails. What a page
// was accessed since the hand's last pass comes from the streams' access rates
// (Region::accesses): the chance that it was touched at all, 1 - exp(-expected accesses), drawn
// once per page and pass. The draw stands for the accessed bits folio_referenced() reads and
// clears. Aging therefore costs a step per page reclaim looks at, never per access.
//
// kswapd and direct reclaim. An allocation that finds no node of its zonelist above its low
// watermark wakes the kswapd of each (wake_all_kswapds); a promotion that finds its target at
// its high watermark wakes the target's. kswapd is a kernel thread per node, a task that the
// scheduler runs beside the others on its node's CPUs: it reclaims in SWAP_CLUSTER_MAX batches
// until the node is balanced (free above its high watermark, or its promo watermark in tiering
// mode: pgdat_balanced), so faults between its batches see the node short of its marks. Balanced,
// it naps HZ/10 and then sleeps; a run that reclaims nothing is a failure, and after
// MAX_RECLAIM_RETRIES it stays asleep. An allocation that finds no node above min reclaims itself
// (try_to_free_pages, SWAP_CLUSTER_MAX pages) and tries again; failing that, it is the kernel's
// out-of-memory case (Counters::oom_alloc_failures).
//
// Reclaiming a page. An anon page without swap can only be demoted: with demotion_enabled and a
// next_demotion_node() it moves there (or to another node of the lower tiers), counting
// pgdemote_* and pgsteal_*; when no lower node has room, or demotion is off, it stays, activated
// as shrink_folio_list() does when add_to_swap() fails. File pages are not reclaimed.
#pragma once

#include <cstdint>

#include "kernel/trace_event.h"

namespace numasim {

struct System;
struct AccessStream;
struct Task;

// Who reclaims, for the pgscan_*, pgsteal_* and pgdemote_* counters.
enum class ReclaimBy { Kswapd, Direct, Khugepaged };

// SWAP_CLUSTER_MAX (include/linux/swap.h): pages one pass of the lists takes, and the target of
// a direct reclaim.
inline constexpr uint64_t SWAP_CLUSTER_MAX = 32;
// DEF_PRIORITY (mm/vmscan.c): a reclaim pass scans the lists' size >> priority, from 12 down to
// 0 (the whole lists).
inline constexpr int DEF_PRIORITY = 12;
// MAX_RECLAIM_RETRIES (mm/internal.h): kswapd runs that reclaim nothing before it is left
// asleep.
inline constexpr int MAX_RECLAIM_RETRIES = 16;

// What asks for reclaim: the CPU it runs on (the waker of kswapd, or the allocating task's,
// which direct reclaim charges), and the allocation's order and gfp flags as the tracepoints
// print them.
struct ReclaimRequest {
    int cpu = 0;
    int order = 0;
    TraceGfp gfp = TraceGfp::HighuserMovableZero;
};

// can_demote(): demotion_enabled and `nid` has a node below it.
bool can_demote(const System& sys, int nid);

// The anon pages on `nid`'s inactive list: the node's used pages less its active ones (the
// model's few file pages are counted with them).
uint64_t lru_inactive_anon(const System& sys, int nid);

// inactive_is_low(): the inactive list is smaller than the active one over inactive_ratio,
// int_sqrt(10 * the lists' size in GiB), or 1 below 1 GiB.
bool inactive_is_low(const System& sys, int nid);

// pgdat_balanced(): `nid` has free pages above its high watermark, or its promo watermark when
// numa_balancing has the MEMORY_TIERING bit.
bool pgdat_balanced(const System& sys, int nid);

// shrink_node(): reclaims up to `nr_to_reclaim` pages of `nid`, scanning the inactive list
// `nr_to_scan` pages at most (aging the active list while the inactive one is low). Returns the
// pages reclaimed (demoted).
uint64_t shrink_node(System& sys, int nid, uint64_t nr_to_scan, uint64_t nr_to_reclaim,
                     ReclaimBy by);

// wakeup_kswapd(): nothing unless demotion_enabled (reclaim could free nothing); otherwise wakes
// `nid`'s kswapd if it is waiting (asleep or in its short nap), the node is not balanced and
// kswapd has not given up: an EV_KSWAPD_WAKEUP at the clock of req.cpu, by its current task.
// The work is kswapd_run's, once the thread has a CPU.
void wakeup_kswapd(System& sys, int nid, const ReclaimRequest& req);

// kswapdN, the kernel thread of `nid` (kswapd_run() at boot): a nice-0 SCHED_NORMAL task with no
// mm, bound to the node's CPUs (kswapd() sets its cpumask only when cpumask_of_node() is not
// empty: a node without CPUs has a thread free to run anywhere). Made asleep at its first
// wakeup, so that a run whose kswapd never wakes is as before; not in System::tasks.
Task& kswapd_task(System& sys, int nid);

// An EV_KSWAPD_WAKEUP of `nid`'s thread (wakeup_kswapd()'s or the end of the nap): if it still
// sleeps in that wake generation, try_to_wake_up() by the waker kept in its KswapdThread, on the
// CPU select_task_rq_fair() picks among its allowed ones.
void kswapd_wake_event(System& sys, int nid, int64_t generation);

// kswapd() and balance_pgdat() of mm/vmscan.c while the thread `p` has its CPU and has paid for
// what it did before (the engine calls it where it would start another task's next step): the
// next SWAP_CLUSTER_MAX batch of the run (starting a run if woken), priced as the folios it scans
// (RECLAIM_SCAN_FOLIO_NS each) and its demotion copies (migrate_folio_cost), which becomes the
// thread's kernel time (Task::kernel_debt: its vruntime, its system time, kswapd_stime_ns). The
// scheduler shares the CPU between it and the other tasks there, preempts it and balances it
// as any task. At the end of a run (a run that reclaimed nothing is a failure) it goes round
// again at once unless prepare_kswapd_sleep(); then it sleeps HZ/10 on a timer (the nap) and,
// still balanced when that ends, sleeps until the next wakeup_kswapd().
void kswapd_run(System& sys, Task& p);

// try_to_free_pages() for an allocation of `nr` pages that found no node in `allowed` above its
// min watermark: shrinks the nodes of `preferred`'s zonelist in `allowed`, in order, until
// SWAP_CLUSTER_MAX pages are reclaimed. Returns the pages reclaimed. Nothing without
// demotion_enabled. Its cost (as kswapd's) is the kernel time of the task running on req.cpu,
// the allocating one (Task::kernel_debt, its system time), and adds to
// Counters::direct_reclaim_ns.
uint64_t try_to_free_pages(System& sys, int preferred, uint64_t allowed, const ReclaimRequest& req);

// What `bytes` of a stream's accesses add to its region's expected accesses per page
// (Region::accesses), the input of aging: a line each for single-line random and hot-set
// streams, a page each for sweeps and chunked walks (a touch of the page is what the accessed
// bit records).
void note_stream_accesses(const AccessStream& s, double bytes);

// The page's LRU flags leave with it (freed): the node's active count follows.
void lru_forget_page(System& sys, uint8_t flags, int nid, uint64_t nr = 1);
// A page moves from `from` to `to` keeping its LRU flags (migration copies PG_active).
void lru_move_page(System& sys, uint8_t flags, int from, int to, uint64_t nr = 1);

}  // namespace numasim
