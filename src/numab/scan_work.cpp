// task_numa_work(): one scan window over the address space (kernel/sched/fair.c), run on the
// return to user mode after task_tick_numa() queued it. Which VMAs are eligible depends on the
// release (knobs.vma_scan):
//   All               <= v6.3: every suitable VMA, no per-VMA state.
//   PidsActive        v6.6: skip VMAs the task did not fault in; no prev_scan_seq, no retry.
//   PidsActiveForced  v6.7+: also "seq_completed", finish partial VMAs, and when only
//                     pid-inactive VMAs are left, force a scan of one of them.
//   FourPass          experimental, after Mel Gorman's suggestion in seed posting 002: the
//                     retry goes through levels like fbq_type: 1 task-active (vma_is_accessed),
//                     2 VMAs with >= 2 pids_active bits, 3 any bit set, 4 inactive (one VMA,
//                     as the v6.7 forced pass). A level is tried only when the previous one ran
//                     off the end of the VMA list having skipped something.
#include <algorithm>
#include <bit>

#include "cost/constants.h"
#include "kernel/latency.h"
#include "mm/mm.h"
#include "numab/internal.h"
#include "numab/pids_telemetry.h"

namespace numasim {

using namespace numab;

bool numab::vma_suitable(const Task& p, const Vma& vma) {
    if (vma.vm_flags & (VM_IO | VM_PFNMAP | VM_HUGETLB | VM_MIXEDMAP)) return false;
    return vma_policy_mof(p, vma);
}

bool numab::vma_is_accessible(const Vma& vma) {
    return vma.vm_flags & (VM_READ | VM_WRITE | VM_EXEC);
}

namespace {

int popcount_pids(const VmaNumabState& ns) {
    int n = 0;
    for (int w = 0; w < 2; ++w)
        n += std::popcount(ns.pids_active[0][w] | ns.pids_active[1][w]);
    return n;
}

void age_pids(System& sys, Vma& vma, Nanos reset_period) {
    VmaNumabState& ns = *vma.numab_state;
    ns.pids_active_reset += reset_period;
    ns.pids_active[0][0] = ns.pids_active[1][0];
    ns.pids_active[0][1] = ns.pids_active[1][1];
    ns.pids_active[1][0] = ns.pids_active[1][1] = 0;
    pids_window_sample(sys, vma);
}

// Highest eligibility level a mode may retry at (see the file comment).
int max_level(VmaScanSelection s) {
    switch (s) {
        case VmaScanSelection::PidsActiveForced:
            return 2;
        case VmaScanSelection::FourPass:
            return 4;
        default:
            return 1;
    }
}

// Whether a VMA that failed vma_is_accessed() qualifies at `level`; the last level forces.
bool eligible_at_level(const System& sys, const Vma& vma, int level) {
    if (level >= max_level(sys.knobs.vma_scan)) return true;
    const int bits = popcount_pids(*vma.numab_state);
    if (level == 2) return bits >= 2;
    if (level == 3) return bits >= 1;
    return false;
}

}  // namespace

double task_numa_work(System& sys, Task& p) {
    p.numa_work_pending = false;
    if (p.exiting() || !p.mm) return 0;
    Mm& mm = *p.mm;
    const NumaBalancingKnobs& k = sys.knobs;
    const Nanos now = jiffies_ns(sys);

    if (!mm.numa_next_scan) mm.numa_next_scan = now + msecs_to_jiffies_ns(k.scan_delay_ms);
    if (now < mm.numa_next_scan) return 0;  // per-mm rate limit
    if (p.numa_scan_period == 0) {
        p.numa_scan_period_max = task_scan_max(sys, p);
        p.numa_scan_period = task_scan_start(sys, p);
    }
    // The kernel's cmpxchg on numa_next_scan lets one thread win; in the simulator threads run
    // their task work one at a time, so the first one past the gate always wins.
    mm.numa_next_scan = now + msecs_to_jiffies_ns(p.numa_scan_period);
    p.node_stamp += 2 * TICK_NSEC;  // let a sibling thread win next time

    long pages = static_cast<long>(k.scan_size_mb) << (20 - mm.pages.shift);
    long virtpages = pages * 8;  // cap on the virtual range walked per window
    if (!pages) return 0;

    const bool has_numab = k.vma_scan != VmaScanSelection::All;
    const bool forced_rules = k.vma_scan == VmaScanSelection::PidsActiveForced ||
                              k.vma_scan == VmaScanSelection::FourPass;
    const Nanos delay = msecs_to_jiffies_ns(k.scan_delay_ms);
    const Nanos reset_period =
        msecs_to_jiffies_ns(int64_t{VMA_PID_RESET_PERIOD_DELAYS} * k.scan_delay_ms);
    double kernel_ns = 0;
    int level = 1;
    bool stopped_in_vma = false;  // the kernel's "vma != NULL" at out:
    uint64_t start = 0;

    for (;;) {  // retry_pids:
        bool pids_skipped = false;
        start = mm.numa_scan_offset;
        size_t vi = 0;
        while (vi < mm.vmas.size() && mm.vmas[vi]->end <= start)
            ++vi;
        if (vi == mm.vmas.size()) {
            reset_ptenuma_scan(p);
            start = 0;
            vi = 0;
        }
        for (; vi < mm.vmas.size(); ++vi) {
            Vma& vma = *mm.vmas[vi];
            if (!vma_suitable(p, vma)) {
                trace_sched_skip_vma_numa(sys, p, mm, vma, SkipVmaReason::Unsuitable);
                continue;
            }
            // Shared libraries, text and the vDSO: read-only file mappings are not worth it.
            if (!vma.mm || (vma.is_file() && (vma.vm_flags & (VM_READ | VM_WRITE)) == VM_READ)) {
                trace_sched_skip_vma_numa(sys, p, mm, vma, SkipVmaReason::SharedRo);
                continue;
            }
            // PROT_NONE VMAs would be confused with NUMA hinting PTEs.
            if (!vma_is_accessible(vma)) {
                trace_sched_skip_vma_numa(sys, p, mm, vma, SkipVmaReason::Inaccessible);
                continue;
            }
            if (has_numab) {
                if (!vma.numab_state) {
                    VmaNumabState ns;
                    ns.start_scan_seq = mm.numa_scan_seq;
                    ns.next_scan = now + delay;  // new VMAs of short-lived tasks wait
                    ns.pids_active_reset = ns.next_scan + reset_period;
                    ns.prev_scan_seq = mm.numa_scan_seq - 1;  // not "completed" on first sight
                    vma.numab_state = ns;
                }
                VmaNumabState& ns = *vma.numab_state;
                if (mm.numa_scan_seq && now < ns.next_scan) {
                    trace_sched_skip_vma_numa(sys, p, mm, vma, SkipVmaReason::ScanDelay);
                    continue;
                }
                if (k.pid_reset_before_check && mm.numa_scan_seq && now > ns.pids_active_reset)
                    age_pids(sys, vma, reset_period);
                if (forced_rules && ns.prev_scan_seq == mm.numa_scan_seq) {
                    mm.numa_scan_offset = vma.end;
                    trace_sched_skip_vma_numa(sys, p, mm, vma, SkipVmaReason::SeqCompleted);
                    continue;
                }
                const bool accessed = level == 1 ? vma_is_accessed(sys, mm, vma, p)
                                                 : eligible_at_level(sys, vma, level);
                if (!accessed) {
                    pids_skipped = true;
                    trace_sched_skip_vma_numa(sys, p, mm, vma, SkipVmaReason::PidInactive);
                    continue;
                }
                // v6.6 aged the bitmap only after the access test, so as not to forget the
                // accessors before looking at them.
                if (!k.pid_reset_before_check && mm.numa_scan_seq && now > ns.pids_active_reset)
                    age_pids(sys, vma, reset_period);
            }

            uint64_t end;
            do {
                start = std::max(start, vma.start);
                const uint64_t pmd = vma.pages.pmd_size();
                end = (start + (static_cast<uint64_t>(pages) << vma.pages.shift) + pmd - 1) &
                      ~(pmd - 1);
                end = std::min(end, vma.end);
                const unsigned long n = change_prot_numa(sys, p, vma, start, end, kernel_ns);
                // Only chunks that changed PTEs use the budget; empty or already-protnone
                // ranges are skipped through, up to virtpages.
                const long span = static_cast<long>((end - start) >> vma.pages.shift);
                if (n) pages -= span;
                virtpages -= span;
                start = end;
                if (pages <= 0 || virtpages <= 0) {
                    stopped_in_vma = true;
                    goto out;
                }
            } while (end != vma.end);

            if (has_numab) vma.numab_state->prev_scan_seq = mm.numa_scan_seq;
            // The forcing level scans a single VMA, to bound the cost of an uninteresting one.
            if (level > 1 && level == max_level(k.vma_scan)) {
                stopped_in_vma = true;
                goto out;
            }
        }
        if (has_numab && pids_skipped && level < max_level(k.vma_scan)) {
            ++level;
            continue;
        }
        break;
    }
out:
    if (stopped_in_vma)
        mm.numa_scan_offset = start;
    else
        reset_ptenuma_scan(p);
    // At least 32x the scan's CPU time must pass in other code before this task scans again:
    // caps the PTE-scanning overhead at about 3 %.
    if (kernel_ns > 0) p.node_stamp += static_cast<Nanos>(32 * kernel_ns);
    return kernel_ns;
}

void task_work_run(System& sys, Task& p) {
    const auto ns = static_cast<Nanos>(task_numa_work(sys, p));
    p.kernel_debt += ns;
    p.numa_work_pending = false;
    if (sys.latency) sys.latency->record(p, LatencyKind::NumaWork, ns);
}

}  // namespace numasim
