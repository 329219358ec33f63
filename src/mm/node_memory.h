// Physical memory per node: capacity, free pages and the zone watermarks that decide when an
// allocation falls back to another node and when a NUMA migration target counts as full.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "machine/page_geometry.h"
#include "mm/watermarks.h"
#include "sim/clock.h"

namespace numasim {

// A clock hand over the anon pages of the machine, in address-space order: the mm, the VMA and
// the page it stands before, and how many times it has come round (mm/vmscan.h).
struct LruHand {
    size_t mm = 0, vma = 0;
    uint64_t idx = 0;
    uint64_t pass = 0;
};

// kswapd's kernel thread of a node (mm/vmscan.h): where it is in its loop of kswapd() and, while
// it runs, in balance_pgdat(). Asleep: on pgdat->kswapd_wait, for wakeup_kswapd() to wake.
// Woken: woken (or waking), its next run not begun. Running: a balance_pgdat() run under way,
// one SWAP_CLUSTER_MAX batch at a time. Napping: kswapd_try_to_sleep()'s short sleep (HZ/10)
// before the full one, during which a wakeup sends it back to work. The thread itself is a task
// on the runqueues (System::kswapd); this is where its loop is.
enum class KswapdState : uint8_t { Asleep, Woken, Running, Napping };

struct Task;

struct KswapdThread {
    KswapdState state = KswapdState::Asleep;
    int priority = 0;  // sc.priority of the run
    // The pass at that priority (one shrink_node() call): begun or not, and its targets and
    // progress.
    bool pass_open = false;
    uint64_t pass_to_scan = 0, pass_to_reclaim = 0, pass_scanned = 0, pass_reclaimed = 0;
    uint64_t run_reclaimed = 0;  // sc.nr_reclaimed of the run
    // Who wakes it at its queued EV_KSWAPD_WAKEUP: the CPU and task that called
    // wakeup_kswapd(), or (CPU -1) the nap's timer.
    int waker_cpu = -1;
    Task* waker = nullptr;
};

struct NodeMemory {
    uint64_t present_pages = 0;
    uint64_t free_pages = 0;
    // The node's one zone's marks (mm/watermarks.h).
    uint64_t wmark_min = 0, wmark_low = 0, wmark_high = 0, wmark_promo = 0;
    // Memory tiering's promotion state of the node as a promotion target (struct pglist_data,
    // v6.0+): the adjusted hot threshold in ms (0: the knob's), the start (ms) of its adjustment
    // period and of its rate-limit window, and pgpromote_candidate as each began.
    unsigned nbp_threshold = 0;
    unsigned nbp_th_start = 0;
    uint64_t nbp_th_nr_cand = 0;
    unsigned nbp_rl_start = 0;
    uint64_t nbp_rl_nr_cand = 0;
    // Reclaim (mm/vmscan.h): the node's anon pages on the active LRU list (PF_ACTIVE),
    // kswapd's failed runs in a row (pgdat->kswapd_failures; at MAX_RECLAIM_RETRIES it is left
    // asleep until a reclaim elsewhere frees a page of the node) and its thread.
    uint64_t nr_active_anon = 0;
    int kswapd_failures = 0;
    KswapdThread kswapd;
    LruHand inactive_hand, active_hand;  // the lists' tails
    // Pages demoted from this node, by every reclaimer: the node's pgdemote_kswapd +
    // pgdemote_direct + pgdemote_khugepaged (node stats from v6.11, counted on the source).
    uint64_t pgdemote = 0;
};

struct PhysMem {
    std::vector<NodeMemory> nodes;
    // Nodes in order of increasing distance from each node (the zonelist).
    std::vector<std::vector<int>> zonelist;

    // Pages and watermarks in base pages of `pages`, the marks `scale_factor` apart
    // (watermark_scale_factor).
    void init(const std::vector<uint64_t>& node_bytes,
              const std::vector<std::vector<int>>& distance, const PageGeometry& pages,
              uint64_t scale_factor = WATERMARK_SCALE_FACTOR);
    uint64_t used_pages(int nid) const { return nodes[nid].present_pages - nodes[nid].free_pages; }
};

}  // namespace numasim
