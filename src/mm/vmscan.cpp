#include "mm/vmscan.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>

#include "cost/access.h"
#include "cost/constants.h"
#include "kernel/latency.h"
#include "kernel/system.h"
#include "kernel/tracepoints.h"
#include "mm/lru_aging.h"
#include "mm/lru_cursor.h"
#include "mm/lru_index.h"
#include "mm/migrate.h"
#include "mm/migrate_cost.h"
#include "mm/page_alloc.h"
#include "sched/fair.h"

namespace numasim {

namespace {

// The unit of a random stream's single accesses (touch_streams draws pages by lines).
constexpr double CACHE_LINE_BYTES = 64;

// kswapd_try_to_sleep()'s short nap before the full sleep: HZ/10 jiffies, 100 ms.
constexpr Nanos KSWAPD_NAP_NS = TICK_NSEC * (HZ / 10);

// kswapd's pid: kswapd_init() starts the threads at boot, after the early kernel threads, so a
// real kswapd0 has a pid in the low hundreds. numasim's are kKswapdPidBase + nid, below the
// simulated tasks' (System::next_pid).
constexpr int kKswapdPidBase = 100;

// Who reclaims, where, and what it costs: kswapd's thread on a CPU of its node, or the
// allocating task (direct reclaim). The tracepoints fire in its context, and its kernel time
// (the folios scanned and the demotion copies) adds up in cost_ns.
struct Reclaimer {
    ReclaimBy by = ReclaimBy::Kswapd;
    int cpu = 0;
    const Task* task = nullptr;  // the context the trace shows (null: the idle task)
    Nanos ts = 0;
    int priority = DEF_PRIORITY;
    double cost_ns = 0;
};

TraceEvent reclaim_event(TraceEventId id, const Reclaimer& r, int nid) {
    TraceEvent e;
    e.id = id;
    e.cpu = r.cpu;
    e.ts = r.ts;
    e.current = r.task;
    e.nid1 = nid;
    return e;
}

// Whether reclaim sees `v`'s pages on the anon LRU: private or shared anonymous memory (shmem
// is swap-backed, on the anon lists too), not a file's page cache.
bool anon_lru_vma(const Vma& v) {
    return !v.is_file() && !(v.vm_flags & (VM_HUGETLB | VM_PFNMAP | VM_IO));
}

// Calls visit(vma, idx, nr, head frame) for each folio of anon pages on `nid` whose PF_ACTIVE is
// `active`, from the hand on, until visit returns false or the hand has come round once in this
// walk.
template <class F>
void walk_lru(System& sys, LruHand& h, int nid, bool active, F visit) {
    int wraps = 0;
    for (;;) {
        if (h.mm >= sys.mms.size()) {
            h = LruHand{0, 0, 0, h.pass + 1};
            if (++wraps > 1 || sys.mms.empty()) return;
            continue;
        }
        Mm& mm = *sys.mms[h.mm];
        if (h.vma >= mm.vmas.size()) {
            ++h.mm;
            h.vma = 0;
            h.idx = 0;
            continue;
        }
        Vma& v = *mm.vmas[h.vma];
        if (anon_lru_vma(v)) {
            LruCursor lru(v, nid, active);
            uint64_t first = 0, nr = 0;
            while (PageFrame* f = lru.next(h.idx, first, nr)) {
                h.idx = first + nr;
                if (!visit(v, first, nr, *f)) return;
            }
        }
        ++h.vma;
        h.idx = 0;
    }
}

// The chance that a folio with `expected` accesses was touched, 1 - exp(-expected), kept for the
// last `expected` asked: the pages of a region share one until its hot part, so a pass over a
// run of them computes it once.
struct TouchChance {
    double expected = -1, p = 0;
    double of(double e) {
        if (e != expected) {
            expected = e;
            p = -std::expm1(-e);
        }
        return p;
    }
};

// Whether the folio of `nr` pages at idx of `v` on `nid` was accessed since the inactive hand's
// last pass over its regions: its expected accesses in that time, drawn as a Poisson count being
// nonzero.
bool folio_referenced(System& sys, Vma& v, uint64_t idx, uint64_t nr, int nid, uint64_t pass,
                      AgingRun& run, TouchChance& chance) {
    const double expected =
        page_expected_accesses(v, idx, nid, sys.nr_nodes(), pass, run) * static_cast<double>(nr);
    return expected > 0 && sys.rng_reclaim.bernoulli(chance.of(expected));
}

// Sets `set` and clears `clear` in the LRU flags of the folio of `nr` pages at idx of `v`. The
// kernel keeps PG_active and PG_referenced once, in the folio (a tail page reads its head's), and
// a split hands them to every page; the model keeps them in every frame of the folio, so the
// per-page counts (nr_active_anon, the invariant checks, the LRU index) and a later split see
// all of its pages on the list where the folio is.
void set_folio_lru_flags(Vma& v, uint64_t idx, uint64_t nr, uint8_t set, uint8_t clear) {
    for (uint64_t i = idx; i < idx + nr; ++i) {
        PageFrame& f = v.frame(i);
        const int was = lru_list_of(f);
        f.flags = static_cast<uint8_t>((f.flags | set) & ~clear);
        lru_index_note(v, i, was, lru_list_of(f));
    }
}

// folio_set_referenced() for the folio of `nr` pages at idx of `v` whose first frame is `head`:
// PG_referenced alone leaves the folio on its list, so neither the LRU index nor a count moves.
void set_folio_referenced(Vma& v, uint64_t idx, uint64_t nr, PageFrame& head) {
    head.flags |= PF_REFERENCED;
    for (uint64_t i = idx + 1; i < idx + nr; ++i)
        v.frame(i).flags |= PF_REFERENCED;
}

void set_active(System& sys, Vma& v, uint64_t idx, uint64_t nr) {
    set_folio_lru_flags(v, idx, nr, PF_ACTIVE, PF_REFERENCED);
    sys.mem.nodes[v.frame(idx).nid].nr_active_anon += nr;
    sys.counters.pgactivate += nr;
}

// demote_folio_list() for one folio: to next_demotion_node(), or any node of the lower tiers
// with room (alloc_demote_folio, no reclaim of its own). Returns whether it moved.
bool demote_folio(System& sys, Vma& v, uint64_t idx, uint64_t nr, int nid, Reclaimer& r) {
    const int target =
        sys.tiers.next_demotion_node(nid, static_cast<uint32_t>(sys.rng_reclaim.next_u64()));
    if (target < 0) return false;
    uint64_t allowed = 0;
    const int tier = sys.tiers.tier_of_node[static_cast<size_t>(nid)];
    for (int n : sys.tiers.tiers[static_cast<size_t>(tier)].lower_tier_mask)
        allowed |= uint64_t{1} << n;
    const int order = nr > 1 ? v.pages.pmd_order : 0;
    const int to = alloc_demote_page(sys, target, allowed, order, nid);
    if (to < 0) return false;
    // The copy, unmap and remap as any migration's, on the reclaimer's CPU.
    r.cost_ns +=
        migrate_folio_cost(sys, nullptr, r.cpu, v, idx, nr, nid, to, v.frame(idx).mapcount);
    migrate_demote_folio(sys, v, idx, nr, to);
    return true;
}

uint64_t& scan_counter(Counters& c, ReclaimBy by) {
    return by == ReclaimBy::Kswapd   ? c.pgscan_kswapd
           : by == ReclaimBy::Direct ? c.pgscan_direct
                                     : c.pgscan_khugepaged;
}
uint64_t& steal_counter(Counters& c, ReclaimBy by) {
    return by == ReclaimBy::Kswapd   ? c.pgsteal_kswapd
           : by == ReclaimBy::Direct ? c.pgsteal_direct
                                     : c.pgsteal_khugepaged;
}
uint64_t& demote_counter(Counters& c, ReclaimBy by) {
    return by == ReclaimBy::Kswapd   ? c.pgdemote_kswapd
           : by == ReclaimBy::Direct ? c.pgdemote_direct
                                     : c.pgdemote_khugepaged;
}

// shrink_active_list(): up to `nr_to_scan` pages from the active list's tail go to the inactive
// list. An anon page goes whether it was accessed or not (only executable file pages stay).
void shrink_active_list(System& sys, int nid, uint64_t nr_to_scan, Reclaimer& r) {
    NodeMemory& m = sys.mem.nodes[static_cast<size_t>(nid)];
    uint64_t scanned = 0, folios = 0;
    walk_lru(sys, m.active_hand, nid, true, [&](Vma& v, uint64_t idx, uint64_t nr, PageFrame&) {
        set_folio_lru_flags(v, idx, nr, 0, PF_ACTIVE | PF_REFERENCED);
        m.nr_active_anon -= nr;
        scanned += nr;
        ++folios;
        return scanned < nr_to_scan;
    });
    sys.counters.pgrefill += scanned;
    sys.counters.pgdeactivate += scanned;
    r.cost_ns += static_cast<double>(folios) * sys.cost.k().RECLAIM_SCAN_FOLIO_NS;
    ++sys.counters.mm_vmscan_lru_shrink_active;
    if (sys.tracer.on(TraceEventId::mm_vmscan_lru_shrink_active)) {
        // Every anon folio is deactivated: none stays active, none counts as referenced (only
        // executable file folios do).
        TraceEvent e = reclaim_event(TraceEventId::mm_vmscan_lru_shrink_active, r, nid);
        e.n = {scanned, 0, scanned, 0, 0, 0};
        e.priority = r.priority;
        sys.tracer.emit(e);
    }
}

// shrink_inactive_list() and shrink_folio_list(): up to `nr_to_scan` pages from the inactive
// list's tail. folio_check_references(): a page accessed since the last pass is activated if it
// had been found so before (PG_referenced), else marked and kept; an unaccessed one is demoted,
// or, when that fails, activated (no swap to page it out to). Sets `scanned`; returns the pages
// demoted.
uint64_t shrink_inactive_list(System& sys, int nid, uint64_t nr_to_scan, Reclaimer& r,
                              uint64_t& scanned) {
    NodeMemory& m = sys.mem.nodes[static_cast<size_t>(nid)];
    uint64_t demoted = 0, activated = 0, kept = 0, failed = 0, folios = 0;
    uint64_t thp_demoted = 0, thp_failed = 0;
    scanned = 0;
    AgingRun run;
    TouchChance chance;
    walk_lru(sys, m.inactive_hand, nid, false,
             [&](Vma& v, uint64_t idx, uint64_t nr, PageFrame& f) {
                 scanned += nr;
                 ++folios;
                 const bool was_referenced = f.flags & PF_REFERENCED;
                 if (folio_referenced(sys, v, idx, nr, nid, m.inactive_hand.pass, run, chance)) {
                     if (was_referenced) {
                         set_active(sys, v, idx, nr);
                         activated += nr;
                     } else {
                         set_folio_referenced(v, idx, nr, f);
                         kept += nr;
                     }
                 } else if (demote_folio(sys, v, idx, nr, nid, r)) {
                     demoted += nr;
                     thp_demoted += nr > 1;
                 } else {
                     // No lower node had room: migrate_pages() failed it.
                     failed += nr;
                     thp_failed += nr > 1;
                     set_active(sys, v, idx, nr);
                     activated += nr;
                 }
                 return scanned < nr_to_scan;
             });
    r.cost_ns += static_cast<double>(folios) * sys.cost.k().RECLAIM_SCAN_FOLIO_NS;
    Counters& c = sys.counters;
    scan_counter(c, r.by) += scanned;
    c.pgscan_anon += scanned;
    steal_counter(c, r.by) += demoted;
    c.pgsteal_anon += demoted;
    demote_counter(c, r.by) += demoted;
    m.pgdemote += demoted;
    if (demoted || failed) {
        // demote_folio_list's one migrate_pages() call (MIGRATE_ASYNC, MR_DEMOTION).
        ++c.mm_migrate_pages;
        if (sys.has_migrate_pages_start)
            trace_mm_migrate_pages_start(sys, r.cpu, r.task, r.ts, MigrateMode::Async,
                                         MigrateReason::Demotion);
        if (sys.tracer.on(TraceEventId::mm_migrate_pages)) {
            TraceEvent e = reclaim_event(TraceEventId::mm_migrate_pages, r, nid);
            e.n = {demoted, failed, thp_demoted, thp_failed, 0, 0};
            e.reason = MigrateReason::Demotion;
            sys.tracer.emit(e);
        }
    }
    // shrink_inactive_list() returns early when it isolated nothing.
    if (scanned) {
        ++c.mm_vmscan_lru_shrink_inactive;
        if (sys.tracer.on(TraceEventId::mm_vmscan_lru_shrink_inactive)) {
            TraceEvent e = reclaim_event(TraceEventId::mm_vmscan_lru_shrink_inactive, r, nid);
            e.n = {scanned, demoted, activated, kept, 0, 0};
            e.priority = r.priority;
            sys.tracer.emit(e);
        }
    }
    return demoted;
}

// shrink_node() with its reclaimer.
uint64_t shrink_node_by(System& sys, int nid, uint64_t nr_to_scan, uint64_t nr_to_reclaim,
                        Reclaimer& r) {
    // get_scan_count(): without swap, the anon lists are scanned only when the node can demote.
    if (!can_demote(sys, nid)) return 0;
    uint64_t scanned = 0, reclaimed = 0;
    while (scanned < nr_to_scan && reclaimed < nr_to_reclaim) {
        if (inactive_is_low(sys, nid)) shrink_active_list(sys, nid, SWAP_CLUSTER_MAX, r);
        uint64_t batch = 0;
        reclaimed += shrink_inactive_list(
            sys, nid, std::min(SWAP_CLUSTER_MAX, nr_to_scan - scanned), r, batch);
        if (batch == 0) break;  // nothing left on the inactive list
        scanned += batch;
    }
    if (reclaimed) sys.mem.nodes[static_cast<size_t>(nid)].kswapd_failures = 0;
    return reclaimed;
}

// The mark pgdat_balanced() compares free pages with: WMARK_PROMO in tiering mode (v5.18 to
// v6.12 alike), else WMARK_HIGH.
uint64_t balance_mark(const System& sys, const NodeMemory& m) {
    return sys.knobs.tiering_mode() ? m.wmark_promo : m.wmark_high;
}

// prepare_kswapd_sleep(): kswapd may sleep once the node is balanced or it has given up.
bool prepare_kswapd_sleep(const System& sys, int nid) {
    return sys.mem.nodes[static_cast<size_t>(nid)].kswapd_failures >= MAX_RECLAIM_RETRIES ||
           pgdat_balanced(sys, nid);
}

// kswapd() going round its loop: the wake tracepoint, then a balance_pgdat() run from
// DEF_PRIORITY.
void kswapd_start_run(System& sys, int nid, const Reclaimer& r) {
    KswapdThread& k = sys.mem.nodes[static_cast<size_t>(nid)].kswapd;
    k.state = KswapdState::Running;
    k.priority = DEF_PRIORITY;
    k.pass_open = false;
    k.run_reclaimed = 0;
    ++sys.counters.mm_vmscan_kswapd_wake;
    if (sys.tracer.on(TraceEventId::mm_vmscan_kswapd_wake)) {
        TraceEvent e = reclaim_event(TraceEventId::mm_vmscan_kswapd_wake, r, nid);
        e.ts += static_cast<Nanos>(r.cost_ns);
        sys.tracer.emit(e);
    }
}

// One SWAP_CLUSTER_MAX batch of balance_pgdat() (what shrink_lruvec() takes between its
// cond_resched() calls): the passes go from DEF_PRIORITY down, each scanning the lists' size >>
// priority for what the node is short of its mark. Returns false when the run is over: the node
// is balanced or every priority has been tried.
bool balance_pgdat_batch(System& sys, int nid, Reclaimer& r) {
    NodeMemory& m = sys.mem.nodes[static_cast<size_t>(nid)];
    KswapdThread& k = m.kswapd;
    if (!k.pass_open) {
        if (k.priority < 0 || pgdat_balanced(sys, nid)) return false;
        const uint64_t mark = balance_mark(sys, m);
        const uint64_t short_of = mark + 1 > m.free_pages ? mark + 1 - m.free_pages : 0;
        k.pass_to_scan = std::max(sys.mem.used_pages(nid) >> k.priority, SWAP_CLUSTER_MAX);
        k.pass_to_reclaim = std::max(short_of, SWAP_CLUSTER_MAX);
        k.pass_scanned = k.pass_reclaimed = 0;
        k.pass_open = true;
    }
    r.priority = k.priority;
    uint64_t batch = 0, reclaimed = 0;
    // get_scan_count(): without swap, the anon lists are scanned only when the node can demote.
    if (can_demote(sys, nid)) {
        if (inactive_is_low(sys, nid)) shrink_active_list(sys, nid, SWAP_CLUSTER_MAX, r);
        reclaimed = shrink_inactive_list(
            sys, nid, std::min(SWAP_CLUSTER_MAX, k.pass_to_scan - k.pass_scanned), r, batch);
    }
    k.pass_scanned += batch;
    k.pass_reclaimed += reclaimed;
    k.run_reclaimed += reclaimed;
    if (reclaimed) m.kswapd_failures = 0;
    if (batch == 0 || k.pass_scanned >= k.pass_to_scan || k.pass_reclaimed >= k.pass_to_reclaim) {
        k.pass_open = false;
        --k.priority;
    }
    return true;
}

// kswapd_try_to_sleep() after a run (or its short nap): the full sleep, with its tracepoint.
void kswapd_sleep(System& sys, int nid, const Reclaimer& r) {
    sys.mem.nodes[static_cast<size_t>(nid)].kswapd.state = KswapdState::Asleep;
    ++sys.counters.mm_vmscan_kswapd_sleep;
    if (sys.tracer.on(TraceEventId::mm_vmscan_kswapd_sleep)) {
        TraceEvent e = reclaim_event(TraceEventId::mm_vmscan_kswapd_sleep, r, nid);
        e.ts += static_cast<Nanos>(r.cost_ns);
        sys.tracer.emit(e);
    }
}

// Takes kswapd's thread off its CPU: it sleeps on pgdat->kswapd_wait (a new wake generation,
// which the wakeups queued before no longer match), and the CPU picks its next task.
void kswapd_schedule_out(System& sys, Task& p) {
    const int cpu = p.cpu;
    dequeue_sleeping_task(sys, p);
    ++p.wake_generation;
    schedule(sys, cpu);
}

// Queues the thread's wakeup at `when`, by `waker_cpu` (-1: its own timer) and `waker`.
void kswapd_queue_wakeup(System& sys, int nid, Nanos when, int waker_cpu, Task* waker) {
    KswapdThread& k = sys.mem.nodes[static_cast<size_t>(nid)].kswapd;
    k.waker_cpu = waker_cpu;
    k.waker = waker;
    const Task& p = *sys.kswapd[static_cast<size_t>(nid)];
    sys.events.push(when, EV_KSWAPD_WAKEUP, nid, static_cast<int64_t>(p.wake_generation));
}

}  // namespace

bool can_demote(const System& sys, int nid) {
    return sys.knobs.demotion_enabled && !sys.tiers.node_demotion.empty() &&
           !sys.tiers.node_demotion[static_cast<size_t>(nid)].preferred.empty();
}

uint64_t lru_inactive_anon(const System& sys, int nid) {
    const NodeMemory& m = sys.mem.nodes[static_cast<size_t>(nid)];
    return sys.mem.used_pages(nid) - m.nr_active_anon;
}

bool inactive_is_low(const System& sys, int nid) {
    const uint64_t active = sys.mem.nodes[static_cast<size_t>(nid)].nr_active_anon;
    const uint64_t inactive = lru_inactive_anon(sys, nid);
    const uint64_t gb = ((active + inactive) << sys.pages().shift) >> 30;
    const auto ratio =
        gb ? static_cast<uint64_t>(std::sqrt(10.0 * static_cast<double>(gb))) : uint64_t{1};
    return inactive * ratio < active;
}

bool pgdat_balanced(const System& sys, int nid) {
    const NodeMemory& m = sys.mem.nodes[static_cast<size_t>(nid)];
    return m.free_pages > balance_mark(sys, m);
}

uint64_t shrink_node(System& sys, int nid, uint64_t nr_to_scan, uint64_t nr_to_reclaim,
                     ReclaimBy by) {
    Reclaimer r;
    r.by = by;
    return shrink_node_by(sys, nid, nr_to_scan, nr_to_reclaim, r);
}

void wakeup_kswapd(System& sys, int nid, const ReclaimRequest& req) {
    if (!sys.knobs.demotion_enabled) return;
    NodeMemory& m = sys.mem.nodes[static_cast<size_t>(nid)];
    // Only a kswapd waiting on its queue (asleep or napping) is woken: a running one will see
    // the node's state at its next check.
    if (m.kswapd.state == KswapdState::Woken || m.kswapd.state == KswapdState::Running) return;
    if (m.kswapd_failures >= MAX_RECLAIM_RETRIES || pgdat_balanced(sys, nid)) return;
    ++sys.counters.mm_vmscan_wakeup_kswapd;
    if (sys.tracer.on(TraceEventId::mm_vmscan_wakeup_kswapd)) {
        TraceEvent e = trace_event_on_cpu(sys, TraceEventId::mm_vmscan_wakeup_kswapd, req.cpu);
        e.nid1 = nid;
        e.order = req.order;
        e.gfp = req.gfp;
        sys.tracer.emit(e);
    }
    m.kswapd.state = KswapdState::Woken;
    // wake_up_interruptible(&pgdat->kswapd_wait) at the waker's time; the event loop delivers it
    // in time order, as the other wakeups between CPUs.
    const Rq& rq = sys.rqs[static_cast<size_t>(req.cpu)];
    kswapd_task(sys, nid);
    kswapd_queue_wakeup(sys, nid, rq.clock, req.cpu, rq.curr);
}

Task& kswapd_task(System& sys, int nid) {
    if (sys.kswapd.size() < static_cast<size_t>(sys.nr_nodes()))
        sys.kswapd.resize(static_cast<size_t>(sys.nr_nodes()));
    auto& t = sys.kswapd[static_cast<size_t>(nid)];
    if (t) return *t;
    t = std::make_unique<Task>();
    Task& p = *t;
    p.index = -1;
    p.kswapd_nid = nid;
    p.pid = p.tgid = kKswapdPidBase + nid;
    p.comm = "kswapd" + std::to_string(nid);
    p.allow_all(sys.nr_cpus());
    const std::vector<int>& cpus = sys.topo.nodes[static_cast<size_t>(nid)].cpus;
    if (!cpus.empty()) p.allow_only(cpus);
    // Asleep on its node's first CPU (or CPU 0), where kthread_run() left it at boot.
    p.cpu = cpus.empty() ? 0 : cpus.front();
    p.state = TaskState::Sleeping;
    p.start_time = sys.now;
    p.exec_start = sys.now;
    p.avg.last_update_time = sys.now;
    return p;
}

void kswapd_wake_event(System& sys, int nid, int64_t generation) {
    Task& p = kswapd_task(sys, nid);
    if (p.state != TaskState::Sleeping || static_cast<int64_t>(p.wake_generation) != generation)
        return;
    const KswapdThread& k = sys.mem.nodes[static_cast<size_t>(nid)].kswapd;
    try_to_wake_up(sys, p, Waker{.cpu = k.waker_cpu, .task = k.waker});
}

void kswapd_run(System& sys, Task& p) {
    const int nid = p.kswapd_nid;
    NodeMemory& m = sys.mem.nodes[static_cast<size_t>(nid)];
    KswapdThread& k = m.kswapd;
    // Its aging reads what every CPU's streams accessed: the CPUs that hold back their steps
    // play them first.
    for (int cpu = 0; cpu < sys.nr_cpus(); ++cpu)
        sys.catch_up_cpu(cpu);
    Reclaimer r;
    r.by = ReclaimBy::Kswapd;
    r.cpu = p.cpu;
    r.task = &p;
    r.ts = sys.rqs[static_cast<size_t>(p.cpu)].clock;
    if (k.state == KswapdState::Napping) {
        // The nap's timer woke it: the full sleep if the node is still balanced, else back to
        // work (KSWAPD_HIGH_WMARK_HIT_QUICKLY in the kernel's vmstat).
        if (prepare_kswapd_sleep(sys, nid)) {
            kswapd_sleep(sys, nid, r);
            kswapd_schedule_out(sys, p);
            return;
        }
        k.state = KswapdState::Woken;
    }
    if (k.state == KswapdState::Woken) kswapd_start_run(sys, nid, r);
    for (;;) {
        if (balance_pgdat_batch(sys, nid, r)) {
            if (r.cost_ns > 0) break;
            continue;
        }
        // The run is over; it has done no batch that cost time since it was called.
        if (!k.run_reclaimed) ++m.kswapd_failures;
        if (prepare_kswapd_sleep(sys, nid)) {
            // kswapd_try_to_sleep(): the short nap, on a timer.
            k.state = KswapdState::Napping;
            kswapd_schedule_out(sys, p);
            kswapd_queue_wakeup(sys, nid, r.ts + KSWAPD_NAP_NS, -1, nullptr);
            return;
        }
        kswapd_start_run(sys, nid, r);  // not balanced, not given up: round again at once
    }
    // The batch's folios scanned and demotion copies are the thread's kernel time, which the
    // engine charges as it runs (its vruntime and system time; kswapd_stime_ns).
    p.kernel_debt += std::max<Nanos>(1, static_cast<Nanos>(std::llround(r.cost_ns)));
}

uint64_t try_to_free_pages(System& sys, int preferred, uint64_t allowed,
                           const ReclaimRequest& req) {
    if (!sys.knobs.demotion_enabled) return 0;
    ++sys.counters.mm_vmscan_direct_reclaim_begin;
    Rq& rq = sys.rqs[static_cast<size_t>(req.cpu)];
    Reclaimer r;
    r.by = ReclaimBy::Direct;
    r.cpu = req.cpu;
    r.task = rq.curr;
    r.ts = rq.clock;
    if (sys.tracer.on(TraceEventId::mm_vmscan_direct_reclaim_begin)) {
        TraceEvent e = reclaim_event(TraceEventId::mm_vmscan_direct_reclaim_begin, r, preferred);
        e.order = req.order;
        e.gfp = req.gfp;
        sys.tracer.emit(e);
    }
    for (int cpu = 0; cpu < static_cast<int>(sys.rqs.size()); ++cpu)
        sys.catch_up_cpu(cpu);
    uint64_t reclaimed = 0;
    for (int nid : sys.mem.zonelist[static_cast<size_t>(preferred)]) {
        if (!((allowed >> nid) & 1)) continue;
        const uint64_t lru = sys.mem.used_pages(nid);
        for (int priority = DEF_PRIORITY; priority >= 0 && reclaimed < SWAP_CLUSTER_MAX;
             --priority) {
            r.priority = priority;
            reclaimed += shrink_node_by(sys, nid, std::max(lru >> priority, SWAP_CLUSTER_MAX),
                                        SWAP_CLUSTER_MAX - reclaimed, r);
        }
        if (reclaimed >= SWAP_CLUSTER_MAX) break;
    }
    ++sys.counters.mm_vmscan_direct_reclaim_end;
    if (sys.tracer.on(TraceEventId::mm_vmscan_direct_reclaim_end)) {
        TraceEvent e = reclaim_event(TraceEventId::mm_vmscan_direct_reclaim_end, r, preferred);
        e.ts += static_cast<Nanos>(r.cost_ns);
        e.n[0] = reclaimed;
        sys.tracer.emit(e);
    }
    // Direct reclaim is the allocating task's own kernel time (its system time).
    const auto ns = static_cast<Nanos>(std::llround(r.cost_ns));
    if (rq.curr) rq.curr->kernel_debt += ns;
    if (rq.curr && sys.latency) sys.latency->record(*rq.curr, LatencyKind::DirectReclaim, ns);
    sys.counters.direct_reclaim_ns += static_cast<uint64_t>(ns);
    return reclaimed;
}

void note_stream_accesses(const AccessStream& s, double bytes) {
    Region& r = *s.region;
    if (r.count == 0 || bytes <= 0) return;
    RegionAccesses& a = r.accesses;
    const double sb = bytes * s.share;
    const auto pages = static_cast<double>(r.count);
    if (s.pattern == Pattern::HotSet && !s.chunk_bytes) {
        const uint64_t hot = hot_pages(s, r.count);
        const double lines = sb / CACHE_LINE_BYTES;
        const double cold_each =
            r.count > hot ? lines * (1 - s.hot_share) / static_cast<double>(r.count - hot) : 0;
        a.hot_pages = std::max(a.hot_pages, hot);
        a.all += cold_each;
        a.hot += lines * s.hot_share / static_cast<double>(hot) - cold_each;
        return;
    }
    const double unit = s.pattern == Pattern::Random && !s.chunk_bytes
                            ? CACHE_LINE_BYTES
                            : static_cast<double>(r.vma->pages.size());
    a.all += sb / unit / pages;
}

void lru_forget_page(System& sys, uint8_t flags, int nid, uint64_t nr) {
    if (flags & PF_ACTIVE) sys.mem.nodes[static_cast<size_t>(nid)].nr_active_anon -= nr;
}

void lru_move_page(System& sys, uint8_t flags, int from, int to, uint64_t nr) {
    if (!(flags & PF_ACTIVE) || from == to) return;
    sys.mem.nodes[static_cast<size_t>(from)].nr_active_anon -= nr;
    sys.mem.nodes[static_cast<size_t>(to)].nr_active_anon += nr;
}

}  // namespace numasim
