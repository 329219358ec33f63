#include "mm/migrate_cost.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <vector>

#include "cost/access.h"
#include "cost/constants.h"
#include "cost/stream_index.h"
#include "kernel/latency.h"
#include "kernel/system.h"
#include "mm/tlb.h"

namespace numasim {

namespace {

// touch_probability, inlined into the waiter walk: it runs once per mapping of a migrating
// page that a running task sweeps, 288 times a page on cowsum's row.
[[gnu::always_inline]] inline double touch_probability_at(const AccessStream& s,
                                                          double bytes_per_ns, uint64_t idx,
                                                          uint64_t nr, double window_ns) {
    const Region& r = *s.region;
    const double stream_bps = bytes_per_ns * s.share;
    if (!r.count || stream_bps <= 0 || window_ns <= 0) return 0.0;
    const double pages = static_cast<double>(r.count), folio = static_cast<double>(nr);
    const uint64_t page_size = r.vma->pages.size();
    if (s.pattern == Pattern::Sweep) {
        // The cursor is inside the folio, or reaches it, during the window.
        return std::min(1.0, (window_ns * stream_bps + folio * page_size) / (pages * page_size));
    }
    if (s.chunk_bytes) {
        // Chunks that start in the folio's pages or early enough before them to reach them (the
        // region is taken to go on before its first page: a shorter count for its first few).
        // Pages past the cells where chunks start count as never touched (the last cells'
        // chunks reach a page or two past them).
        const uint64_t cells = chunk_cells(s, r.count, page_size);
        if (idx - r.first >= cells) return 0.0;
        const ChunkSpan span = chunk_span(s.chunk_bytes, page_size);
        const double reaching = folio + static_cast<double>(span.pages - 1) + span.p_more;
        const double chunks_per_ns = stream_bps / static_cast<double>(s.chunk_bytes);
        return -std::expm1(-chunks_per_ns * reaching / static_cast<double>(cells) * window_ns);
    }
    const double lines_per_ns = stream_bps / cost::CACHE_LINE_BYTES;
    double rate = lines_per_ns * folio / pages;  // Random: uniform over the region's pages
    if (s.pattern == Pattern::HotSet) {
        // The same split as the access model: pages [0, hot) of the region are hot.
        const uint64_t hot = hot_pages(s, r.count);
        const uint64_t rel = idx - r.first;
        const uint64_t hot_here = rel < hot ? std::min<uint64_t>(hot - rel, nr) : 0;
        const double cold_pages = static_cast<double>(r.count - hot);
        rate =
            lines_per_ns *
            (s.hot_share * static_cast<double>(hot_here) / static_cast<double>(hot) +
             (cold_pages > 0 ? (1 - s.hot_share) * static_cast<double>(nr - hot_here) / cold_pages
                             : 0.0));
    }
    return -std::expm1(-rate * window_ns);
}

}  // namespace

double touch_probability(const AccessStream& s, double bytes_per_ns, uint64_t idx, uint64_t nr,
                         double window_ns) {
    return touch_probability_at(s, bytes_per_ns, idx, nr, window_ns);
}

namespace {

// How many pages after its page `i` mapping `m` maps as it maps `i`: inside its window, with the
// same present, private-copy and PROT_NONE bits (what the rmap walk below reads of it), counting
// at most `cap`. The bitmaps in use are compared with i's bits a word at a time; an unused (empty)
// bitmap holds the same nothing everywhere and is left out. It runs once per mapping of each
// migrating run's first page (288 times on cowsum's row), mostly with `cap` already short.
uint64_t like_mapping_after(const Vma& m, uint64_t i, uint64_t cap) {
    const uint64_t* words[3];
    uint64_t at_i[3];  // bit i of each bitmap in use, in every bit of a word
    int used = 0;
    uint64_t end = std::min(m.nr_pages(), i + 1 + cap);
    for (const Bitmap* bm : {&m.present, &m.own_mask, &m.protnone}) {
        if (!bm->size()) continue;
        end = std::min(end, bm->size());
        words[used] = bm->data();
        at_i[used] = bm->test(i) ? ~uint64_t{0} : 0;
        ++used;
    }
    for (uint64_t j = i + 1; j < end; j = ((j >> 6) + 1) << 6) {
        const uint64_t w = j >> 6;
        uint64_t differ = 0;
        for (int b = 0; b < used; ++b)
            differ |= words[b][w] ^ at_i[b];
        differ &= ~uint64_t{0} << (j & 63);
        if (differ) return std::min(end, (w << 6) + std::countr_zero(differ)) - i - 1;
    }
    return end > i ? end - i - 1 : 0;
}

// How many pages after `i` of a stream's region `r` the stream sees as it sees `i`: inside the
// region or not, and in the same part of a hot set (touch_probability's inputs).
uint64_t like_stream_after(const AccessStream& s, uint64_t i, uint64_t cap) {
    const Region& r = *s.region;
    if (!r.contains(i)) return r.first > i ? std::min(cap, r.first - i - 1) : cap;
    uint64_t end = r.first + r.count;
    if (s.chunk_bytes) {  // inside the cells where chunks start, or past them
        const uint64_t cell_hi = r.first + chunk_cells(s, r.count, r.vma->pages.size());
        if (i < cell_hi) end = cell_hi;
    }
    if (s.pattern == Pattern::HotSet) {
        const uint64_t hot = hot_pages(s, r.count);
        if (i - r.first < hot) end = r.first + hot;
    }
    return std::min(cap, end - i - 1);
}

// Running tasks of mapping `m` (other than `p`, if any) that touch its pages [i, i + nr) while they
// are a migration entry, for `d` ns, sleep on it until it is restored, and pay `kernel` ns for the
// fault and the two switches. Their expected number and sleep are added to `waiters` and
// `wait_ns`. With `record`, logs the charges and narrows record->alike to the pages after i
// that every such stream sees alike.
void charge_waiters(System& sys, const Task* p, const Vma& m, uint64_t i, uint64_t nr, double d,
                    double kernel, double& waiters, double& wait_ns, MigrateCostRecord* record) {
    if (!m.mm) return;
    for (Task* t : m.mm->tasks) {
        if (t == p || t->state != TaskState::Running || sys.rqs[t->cpu].curr != t || !t->touches)
            continue;
        const StreamIndex::OfVma* over = stream_index(*t->touches).over(m);
        if (!over) continue;  // no stream over m: it touches nothing of it
        double untouched = 1.0;
        double rate = -1;
        // A stream over m: the pages after i it sees alike, and its touch of the folio if it
        // covers i.
        const auto meet = [&](const AccessStream& s) {
            if (record)
                record->alike = std::min(record->alike, like_stream_after(s, i, record->alike));
            if (!s.region->contains(i)) return;
            if (rate < 0) rate = sys.cost.rate_gbs(*t->touches, t->cpu, t->index);
            untouched *= 1 - touch_probability_at(s, rate, i, nr, d);
        };
        if (over->disjoint) {
            // One stream at most covers i; of the others, those whose regions start after i
            // bound the run at the first such start (like_stream_after), the rest not at all.
            const uint64_t next = over->next_first_after(i);
            if (record && next != ~uint64_t{0})
                record->alike = std::min(record->alike, next - i - 1);
            if (const int k = over->covering(i); k >= 0)
                meet(t->touches->streams[static_cast<size_t>(k)]);
        } else {
            for (const AccessStream& s : t->touches->streams)
                if (s.region->vma == &m) meet(s);
        }
        const double prob = 1 - untouched;
        if (prob <= 0) continue;
        const auto blocked = static_cast<Nanos>(prob * d / 2 + 0.5);
        const auto kernel_ns = static_cast<Nanos>(prob * kernel + 0.5);
        sys.catch_up_cpu(t->cpu);  // the wait comes after what its CPU held back
        t->blocked_debt += blocked;
        t->kernel_debt += kernel_ns;
        if (sys.latency) sys.latency->record(*t, LatencyKind::MigrationWait, blocked + kernel_ns);
        waiters += prob;
        wait_ns += prob * d / 2;
        if (record) record->waiters.push_back({t, blocked, kernel_ns});
    }
}

// What the rmap steps of mapping `m` cost beyond MIGRATE_PER_MAPPING_NS when a CPU of node
// `walker` walks it: each line the steps read on another node costs the difference of the idle
// latencies (cost/constants.h, RMAP_STEP_*). Sets the unmap and the restore step's parts.
void remote_rmap_steps(const CostModel& cost, int walker, const Vma& m, double& unmap,
                       double& restore) {
    const int pte = m.pte_nid >= 0 ? m.pte_nid : walker;
    const int mapping = m.mapping_nid >= 0 ? m.mapping_nid : pte;
    const double local = cost.latency_ns(walker, walker);
    const double mapping_lines = cost::RMAP_STEP_VMA_LINES + cost::RMAP_STEP_MM_LINES +
                                 cost::RMAP_STEP_UPPER_TABLE_LINES +
                                 (m.is_file() ? 0.0 : cost::RMAP_STEP_AVC_LINES);
    const double pte_extra = cost.latency_ns(walker, pte) - local;
    unmap = mapping_lines * (cost.latency_ns(walker, mapping) - local) +
            cost::RMAP_STEP_PTE_PAGE_LINES * pte_extra;
    restore = cost::RMAP_RESTORE_PTE_PAGE_LINES * pte_extra;
}

}  // namespace

double migrate_folio_cost(System& sys, Task& p, Vma& vma, uint64_t idx, uint64_t nr, int from,
                          int to, unsigned mapcount, MigrateCostRecord* record) {
    return migrate_folio_cost(sys, &p, p.cpu, vma, idx, nr, from, to, mapcount, record);
}

double migrate_folio_cost(System& sys, const Task* p, int cpu, Vma& vma, uint64_t idx, uint64_t nr,
                          int from, int to, unsigned mapcount, MigrateCostRecord* record) {
    // The mappings of the folio in rmap order: every mapper of a shared object that still maps
    // this frame, or the faulting mapping alone.
    struct Mapping {
        const Vma* vma;
        uint64_t idx;
        double unmap_ns = 0, remap_ns = 0;
    };
    // Kept between calls (per host thread: parallel runs each have their own): a page that
    // hundreds of processes map would otherwise grow both lists from empty at every migration.
    thread_local std::vector<Mapping> maps;
    thread_local std::vector<const Mm*> batch;
    maps.clear();
    batch.clear();
    if (record) {
        // A run never leaves the faulting page's page table, so no bound needs to look further.
        // Cleared, not replaced: the caller keeps one record so that its lists keep capacity.
        record->waiters.clear();
        record->tlb.interrupted.clear();
        record->tlb.shootdowns = record->tlb.ipis = 0;
        record->alike = vma.pages.pmd_nr();
        record->bytes = static_cast<double>(nr * vma.pages.size());
        record->from = from;
        record->to = to;
    }
    const MemObject& o = *vma.object;
    if (vma.shares_object_page(idx) && o.mappers.size() > 1) {
        const uint64_t obj = vma.pgoff + idx;
        // Read once: the compiler cannot tell that the pushes below leave the lists alone.
        const size_t nr_mappers = o.mappers.size();
        const MemObject::Window* windows = o.windows.data();
        for (size_t k = 0; k < nr_mappers; ++k) {
            const MemObject::Window& w = windows[k];
            if (!w.holds(obj)) {
                // The pages after obj must be mapped by the same mappers: a window that starts
                // after obj bounds the run.
                if (record && obj < w.first)
                    record->alike = std::min(record->alike, w.first - obj - 1);
                continue;
            }
            const Vma* m = o.mappers[k];
            const uint64_t i = obj - w.first;
            // ... and with the same PTE state. The faulting mapping's own pages are the fault
            // run's to compare (numa_fault_run).
            if (record && m != &vma) record->alike = like_mapping_after(*m, i, record->alike);
            if (m->present.test(i) && m->shares_object_page(i)) maps.push_back({m, i});
        }
    }
    if (maps.empty()) maps.push_back({&vma, idx});

    // Unmapping (try_to_migrate): each extra mapping's rmap step is half of
    // MIGRATE_PER_MAPPING_NS, restoring it (remove_migration_ptes) the other half, each with
    // the lines it finds on other nodes than the walking CPU's on top (remote_rmap_steps). A
    // mapping whose PTE is still accessible needs its TLB flushed (ptep_clear_flush skips a
    // PROT_NONE one): at once before v6.3, in one batched flush after the walk since. A
    // PMD-mapped THP is invalidated and flushed in the faulting mm whatever its protection
    // (pmdp_invalidate).
    const double extra = mapcount > 1 ? (mapcount - 1) * sys.cost.k().MIGRATE_PER_MAPPING_NS : 0.0;
    const double step = maps.size() > 1 ? extra / static_cast<double>(maps.size() - 1) / 2 : 0.0;
    const int walker = sys.cpu_to_node(cpu);
    for (size_t j = 0; j < maps.size(); ++j) {
        Mapping& m = maps[j];
        // The faulting mapping's own step is part of MIGRATE_FOLIO_OVERHEAD_NS, measured on
        // local pages; the others' lines are wherever their mappings were made.
        if (m.vma != &vma) remote_rmap_steps(sys.cost, walker, *m.vma, m.unmap_ns, m.remap_ns);
        if (j > 0) {
            m.unmap_ns += step;
            m.remap_ns += step;
        }
        if (!m.vma->mm) continue;
        TlbFlushLog* log = record ? &record->tlb : nullptr;
        if (nr > 1 && m.vma == &vma) {
            m.unmap_ns += flush_tlb_mm_range(sys, *m.vma->mm, cpu, log);
            continue;
        }
        if (m.vma->protnone.size() && m.vma->protnone.test(m.idx)) continue;
        // The batched flush interrupts the union of the batch's mm_cpumasks: an mm listed
        // twice changes nothing, so none is looked for.
        if (!sys.knobs.migrate_tlb_batch)
            m.unmap_ns += flush_tlb_mm_range(sys, *m.vma->mm, cpu, log);
        else
            batch.push_back(m.vma->mm);
    }
    double unmap =
        batch.empty() ? 0.0 : flush_tlb_batched(sys, batch, cpu, record ? &record->tlb : nullptr);
    for (const Mapping& m : maps)
        unmap += m.unmap_ns;
    const double middle = sys.cost.k().MIGRATE_FOLIO_OVERHEAD_NS +
                          sys.cost.copy_ns(static_cast<double>(nr * vma.pages.size()), from, to);

    // Mapping j is a migration entry from its own unmap step until its PTE is restored.
    double unmapped_before = 0, remapped = 0;
    // The folio's waiters are summed apart and added to the statistics once, so that a run
    // repeating this migration adds the same sum once per page (repeat_migrate_folio_cost).
    double waiters = 0, wait_ns = 0;
    const double waiter_kernel =
        sys.cost.cycles_ns(sys.cost.k().ANON_FAULT_CYCLES) + 2 * sys.cost.k().CONTEXT_SWITCH_NS;
    for (const Mapping& m : maps) {
        remapped += m.remap_ns;
        charge_waiters(sys, p, *m.vma, m.idx, nr, unmap - unmapped_before + middle + remapped,
                       waiter_kernel, waiters, wait_ns, record);
        unmapped_before += m.unmap_ns;
    }
    sys.cost.stats().migration_waiters += waiters;
    sys.cost.stats().migration_wait_ns += wait_ns;
    if (record) {
        record->stat_waiters = waiters;
        record->stat_wait_ns = wait_ns;
    }
    return unmap + middle + remapped;
}

void repeat_migrate_folio_cost(System& sys, const MigrateCostRecord& record, uint64_t times) {
    // The copies' traffic and the statistics are sums of doubles: added page by page, as the
    // pages would have added them. Whole nanoseconds and counts are multiplied.
    sys.cost.copy_ns(record.bytes, record.from, record.to, times);
    repeat_tlb_flushes(sys, record.tlb, times);
    const auto n = static_cast<Nanos>(times);
    for (const MigrateCostRecord::Waiter& w : record.waiters) {
        sys.catch_up_cpu(w.task->cpu);
        w.task->blocked_debt += w.blocked * n;
        w.task->kernel_debt += w.kernel * n;
        if (sys.latency)
            sys.latency->record(*w.task, LatencyKind::MigrationWait, w.blocked + w.kernel, times);
    }
    // The folio's sums, once per page as migrate_folio_cost added them.
    auto& stats = sys.cost.stats();
    double waiters = stats.migration_waiters, wait_ns = stats.migration_wait_ns;
    for (uint64_t k = 0; k < times; ++k) {
        waiters += record.stat_waiters;
        wait_ns += record.stat_wait_ns;
    }
    stats.migration_waiters = waiters;
    stats.migration_wait_ns = wait_ns;
}

}  // namespace numasim
