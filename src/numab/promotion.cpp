// Memory tiering's hot-page selection (kernel/sched/fair.c, v6.0 to v6.12): which slow-tier
// folios a hinting fault promotes to the faulting CPU's node. The scan stores its time in the
// folio's cpupid field (change_prot_numa); the fault takes the time since then as the page's
// hint-fault latency and promotes a page whose latency is under the target node's threshold,
// within the target's promotion rate limit, or any page while the target has plenty of free
// memory. docs/tiering.md, "Step 2: promotion".
#include <algorithm>
#include <bit>

#include "mm/pghot.h"
#include "numab/internal.h"

namespace numasim {

using namespace numab;

namespace {

constexpr unsigned MSEC_PER_SEC = 1000;
// The threshold moves in steps of 2 * hot_threshold / 16 (NUMA_MIGRATION_ADJUST_STEPS).
constexpr unsigned NUMA_MIGRATION_ADJUST_STEPS = 16;
// pgdat_free_space_enough(): at least 1 GiB (or 1/16 of the node) free above WMARK_PROMO.
constexpr uint64_t PROMO_FREE_SPACE_MIN_BYTES = uint64_t{1} << 30;
constexpr unsigned PROMO_FREE_SPACE_NODE_SHIFT = 4;

}  // namespace

unsigned jiffies_to_msecs(const System& sys) {
    // An unsigned int in the kernel: it wraps every 2^32 ms (49.7 days).
    return static_cast<unsigned>(static_cast<uint64_t>(sys.jiffies()) * (MSEC_PER_SEC / HZ));
}

unsigned folio_xchg_access_time(PageFrame& f, unsigned time_ms) {
    const cpupid_t last = f.last_cpupid();
    f.set_last_cpupid((time_ms >> PAGE_ACCESS_TIME_BUCKETS) & LAST_CPUPID_MASK);
    return last << PAGE_ACCESS_TIME_BUCKETS;
}

unsigned numa_hint_fault_latency(const System& sys, PageFrame& f) {
    const unsigned now = jiffies_to_msecs(sys);
    const unsigned last = folio_xchg_access_time(f, now);
    return (now - last) & PAGE_ACCESS_TIME_MASK;
}

bool pgdat_free_space_enough(const System& sys, int nid) {
    const NodeMemory& m = sys.mem.nodes[static_cast<size_t>(nid)];
    const uint64_t enough = std::max(PROMO_FREE_SPACE_MIN_BYTES >> sys.pages().shift,
                                     m.present_pages >> PROMO_FREE_SPACE_NODE_SHIFT);
    // zone_watermark_ok(zone, 0, mark, ZONE_MOVABLE, 0) of the node's one zone, which has no
    // lowmem reserve against a zone above it.
    return m.present_pages && m.free_pages > m.wmark_promo + enough;
}

bool numa_promotion_rate_limit(System& sys, int nid, uint64_t rate_limit, uint64_t nr) {
    return promotion_rate_limit_at(sys, nid, rate_limit, nr, jiffies_to_msecs(sys));
}

bool promotion_rate_limit_at(System& sys, int nid, uint64_t rate_limit, uint64_t nr, unsigned now) {
    NodeMemory& pgdat = sys.mem.nodes[static_cast<size_t>(nid)];
    uint64_t& nr_cand = sys.counters.pgpromote_candidate[static_cast<size_t>(nid)];
    nr_cand += nr;
    if (now - pgdat.nbp_rl_start > MSEC_PER_SEC) {  // a new one-second window
        pgdat.nbp_rl_start = now;
        pgdat.nbp_rl_nr_cand = nr_cand;
    }
    return nr_cand - pgdat.nbp_rl_nr_cand >= rate_limit;
}

void numa_promotion_adjust_threshold(System& sys, int nid, uint64_t rate_limit, unsigned ref_th) {
    promotion_adjust_threshold_over(sys, nid, rate_limit, ref_th, sys.knobs.scan_period_max_ms,
                                    jiffies_to_msecs(sys));
}

void promotion_adjust_threshold_over(System& sys, int nid, uint64_t rate_limit, unsigned ref_th,
                                     unsigned th_period, unsigned now) {
    NodeMemory& pgdat = sys.mem.nodes[static_cast<size_t>(nid)];
    if (now - pgdat.nbp_th_start <= th_period) return;
    pgdat.nbp_th_start = now;
    // The candidates the rate limit would let through in one period, against those counted.
    const uint64_t ref_cand = rate_limit * th_period / MSEC_PER_SEC;
    const uint64_t nr_cand = sys.counters.pgpromote_candidate[static_cast<size_t>(nid)];
    const uint64_t diff_cand = nr_cand - pgdat.nbp_th_nr_cand;
    const unsigned unit_th = ref_th * 2 / NUMA_MIGRATION_ADJUST_STEPS;
    unsigned th = pgdat.nbp_threshold ? pgdat.nbp_threshold : ref_th;
    if (diff_cand > ref_cand * 11 / 10)  // above 110%: a lower threshold lets fewer through
        th = std::max(th - unit_th, unit_th);
    else if (diff_cand < ref_cand * 9 / 10)  // below 90%: room for more
        th = std::min(th + unit_th, ref_th * 2);
    pgdat.nbp_th_nr_cand = nr_cand;
    pgdat.nbp_threshold = th;
}

bool numa_promote_hot_folio(System& sys, PageFrame& f, int dst_nid, uint64_t nr) {
    // With pghot the fault only reports the access; kmigrated decides (mm/pghot.h).
    if (pghot_active(sys)) return true;
    NodeMemory& pgdat = sys.mem.nodes[static_cast<size_t>(dst_nid)];
    if (pgdat_free_space_enough(sys, dst_nid)) {
        pgdat.nbp_threshold = 0;  // the workload changed: start the threshold over
        return true;
    }
    const unsigned def_th = sys.knobs.numa_balancing_hot_threshold_ms;
    // MB/s in pages: << (20 - PAGE_SHIFT).
    const uint64_t rate_limit = uint64_t{sys.knobs.numa_balancing_promote_rate_limit_MBps}
                                << (20 - sys.pages().shift);
    numa_promotion_adjust_threshold(sys, dst_nid, rate_limit, def_th);
    const unsigned th = pgdat.nbp_threshold ? pgdat.nbp_threshold : def_th;
    if (numa_hint_fault_latency(sys, f) >= th) return false;
    return !numa_promotion_rate_limit(sys, dst_nid, rate_limit, nr);
}

}  // namespace numasim
