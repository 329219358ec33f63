// Scan triggering and scan-period bounds (kernel/sched/fair.c): init_numa_balancing at fork,
// task_tick_numa on every tick, task_scan_min/max/start, update_scan_period on a cross-node move.
// The scan itself (task_numa_work) is in scan_work.cpp.
#include <algorithm>
#include <limits>

#include "mm/mm.h"
#include "numab/internal.h"

namespace numasim {

using namespace numab;

namespace {

// task_nr_scan_windows(): how many scan_size windows the resident set spans (at least one).
unsigned task_nr_scan_windows(const System& sys, const Task& p) {
    const uint64_t nr_scan_pages = uint64_t{sys.knobs.scan_size_mb} << (20 - sys.pages().shift);
    if (nr_scan_pages == 0) return 1;
    uint64_t rss = p.mm ? get_mm_rss(*p.mm) : 0;
    if (!rss) rss = nr_scan_pages;
    rss = (rss + nr_scan_pages - 1) / nr_scan_pages * nr_scan_pages;  // round_up
    return static_cast<unsigned>(rss / nr_scan_pages);
}

}  // namespace

unsigned task_scan_min(const System& sys, const Task& p) {
    const unsigned scan_size = sys.knobs.scan_size_mb;
    unsigned windows = 1;
    if (scan_size && scan_size < static_cast<unsigned>(MAX_SCAN_WINDOW))
        windows = MAX_SCAN_WINDOW / scan_size;
    const unsigned floor = 1000 / windows;  // never scan faster than MAX_SCAN_WINDOW MB/s
    const unsigned scan = sys.knobs.scan_period_min_ms / task_nr_scan_windows(sys, p);
    return std::max(floor, scan);
}

unsigned task_scan_start(const System& sys, const Task& p) {
    const unsigned long smin = task_scan_min(sys, p);
    unsigned long period = smin;
    // A group that shares memory scans more slowly: each member's scans touch the same pages.
    if (const NumaGroup* ng = p.numa_group) {
        const unsigned long shared = group_faults_shared(sys, *ng);
        const unsigned long priv = group_faults_priv(sys, *ng);
        period *= static_cast<unsigned long>(ng->refcount);
        period *= shared + 1;
        period /= priv + shared + 1;
    }
    return static_cast<unsigned>(std::max(smin, period));
}

unsigned task_scan_max(const System& sys, const Task& p) {
    const unsigned long smin = task_scan_min(sys, p);
    unsigned long smax = sys.knobs.scan_period_max_ms / task_nr_scan_windows(sys, p);
    if (const NumaGroup* ng = p.numa_group) {
        const unsigned long shared = group_faults_shared(sys, *ng);
        const unsigned long priv = group_faults_priv(sys, *ng);
        unsigned long period = smax;
        period *= static_cast<unsigned long>(ng->refcount);
        period *= shared + 1;
        period /= priv + shared + 1;
        smax = std::max(smax, period);
    }
    return static_cast<unsigned>(std::max(smin, smax));
}

void init_numa_balancing(System& sys, Task& p, Task* parent, bool clone_vm) {
    // copy_process() calls sched_fork(), and so this, before copy_mm(): p is not yet counted in
    // mm_users, and p->mm is still its creator's (dup_task_struct() copied the pointer). So a
    // single-threaded creator (1 user) restarts its own mm's scan, numa_scan_seq 0 and a new
    // scan delay, however many passes it has made: at its first thread, and at every fork().
    // The stagger below counts the threads before p. An exec'd process's mm is new (0 users,
    // mm_alloc() zeroes it) and starts restarted.
    Mm* mm = parent ? parent->mm : p.mm;
    const int mm_users = mm ? mm->mm_users : 0;
    if (mm && mm_users == (parent ? 1 : 0)) {
        mm->numa_next_scan = jiffies_ns(sys) + msecs_to_jiffies_ns(sys.knobs.scan_delay_ms);
        mm->numa_scan_seq = 0;
        // A fork's child mm is a copy of this one that copy_mm() -> dup_mm() takes after the
        // restart; the model's dup_mm() ran first, so the copy takes the restart here.
        if (p.mm != mm) {
            p.mm->numa_next_scan = mm->numa_next_scan;
            p.mm->numa_scan_seq = 0;
        }
    }
    p.node_stamp = 0;
    p.numa_scan_seq = mm ? mm->numa_scan_seq : 0;
    p.numa_scan_period = sys.knobs.scan_delay_ms;
    p.numa_migrate_retry = 0;
    p.numa_work_pending = false;
    p.numa_faults.clear();
    p.numa_pages_migrated = 0;
    p.total_numa_faults = 0;
    p.numa_group = nullptr;
    p.last_task_numa_placement = 0;
    p.last_sum_exec_runtime = 0;
    std::fill(std::begin(p.numa_faults_locality), std::end(p.numa_faults_locality), 0);

    if (!clone_vm) {
        p.numa_preferred_nid = NUMA_NO_NODE;  // new address space: no preference yet
        return;
    }
    // A new thread keeps its parent's preferred node (arch_dup_task_struct copies it) and
    // staggers its first scan. The kernel's min_t(unsigned int, ...) compares a value in ms
    // (task_scan_max) with one in ns and truncates both to 32 bits; reproduced as is.
    if (parent) p.numa_preferred_nid = parent->numa_preferred_nid;
    if (mm && parent) {
        const uint32_t a = task_scan_max(sys, *parent);
        const uint32_t b = static_cast<uint32_t>(uint64_t{parent->numa_scan_period} *
                                                 static_cast<uint64_t>(mm_users) *
                                                 static_cast<uint64_t>(NSEC_PER_MSEC));
        uint32_t delay = std::min(a, b);
        delay += static_cast<uint32_t>(2 * TICK_NSEC);
        p.node_stamp = delay;
    }
}

Nanos task_tick_numa_deadline(const System& sys, const Task& curr) {
    if (!sys.numa_balancing_enabled() || !curr.mm || curr.exiting() || curr.numa_work_pending)
        return std::numeric_limits<Nanos>::max();
    // A placement policy that looks at memory its own way (kNumaScan) leaves the PTE scanner
    // off, as the IBS posting's task_tick_numa returns at once (one pointer test per tick).
    if (const PlacementPolicy* pol = sys.placement_policy;
        pol && pol->has(PlacementPolicy::kNumaScan)) [[unlikely]]
        return std::numeric_limits<Nanos>::max();
    // Driven by task CPU time, so only tasks that actually run pay for scanning.
    return curr.node_stamp + static_cast<Nanos>(curr.numa_scan_period) * NSEC_PER_MSEC;
}

void task_tick_numa(System& sys, Task& curr) {
    if (curr.sum_exec_runtime <= task_tick_numa_deadline(sys, curr)) return;
    const Nanos period = static_cast<Nanos>(curr.numa_scan_period) * NSEC_PER_MSEC;
    if (!curr.node_stamp) curr.numa_scan_period = task_scan_start(sys, curr);
    curr.node_stamp += period;
    if (!(jiffies_ns(sys) < curr.mm->numa_next_scan)) curr.numa_work_pending = true;
}

void update_scan_period(System& sys, Task& p, int new_cpu) {
    const int src_nid = sys.cpu_to_node(p.cpu);
    const int dst_nid = sys.cpu_to_node(new_cpu);
    if (!sys.numa_balancing_enabled()) return;
    if (!p.mm || p.numa_faults.empty() || p.exiting()) return;
    if (src_nid == dst_nid) return;
    // Before the first completed pass any cross-node move restarts the fast scan; afterwards
    // only a move away from the preferred node does.
    if (p.numa_scan_seq) {
        if (dst_nid == p.numa_preferred_nid ||
            (p.numa_preferred_nid != NUMA_NO_NODE && src_nid != p.numa_preferred_nid))
            return;
    }
    p.numa_scan_period = task_scan_start(sys, p);
}

}  // namespace numasim
