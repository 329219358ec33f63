// Physical memory per node: capacity, free pages and the zone watermarks that decide when an
// allocation falls back to another node and when a NUMA migration target counts as full.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "machine/page_geometry.h"
#include "mm/watermarks.h"

namespace numasim {

// A clock hand over the anon pages of the machine, in address-space order: the mm, the VMA and
// the page it stands before, and how many times it has come round (mm/vmscan.h).
struct LruHand {
    size_t mm = 0, vma = 0;
    uint64_t idx = 0;
    uint64_t pass = 0;
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
    // Reclaim (mm/vmscan.h): the node's anon pages on the active LRU list (PF_ACTIVE), and
    // kswapd's failed runs in a row (pgdat->kswapd_failures; at MAX_RECLAIM_RETRIES it is left
    // asleep until a reclaim elsewhere frees a page of the node).
    uint64_t nr_active_anon = 0;
    int kswapd_failures = 0;
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
