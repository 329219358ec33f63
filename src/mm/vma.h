// Virtual memory areas and what backs them.
//
// A MemObject holds the frames that mappings share: an anonymous region's pages (shared after
// fork until written) or a file's page cache. A Vma maps a window of one object into one mm and
// keeps the per-mapping page-table state as bitmaps: which pages are present, which are PROT_NONE
// for NUMA hinting, and which PMD-sized blocks are PMD-mapped THPs. A private mapping whose page
// was shared and then written gets its own frame in the `own` object (copy-on-write).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "mm/huge_clear.h"
#include "mm/lru_index.h"
#include "mm/mempolicy.h"
#include "mm/page.h"
#include "sim/bitmap.h"
#include "sim/clock.h"

namespace numasim {

struct Mm;
struct Vma;

// Changes whenever the per-node page counts it sits next to change, to a value no other counts
// have had: whoever derives something from the counts (the cost model's per-CPU memory demand,
// cost/cost_model.h) keeps the stamp with it and derives again only when the stamp differs. The
// high half is drawn once per owner from a process-wide counter and the low half counts the
// owner's changes, so an owner allocated where a freed one was does not take up its values.
struct PlacementStamp {
    uint64_t value = fresh();
    void bump() {
        ++value;
        ++epoch;
    }
    static uint64_t fresh();
    // Moves with every stamp of the simulation running on this thread (a run stays on the
    // thread it started on): while it holds still, no placement changed anywhere, and the cost
    // model may keep what it derived from placements without looking at a single stamp.
    static inline thread_local uint64_t epoch = 0;
};

// Moves whenever some region may have become one that touching can fault on again: pages
// unmapped or made PROT_NONE, a mapping unmapped, a private mapping that starts keeping copies
// (fork, a private write to a file page). While it holds still, a region once found with every
// page present and none PROT_NONE stays so, and so does one whose mapping also owns every page
// of it (a private copy is never given back but at fork); the engine's deferred ticks rely on
// it (engine/page_walk.h, region_quiet). Per host thread, like PlacementStamp::epoch.
struct QuietStamp {
    static inline thread_local uint64_t epoch = 0;
    static void bump() { ++epoch; }
};

// vm_flags, with the kernel's bit values where the kernel has them (include/linux/mm.h).
inline constexpr uint32_t VM_READ = 0x1;
inline constexpr uint32_t VM_WRITE = 0x2;
inline constexpr uint32_t VM_EXEC = 0x4;
inline constexpr uint32_t VM_SHARED = 0x8;
inline constexpr uint32_t VM_MAYWRITE = 0x20;
inline constexpr uint32_t VM_GROWSDOWN = 0x100;  // the main stack ([stack])
inline constexpr uint32_t VM_IO = 0x4000;
inline constexpr uint32_t VM_HUGETLB = 0x400000;
inline constexpr uint32_t VM_PFNMAP = 0x400;
inline constexpr uint32_t VM_MIXEDMAP = 0x10000000;
inline constexpr uint32_t VM_HUGEPAGE = 0x20000000;    // madvise(MADV_HUGEPAGE) (mm/huge_memory.h)
inline constexpr uint32_t VM_NOHUGEPAGE = 0x40000000;  // madvise(MADV_NOHUGEPAGE)
inline constexpr uint32_t VM_FILE = 0x80000000;        // simulator: vm_file != NULL

// The per-node totals of one range of a shared object's pages, kept in the object for every
// mapping whose regions (or VMA window) cover exactly that range. A page of an object that many
// processes map (after fork: cowsum's 288 processes on one data section) moves the counts of
// every mapping that maps it alike, so its migration is counted once here instead of once per
// mapping. `moved[n]` is the pages that came to node n minus those that left it, modulo 2^64; a
// mapping's count on node n is its own part (Region::node_pages, Vma::node_pages) plus
// moved[n]. A mapping that covers a moved page without mapping it from the object (not faulted
// in, or privately copied) has the move taken back out of its own part (mm/migrate.cpp).
struct ObjectRangeTotals {
    uint64_t first = 0, count = 0;  // object pages [first, first + count)
    std::vector<uint64_t> moved;    // per node
    unsigned window_mappers = 0;    // VMAs whose window is exactly this range
    PlacementStamp stamp;           // of `moved`
};

struct MemObject {
    explicit MemObject(uint64_t pages, bool is_file);
    ~MemObject();
    MemObject(const MemObject&) = delete;
    MemObject& operator=(const MemObject&) = delete;

    // Before `frames`, which sets it: bytes of `frames` if mmap'd, 0 if calloc'd.
    size_t frames_mapped = 0;
    // Zero-filled on demand by the host: untouched memory costs no resident host memory.
    PageFrame* frames;
    uint64_t nr_pages;
    bool is_file;
    std::vector<Vma*> mappers;  // reverse map: every VMA that maps this object
    // The object pages [first, end) that mappers[k] maps, at index k: a walk over the reverse
    // map finds the mappings that hold a page here, contiguously, instead of in each VMA (a
    // process image's file has one mapping per section, and only one of them holds the page).
    struct Window {
        uint64_t first, end;
        bool holds(uint64_t obj) const { return obj >= first && obj < end; }
        bool operator==(const Window&) const = default;
    };
    std::vector<Window> windows;
    std::vector<std::unique_ptr<ObjectRangeTotals>> range_totals;
    // The mappers that the last full walk of a page move found covering pages they do not map
    // from the object (account_move in mm/migrate.cpp), in reverse-map order. Only a guess for
    // the next move, checked against the pages' mapcounts before it is used; emptied when a
    // mapper goes, so that it never names a freed VMA.
    std::vector<Vma*> unmapped_hint;
    // The anon LRU lists' pages among the frames, per node reclaim has walked (mm/lru_index.h).
    LruIndex lru;

    // Adds `v` to the reverse map and links it to the totals of its window (Vma::shared).
    void add_mapper(Vma& v, int nr_nodes);
    // Adds `v` to the reverse map only (mappers and windows), its totals left its own.
    void list_mapper(Vma& v);
    void remove_mapper(Vma& v);
    // The totals of [first, first + count), made on first use.
    ObjectRangeTotals* totals_for(uint64_t first, uint64_t count, int nr_nodes);
};

// What reclaim knows of the accesses to a region's pages (mm/vmscan.h), from the streams' rates:
// the accesses each of its pages is expected to have had so far (`all`), and the extra of each
// page of its hot part, its first `hot_pages` pages (a hot-set stream's). Per node, a scan of the
// node's inactive list takes what was added since its last pass over the region, once a pass.
struct RegionAging {
    uint64_t pass = ~uint64_t{0};
    double seen_all = 0, seen_hot = 0;  // `all` and `hot` at that pass
    double win_all = 0, win_hot = 0;    // added between the pass before and that one
};
struct RegionAccesses {
    double all = 0, hot = 0;
    uint64_t hot_pages = 0;
    std::vector<RegionAging> by_node;
};

// A range of a VMA that a workload's access streams touch, with running totals that the cost
// model reads every tick instead of walking pages.
struct Region {
    std::string name;
    Vma* vma = nullptr;
    uint64_t first = 0;  // page index within the VMA
    uint64_t count = 0;  // pages
    // Present pages per node: this mapping's part, to which `shared` adds the moves of the
    // object's pages that every mapping saw. Read them with pages_on().
    std::vector<uint64_t> node_pages;
    ObjectRangeTotals* shared = nullptr;
    uint64_t present = 0;
    uint64_t protnone = 0;
    PlacementStamp stamp;  // of node_pages and present (`shared` has its own)
    RegionAccesses accesses;

    uint64_t pages_on(int nid) const {
        const size_t n = static_cast<size_t>(nid);
        return node_pages[n] + (shared ? shared->moved[n] : 0);
    }

    bool contains(uint64_t idx) const { return idx >= first && idx < first + count; }
    uint64_t bytes() const;  // count pages of the VMA's size
};

// Per-VMA NUMA-scan state (struct vma_numab_state). pids_active holds up to 128 bits per slot so
// the bitmap-size switch can compare 64 and 128.
struct VmaNumabState {
    Nanos next_scan = 0;
    Nanos pids_active_reset = 0;
    uint64_t pids_active[2][2] = {{0, 0}, {0, 0}};
    int start_scan_seq = 0;
    int prev_scan_seq = 0;
    // Simulator telemetry, not kernel state: the distinct pids that set a bit in the current
    // pids_active window, to measure hash collisions (switch (d), numab/pids_telemetry.h).
    std::vector<int> pids_window;
};

struct Vma {
    Mm* mm = nullptr;
    PageGeometry pages;  // mm->pages, here for the inline page arithmetic below
    std::string name;
    uint64_t start = 0, end = 0;  // virtual addresses, page aligned, [start, end)
    uint32_t vm_flags = 0;
    std::optional<MemPolicy> policy;  // mbind policy; nullopt falls back to the task's

    std::shared_ptr<MemObject> object;  // frames shared with other mappings
    uint64_t pgoff = 0;                 // first page of the object mapped here
    // This mapping's private frames after COW, and the pages whose frame lives there. A fork
    // sizes own_mask for every private mapping, but `own` is made with its first page
    // (own_object()): most of a process image's mappings never copy one, and 288 forks of it
    // would otherwise clear and keep frames for all of them.
    std::shared_ptr<MemObject> own;
    Bitmap own_mask;
    MemObject& own_object();

    // Nodes of the lines an rmap walk reads for this mapping (cost/constants.h, RMAP_STEP_*):
    // `mapping_nid` holds the vm_area_struct, mm_struct and upper page-table levels, made by the
    // forking CPU for a forked mm; `pte_nid` the PTE pages, made by the first fault (or by the
    // fork that copied present PTEs). -1: not known (a mapping made outside a fork takes
    // pte_nid for both; neither known, the walker's own node).
    int mapping_nid = -1, pte_nid = -1;

    Bitmap present;     // PTE present
    Bitmap protnone;    // PTE made PROT_NONE by change_prot_numa
    Bitmap pmd_mapped;  // per PMD-sized block (see thp_block): mapped by one PMD
    // Huge pages whose first-touch clear may still be in flight (mm/huge_clear.h): a few per
    // faulting thread at most, dropped once no touch still to be decided can race them. Not
    // copied at fork: dup_mmap() takes mmap_lock for writing, so no fault is in flight then.
    std::vector<HugeClear> huge_clears;

    // Present pages per node (the N<node>=<pages> of /proc/<pid>/numa_maps), kept with the
    // region totals so that samplers never walk pages: this mapping's part, plus the moves in
    // `shared`, the object's totals of the window this VMA maps. Read them with pages_on().
    std::vector<uint64_t> node_pages;
    ObjectRangeTotals* shared = nullptr;
    uint64_t pages_on(int nid) const {
        const size_t n = static_cast<size_t>(nid);
        return (n < node_pages.size() ? node_pages[n] : 0) + (shared ? shared->moved[n] : 0);
    }

    std::optional<VmaNumabState> numab_state;
    std::vector<Region*> regions;  // regions over this VMA, for counter upkeep

    // Per block of 2^BLOCK_SHIFT pages: pages not present, and pages PROT_NONE. The access
    // model skips whole blocks by these counts when it looks for the pages a stream touched.
    static constexpr int BLOCK_SHIFT = 9;
    std::vector<uint32_t> blk_absent, blk_protnone;
    // The same per superblock of 2^SUPERBLOCK_SHIFT pages (64 blocks, 128 MiB of 4 KiB pages),
    // absent and PROT_NONE pages together: a stream whose region holds gigabytes of pages it
    // need not look at then steps over them 64 blocks at a time.
    static constexpr int SUPERBLOCK_SHIFT = BLOCK_SHIFT + 6;
    std::vector<uint32_t> sblk_interesting;
    void init_block_counts();  // from the bitmaps
    // A range inside one block (every fault's page) adds to one block and one superblock count
    // inline; a longer one steps over the blocks out of line.
    void count_present(uint64_t first, uint64_t nr, int delta) {
        count_in_blocks<&Vma::blk_absent>(first, nr, -delta);
    }
    void count_protnone(uint64_t first, uint64_t nr, int delta) {
        count_in_blocks<&Vma::blk_protnone>(first, nr, delta);
    }

    // Calls f(region, pages) once for every region that shares pages with [first, first + nr),
    // `pages` being how many. Counter upkeep runs on every fault and on every run of PTEs a scan
    // window changes (a run may span the whole window), so its cost must grow with the range,
    // not with the regions of a VMA that threads have carved into many slices: it is one step
    // per PMD-sized chunk the range spans plus the regions listed in those chunks.
    template <typename F>
    void for_each_region_in(uint64_t first, uint64_t nr, F&& f);
    void add_region(Region* r);

    uint64_t nr_pages() const { return (end - start) >> pages.shift; }
    // The object pages this VMA maps, [pgoff, pgoff + nr_pages()).
    MemObject::Window window() const { return {pgoff, pgoff + nr_pages()}; }
    uint64_t page_index(uint64_t addr) const { return (addr - start) >> pages.shift; }
    uint64_t page_addr(uint64_t idx) const { return start + (idx << pages.shift); }
    bool is_private_cow() const {  // is_cow_mapping(): private and may be written
        return !(vm_flags & VM_SHARED) && (vm_flags & VM_MAYWRITE);
    }
    bool is_file() const { return vm_flags & VM_FILE; }

    PageFrame& frame(uint64_t idx) {
        return own_mask.size() && own_mask.test(idx) ? own->frames[idx]
                                                     : object->frames[pgoff + idx];
    }
    const PageFrame& frame(uint64_t idx) const {
        return own_mask.size() && own_mask.test(idx) ? own->frames[idx]
                                                     : object->frames[pgoff + idx];
    }
    bool shares_object_page(uint64_t idx) const { return !(own_mask.size() && own_mask.test(idx)); }
    // Asks the host to start loading page idx's frame (of the object: a private copy's is
    // rarer), for a caller that will need it after other work; changes nothing simulated.
    void prefetch_frame(uint64_t idx) const { __builtin_prefetch(object->frames + pgoff + idx); }

    // THP blocks are the PMD-aligned virtual ranges that lie wholly inside the VMA.
    // Inline: every hinting fault asks it (pmd_mapped_at) before anything else.
    bool thp_block(uint64_t idx, uint64_t& first, uint64_t& last) const {
        const uint64_t addr = page_addr(idx);
        const uint64_t bstart = addr & ~(pages.pmd_size() - 1);
        const uint64_t bend = bstart + pages.pmd_size();
        if (bstart < start || bend > end) return false;
        first = page_index(bstart);
        last = page_index(bend);
        return true;
    }
    // The PMD-sized virtual block holding page `idx`, counted from the VMA's first: its bit in
    // pmd_mapped.
    uint64_t pmd_index(uint64_t idx) const {
        return (page_addr(idx) >> pages.pmd_shift()) - (start >> pages.pmd_shift());
    }
    // Whether page `idx` lies in a THP block mapped by one PMD; `first` is then its first page.
    bool pmd_mapped_at(uint64_t idx, uint64_t& first) const {
        uint64_t last = 0;
        return pmd_mapped.size() && thp_block(idx, first, last) &&
               pmd_mapped.test(pmd_index(first));
    }

  private:
    static bool in_one_block(uint64_t first, uint64_t nr) {
        return nr && ((first ^ (first + nr - 1)) >> BLOCK_SHIFT) == 0;
    }
    // Adds delta per page of [first, first + nr) to the block counts `Blk` (blk_absent or
    // blk_protnone) and to sblk_interesting, which counts both. `Blk` is a template argument
    // so that the inline path costs what one written out for each vector did.
    template <std::vector<uint32_t> Vma::*Blk>
    void count_in_blocks(uint64_t first, uint64_t nr, int delta) {
        if (in_one_block(first, nr)) {
            const auto d = static_cast<uint32_t>(delta * static_cast<int64_t>(nr));
            (this->*Blk)[first >> BLOCK_SHIFT] += d;
            sblk_interesting[first >> SUPERBLOCK_SHIFT] += d;
        } else {
            count_in_blocks_outline<Blk>(first, nr, delta);
        }
    }
    template <std::vector<uint32_t> Vma::*Blk>
    void count_in_blocks_outline(uint64_t first, uint64_t nr, int delta);
    // Built again after add_region; the test is inline because every fault's counter upkeep
    // makes it.
    const std::vector<std::vector<Region*>>& region_index() {
        if (!region_index_valid_) build_region_index();
        return region_index_;
    }
    void build_region_index();
    std::vector<std::vector<Region*>> region_index_;  // per PMD-sized chunk: regions overlapping it
    bool region_index_valid_ = false;
};

template <typename F>
void Vma::for_each_region_in(uint64_t first, uint64_t nr, F&& f) {
    if (nr == 0) return;
    const auto& index = region_index();
    const uint64_t end = first + nr;
    const int order = pages.pmd_order;
    const uint64_t lo = first >> order;
    const uint64_t hi = std::min<uint64_t>((end - 1) >> order, index.size() - 1);
    if (lo == hi) {
        // One chunk (every fault's page): each region listed there is taken there.
        for (Region* r : index[lo]) {
            const uint64_t a = std::max(first, r->first), b = std::min(end, r->first + r->count);
            if (b > a) f(*r, b - a);
        }
        return;
    }
    for (uint64_t c = lo; c <= hi; ++c)
        for (Region* r : index[c]) {
            // A region listed in several chunks of the range is taken at the first of them.
            if (c != std::max(lo, r->first >> order)) continue;
            const uint64_t a = std::max(first, r->first), b = std::min(end, r->first + r->count);
            if (b > a) f(*r, b - a);
        }
}

}  // namespace numasim
