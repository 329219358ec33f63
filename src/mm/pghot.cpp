#include "mm/pghot.h"

#include <algorithm>

#include "kernel/system.h"
#include "mm/migrate.h"
#include "numab/numab.h"

namespace numasim {

bool pghot_active(const System& sys) {
    return sys.knobs.pghot && sys.knobs.tiering_mode() && sys.has_slow_tier;
}

uint8_t pghot_phi(const PageFrame& f) {
    // The inverted cpupid is 0 for CPUPID_UNSET, the field of a page never tagged or reset by a
    // migration across the top-tier boundary: no record.
    return static_cast<uint8_t>(f.inv_cpupid);
}

void pghot_set_phi(PageFrame& f, uint8_t phi) {
    f.inv_cpupid = phi;
}

namespace {

// The first of kmigrated's timer wakeups, every kmigrated_sleep_ms from the start of the run,
// at or after `t`.
Nanos timer_at_or_after(const System& sys, Nanos t) {
    const Nanos period = msecs_to_ns(sys.knobs.kmigrated_sleep_ms);
    return (t + period - 1) / period * period;
}

}  // namespace

void pghot_record_access(System& sys, Vma& vma, uint64_t idx, int nid, PghotSrc src) {
    Counters& c = sys.counters;
    if (src == PghotSrc::HintFaults)
        ++c.pghot_recorded_hintfaults;
    else
        ++c.pghot_recorded_hwhints;
    PageFrame& f = vma.frame(idx);
    const int src_nid = f.nid;
    if (src_nid == nid || sys.node_is_toptier(src_nid)) return;  // only lower-tier accesses
    if (f.flags & PF_LRU_PENDING) return;                        // !folio_test_lru
    ++c.pghot_recorded_accesses;
    uint8_t phi = pghot_phi(f);
    const bool was_ready = phi & (1u << PGHOT_MIGRATE_READY);
    const bool ready =
        pghot_update_record(phi, static_cast<uint64_t>(sys.jiffies()),
                            sys.knobs.pghot_promote_freq_window_ms, sys.knobs.pghot_freq_threshold);
    pghot_set_phi(f, phi);
    if (!ready) return;
    if (sys.pghot.nodes.size() < static_cast<size_t>(sys.nr_nodes()))
        sys.pghot.nodes.resize(static_cast<size_t>(sys.nr_nodes()));
    PghotNode& node = sys.pghot.nodes[static_cast<size_t>(src_nid)];
    // kmigrated wakes on its timer every kmigrated_sleep_ms (wait_event_timeout() with nothing
    // waking it early) and finds the flag at the first wakeup after it was set.
    if (!node.activate) node.next_wake = std::max(node.next_wake, timer_at_or_after(sys, sys.now));
    node.activate = true;
    if (!was_ready) node.ready.push_back({vma.mm, vma.start, idx});
}

bool kmigrated_should_migrate_memory(System& sys, uint64_t nr, int nid, unsigned time) {
    const unsigned now_ms = jiffies_to_msecs(sys);
    NodeMemory& pgdat = sys.mem.nodes[static_cast<size_t>(nid)];
    if (pgdat_free_space_enough(sys, nid)) {
        pgdat.nbp_threshold = 0;  // the workload changed: start the threshold over
        sys.counters.pgpromote_candidate_nrl += nr;
        return true;
    }
    // The series measures the latency from the last recorded access, not from a scan, and takes
    // the frequency window as its reference threshold (numa_balancing_hot_threshold_ms is gone).
    const unsigned def_th = sys.knobs.pghot_promote_freq_window_ms;
    const uint64_t rate_limit = uint64_t{sys.knobs.numa_balancing_promote_rate_limit_MBps}
                                << (20 - sys.pages().shift);
    promotion_adjust_threshold_over(sys, nid, rate_limit, def_th,
                                    KMIGRATED_PROMOTION_THRESHOLD_WINDOW, now_ms);
    const unsigned th = pgdat.nbp_threshold ? pgdat.nbp_threshold : def_th;
    if (pghot_access_latency(time, static_cast<uint64_t>(sys.jiffies())) >= th) return false;
    return !promotion_rate_limit_at(sys, nid, rate_limit, nr, now_ms);
}

namespace {

// The VMA of `mm` that starts at `start`, if it is still mapped.
Vma* vma_at(Mm& mm, uint64_t start) {
    auto it =
        std::lower_bound(mm.vmas.begin(), mm.vmas.end(), start,
                         [](const std::unique_ptr<Vma>& v, uint64_t s) { return v->start < s; });
    return it != mm.vmas.end() && (*it)->start == start ? it->get() : nullptr;
}

struct Candidate {
    Vma* vma;
    uint64_t idx, nr;
};

// promote_misplaced_memcg_folios(): one migrate_pages() call for the batch, to `target`. The
// folios passed migrate_misplaced_folio_prepare() together, so the target's free memory may run
// out part way: the rest fail.
void promote_batch(System& sys, std::vector<Candidate>& batch, int target, int cpu) {
    if (batch.empty()) return;
    ++sys.counters.mm_migrate_pages;
    for (const Candidate& c : batch)
        migrate_kmigrated_folio(sys, *c.vma, c.idx, c.nr, target, cpu);
    batch.clear();
}

// kmigrated_do_work() for slow-tier node `nid`: every folio whose record is ready, in the order
// the records became so.
void kmigrated_do_work(System& sys, int nid) {
    PghotNode& node = sys.pghot.nodes[static_cast<size_t>(nid)];
    node.activate = false;
    std::vector<PghotRef> refs;
    refs.swap(node.ready);
    const int target = PGHOT_DEFAULT_NODE;  // default mode: debugfs pghot/target_nid
    // The thread of a CPU-less node may run on any CPU; its allocations count as made from the
    // target's CPUs (numa_local), the socket the promoted pages are for.
    const int cpu = sys.topo.nodes[static_cast<size_t>(target)].cpus.empty()
                        ? 0
                        : sys.topo.nodes[static_cast<size_t>(target)].cpus.front();
    std::vector<Candidate> batch;
    for (const PghotRef& r : refs) {
        Vma* vma = vma_at(*r.mm, r.vma_start);
        if (!vma || r.idx >= vma->nr_pages() || !vma->present.test(r.idx)) continue;
        PageFrame& f = vma->frame(r.idx);
        if (!(f.flags & PF_ALLOC) || f.nid != nid || (f.flags & PF_LRU_PENDING)) continue;
        uint8_t phi = pghot_phi(f);
        unsigned freq = 0, time = 0;
        if (!pghot_get_record(phi, freq, time)) continue;
        pghot_set_phi(f, phi);
        if (f.nid == target) continue;
        // The record is the folio's first page's (a PMD-mapped THP's block start).
        uint64_t block = 0;
        const bool huge = vma->pmd_mapped_at(r.idx, block);
        const uint64_t first = huge ? block : r.idx;
        const uint64_t nr = huge ? vma->pages.pmd_nr() : 1;
        if (!kmigrated_should_migrate_memory(sys, nr, target, time)) continue;
        if (migrate_misplaced_folio_prepare(sys, *vma, first, nr, target, cpu) != MIGRATE_OK)
            continue;
        batch.push_back({vma, first, nr});
        // The series flushes once the count passes the batch size.
        if (batch.size() > sys.knobs.kmigrated_batch_nr) promote_batch(sys, batch, target, cpu);
    }
    promote_batch(sys, batch, target, cpu);
}

}  // namespace

bool kmigrated_due(const System& sys) {
    if (!pghot_active(sys)) return false;
    for (const PghotNode& n : sys.pghot.nodes)
        if (n.activate && sys.now >= n.next_wake) return true;
    return false;
}

void kmigrated_tick(System& sys) {
    if (!pghot_active(sys)) return;
    for (int nid = 0; nid < static_cast<int>(sys.pghot.nodes.size()); ++nid) {
        PghotNode& node = sys.pghot.nodes[static_cast<size_t>(nid)];
        if (!node.activate || sys.now < node.next_wake) continue;
        kmigrated_do_work(sys, nid);
        node.next_wake = timer_at_or_after(sys, sys.now + 1);
    }
}

}  // namespace numasim
