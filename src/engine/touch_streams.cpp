// Which pages a step of user work touches, and the faults it takes there: a sweep's cursor
// passes its pages in order; a random stream touches each page with the probability its
// accesses give it, page by page or (a walk in chunks) a few neighbours at a time. Only the pages
// an access must fault on are visited (engine/page_walk.h).
#include <algorithm>
#include <cmath>
#include <utility>

#include "engine/engine.h"
#include "engine/page_walk.h"
#include "engine/run_of.h"
#include "engine/sweep_move.h"
#include "engine/task_traffic.h"
#include "kernel/system.h"
#include "mm/huge_clear.h"
#include "mm/vmscan.h"

namespace numasim {

namespace {

// Whether touch_streams() may write through s: a sweep writes when most of its accesses do, the
// other patterns draw each page's write.
bool stream_may_write(const AccessStream& s) {
    return s.pattern == Pattern::Sweep ? s.write_fraction >= 0.5 : s.write_fraction > 0;
}

}  // namespace

bool Engine::stream_quiet(const AccessStream& s) {
    return region_quiet(*s.region, stream_may_write(s)) && s.region->vma->huge_clears.empty();
}

bool Engine::race_huge_clears(Task& p, Vma& vma, uint64_t lo, uint64_t hi) {
    prune_huge_clears(vma, prev_event_);
    const uint64_t nr = vma.pages.pmd_nr();
    for (HugeClear& c : vma.huge_clears) {
        if (c.owner == p.pid || c.first >= hi || c.first + nr <= lo || c.lost_by(p.pid)) continue;
        // Mapped again since (munmap, a split): the fault it recorded is not the PMD's now.
        if (!vma.pmd_mapped.test(vma.pmd_index(c.first))) continue;
        const uint64_t j = std::max(lo, c.first);  // p's first touch of the huge page
        if (!c.overlaps(step_.at(j))) continue;
        c.losers.push_back(p.pid);
        const auto ns = static_cast<Nanos>(lose_huge_clear(sys_, p, vma, c.first));
        sys_.fault_locks.note(sys_, p, vma, j);
        p.kernel_debt += ns;
        step_.faults += ns;
        ++huge_clear_losers_;
        if (!(sys_.rqs[p.cpu].curr == &p && p.state == TaskState::Running)) return false;
    }
    return true;
}

uint64_t Engine::sweep_cursor(TaskRun& run, size_t i, const AccessStream& s, double sb,
                              uint64_t& start) {
    const Region& r = *s.region;
    const PageGeometry& g = r.vma->pages;
    return sweep_move(run.sweep_carry[i], run.sweep_pos[i], sb, g.inverse_size(),
                      static_cast<double>(g.size()), r.count, start);
}

Engine::WalkEnd Engine::touch_streams(Task& p, TaskRun& run) {
    const Phase& ph = run.phase;
    StepWalk& w = run.walk;
    const double bytes = w.bytes;
    if (w.stream == 0 && !w.resume) {
        if (sys_.note_region_accesses())
            for (const AccessStream& s : ph.streams)
                note_stream_accesses(s, bytes);
        if (sys_.perf_mem_recording) note_task_traffic(p, ph.streams, bytes);
    }
    // A walk that goes on (w.resume) does so in stream w.stream; the streams after it start.
    for (size_t i = w.stream; i < ph.streams.size(); ++i, w.resume = false) {
        w.stream = i;
        const AccessStream& s = ph.streams[i];
        Region& r = *s.region;
        Vma& vma = *r.vma;
        const double sb = bytes * s.share;
        if (s.pattern == Pattern::Sweep) {
            uint64_t lo1 = w.from, hi1 = w.hi, wrap = w.wrap, n = 0;
            if (!w.resume) {
                uint64_t start = 0;
                n = sweep_cursor(run, i, s, sb, start);
                if (n == 0) continue;
                lo1 = r.first + start;
                hi1 = r.first + std::min(start + n, r.count);
                wrap = start + n > r.count ? start + n - r.count : 0;
            }
            const bool write = stream_may_write(s);
            // Pages another thread's fault made present may still be clearing: the sweep races.
            const bool racing = !vma.huge_clears.empty();
            if (!racing && region_quiet(r, write)) continue;
            const uint64_t first_n = hi1 - lo1;
            for (int k = 0; k < 2; ++k) {
                const uint64_t lo = k == 0 ? lo1 : r.first, hi = k == 0 ? hi1 : r.first + wrap;
                step_.range(lo, k == 0 ? 0 : first_n, n);
                if (racing && lo < hi && !race_huge_clears(p, vma, lo, hi)) return WalkEnd::Left;
                uint64_t next = lo;
                for (uint64_t j = nth_interesting(vma, lo, hi, write, 0); j < hi;
                     j = nth_interesting(vma, next, hi, write, 0)) {
                    if (!handle_touch(p, vma, j, write, hi, next)) return WalkEnd::Left;
                    if (step_.cut) {
                        w.resume = true;
                        w.from = next;
                        w.hi = hi;
                        w.wrap = k == 0 ? wrap : 0;
                        return WalkEnd::Cut;
                    }
                }
            }
            continue;
        }
        // A random stream draws nothing where it could fault nowhere: a CPU whose streams are
        // quiet may defer its ticks (engine/deferred_ticks.cpp), and the draws must not differ.
        const bool may_write = stream_may_write(s);
        if (region_quiet(r, may_write)) continue;
        if (s.chunk_bytes) {
            if (const WalkEnd e = touch_chunks(p, run, s, sb); e != WalkEnd::Done) return e;
            continue;
        }
        // Random and hot-set streams of single lines: each page of a sub-range is touched at
        // least once in this interval with probability q = 1 - exp(-accesses / pages); only the
        // pages of interest are visited, with geometric skips between the touched ones. They are
        // visited in page order, and a cut walk goes on from the page after the cut with the
        // same q (the skips have no memory).
        const double accesses = sb / 64.0;
        const uint64_t hot = s.pattern == Pattern::HotSet ? hot_pages(s, r.count) : r.count;
        const uint64_t bound[3] = {0, hot, r.count};
        const double part_share[2] = {s.pattern == Pattern::HotSet ? s.hot_share : 1.0,
                                      s.pattern == Pattern::HotSet ? 1.0 - s.hot_share : 0.0};
        step_.range(r.first, 0, r.count);
        for (unsigned k = w.resume ? w.part : 0; k < 2; ++k) {
            const uint64_t npages = bound[k + 1] - bound[k];
            const double share = part_share[k];
            if (npages == 0 || share <= 0) continue;
            const double q = -std::expm1(-accesses * share / static_cast<double>(npages));
            const uint64_t lo = w.resume && k == w.part ? w.from : r.first + bound[k];
            const uint64_t hi = r.first + bound[k + 1];
            // A part that is the whole region takes its first skip from the region's totals.
            const bool whole = lo == r.first && hi == r.first + r.count;
            const uint64_t skip = sys_.rng_access.geometric(q);
            for (uint64_t j = whole ? nth_interesting_in_region(r, may_write, skip)
                                    : nth_interesting(vma, lo, hi, may_write, skip);
                 j < hi;
                 j = nth_interesting(vma, j + 1, hi, may_write, sys_.rng_access.geometric(q))) {
                const bool write = may_write && sys_.rng_access.bernoulli(s.write_fraction);
                // Each page is drawn on its own: no runs (hi = j + 1).
                uint64_t next = 0;
                if (!handle_touch(p, vma, j, write, j + 1, next)) return WalkEnd::Left;
                if (step_.cut) {
                    w.resume = true;
                    w.part = k;
                    w.from = j + 1;
                    return WalkEnd::Cut;
                }
            }
        }
    }
    return WalkEnd::Done;
}

Engine::WalkEnd Engine::touch_chunks(Task& p, TaskRun& run, const AccessStream& s, double sb) {
    // Chunks start at words drawn uniformly over the region (or its first chunk_starts_below
    // bytes), sb / chunk_bytes of them in this interval: the starts in one page's cell are a
    // Poisson count, so each cell holds one at least with probability q, independently of the
    // others. Only cells whose chunk may reach a page of interest matter: each belongs to the
    // first such page at or after it. Every page of interest is given reach + 1 cells,
    // [j - reach, j], so that whole blocks can be skipped by their counts of such pages
    // (nth_interesting); a cell that belongs to an earlier page, or was decided before, is drawn
    // there again but not used, and every cell is decided once with probability q. An occupied
    // cell's chunk touches its pages in order, a fault run as a sweep's. Two starts in one cell
    // cover what one covers, save that either may reach the extra page: that is drawn once per
    // cell.
    Region& r = *s.region;
    Vma& vma = *r.vma;
    const ChunkSpan span = chunk_span(s.chunk_bytes, vma.pages.size());
    const uint64_t reach = span.reach(), per_page = reach + 1;
    const double chunks = sb / static_cast<double>(s.chunk_bytes);
    const uint64_t cells = chunk_cells(s, r.count, vma.pages.size());
    const double q = -std::expm1(-chunks / static_cast<double>(cells));
    const bool may_write = stream_may_write(s);
    Rng& rng = sys_.rng_access;
    // Chunks start below cell_hi and reach no page from hi on.
    const uint64_t cell_hi = r.first + cells, hi = std::min(r.first + r.count, cell_hi + reach);
    StepWalk& w = run.walk;
    step_.range(r.first, 0, r.count);
    uint64_t x = r.first;  // cells below x are decided
    if (w.resume) {
        // The rest of the chunk the walk was cut in, then the cells after its start.
        uint64_t next = w.from;
        for (uint64_t k = nth_interesting(vma, w.from, w.hi, w.write, 0); k < w.hi;
             k = nth_interesting(vma, next, w.hi, w.write, 0)) {
            if (!handle_touch(p, vma, k, w.write, w.hi, next)) return WalkEnd::Left;
            if (step_.cut) {
                w.from = next;
                return WalkEnd::Cut;
            }
        }
        x = w.x;
    }
    while (x < hi) {
        // The next occupied cell: cell d of page of interest j is cell j - reach + d.
        uint64_t j = nth_interesting(vma, x, hi, may_write, 0);
        if (j >= hi) return WalkEnd::Done;
        vma.prefetch_frame(j);
        uint64_t d = rng.geometric(q);
        uint64_t c = 0;
        for (;;) {
            if (d >= per_page) {
                j = nth_interesting(vma, j + 1, hi, may_write, d / per_page - 1);
                d %= per_page;
                if (j < hi) vma.prefetch_frame(j);
            }
            if (j >= hi) return WalkEnd::Done;
            if (j + d >= x + reach) {
                c = j + d - reach;
                if (c >= cell_hi) return WalkEnd::Done;  // no chunk starts there, nor further on
                if (nth_interesting(vma, c, j, may_write, 0) == j) break;  // c is j's own
            }
            d += 1 + rng.geometric(q);
        }
        const bool write = may_write && rng.bernoulli(s.write_fraction);
        const uint64_t pages = span.pages + (rng.bernoulli(span.p_more) ? 1 : 0);
        const uint64_t end = std::min(hi, c + pages);
        uint64_t next = c;
        // Cell c is page j's own: no page of [c, j) is of interest, and j is, to an access of
        // the kind the cells were drawn for, so the chunk's first fault is j without a search.
        // A read of a walk that may write searches from j (a write faults wherever a read does).
        const uint64_t own = std::min(j, end);
        for (uint64_t k = write == may_write ? own : nth_interesting(vma, own, end, write, 0);
             k < end; k = nth_interesting(vma, next, end, write, 0)) {
            if (!handle_touch(p, vma, k, write, end, next)) return WalkEnd::Left;
            if (step_.cut) {
                w.resume = true;
                w.from = next;
                w.hi = end;
                w.x = c + 1;
                w.write = write;
                return WalkEnd::Cut;
            }
        }
        x = c + 1;
    }
    return WalkEnd::Done;
}

}  // namespace numasim
