#include "kernel/invariants.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <map>
#include <set>
#include <vector>

#include "kernel/system.h"
#include "mm/lru_index.h"
#include "numab/numab.h"
#include "sched/fair.h"

namespace numasim {

namespace {

// Calls f(i) for every set bit i of `words` (a word-wise combination of bitmaps) in [lo, hi).
template <typename W, typename F>
void for_each_bit(uint64_t lo, uint64_t hi, W words, F f) {
    if (lo >= hi) return;
    for (uint64_t w = lo >> 6; w <= (hi - 1) >> 6; ++w) {
        const unsigned a = w == (lo >> 6) ? static_cast<unsigned>(lo & 63) : 0;
        const unsigned b = w == ((hi - 1) >> 6) ? static_cast<unsigned>(((hi - 1) & 63) + 1) : 64;
        for (uint64_t m = words(w) & word_mask(a, b); m; m &= m - 1)
            f((w << 6) + static_cast<uint64_t>(std::countr_zero(m)));
    }
}

uint64_t own_word(const Vma& v, uint64_t w) {
    return v.own_mask.size() ? v.own_mask.word(w) : 0;
}

std::string describe(const Mm& mm) {
    if (mm.tasks.empty()) return fmt::format("mm {} (no live task)", mm.id);
    const Task& t = *mm.tasks.front();
    return fmt::format("mm {} (tgid {} '{}')", mm.id, t.tgid, t.comm);
}

std::string describe(const Vma& v) {
    return fmt::format("vma '{}' [{:#x}, {:#x}) of {}", v.name, v.start, v.end,
                       v.mm ? describe(*v.mm) : std::string("no mm"));
}

std::string describe(const Region& r) {
    return fmt::format("region '{}' pages [{}, {}) of {}", r.name, r.first, r.first + r.count,
                       describe(*r.vma));
}

std::string describe(const Task& t) {
    return fmt::format("task pid {} '{}'", t.pid, t.comm);
}

const char* stat_name(int s) {
    static const char* names[] = {"NUMA_MEM", "NUMA_CPU", "NUMA_MEMBUF", "NUMA_CPUBUF"};
    return names[s];
}

// Collects the first failure; every later check is skipped once one failed.
struct Checker {
    const System& sys;
    std::optional<std::string> failure;
    std::set<const PageFrame*> lru_pending;  // frames marked PF_LRU_PENDING (frames())

    bool failed() const { return failure.has_value(); }
    template <typename... A>
    void fail(fmt::format_string<A...> f, A&&... a) {
        if (!failure) failure = fmt::format(f, std::forward<A>(a)...);
    }
    // `what` describes the total; it is only called (and formatted) on a mismatch.
    template <typename T, typename W>
    bool differ(const T& cached, const T& real, W what) {
        if (cached == real) return false;
        fail("{}: cached {}, recomputed {}", what(), cached, real);
        return true;
    }

    // How a mapping's count on a node splits into its own part and the object's totals, for a
    // mismatch report. The object's totals are checked through every mapping that reads them: a
    // wrong `moved` shows up as a mismatch of the first such region or VMA.
    static std::string split(const std::vector<uint64_t>& own, const ObjectRangeTotals* shared,
                             int nid) {
        if (!shared) return "";
        const size_t n = static_cast<size_t>(nid);
        return fmt::format(" (its own part {} + the object's moves {} of object pages [{}, {}))",
                           static_cast<int64_t>(n < own.size() ? own[n] : 0),
                           static_cast<int64_t>(shared->moved[n]), shared->first,
                           shared->first + shared->count);
    }

    // Bitmaps, PTE state and the frames behind present PTEs of one VMA.
    void vma_state(const Mm& mm, const Vma& v) {
        const uint64_t n = v.nr_pages();
        if (v.mm != &mm)
            return fail("{} is listed in {} but points to another mm", describe(v), describe(mm));
        if (v.present.size() != n || v.protnone.size() != n ||
            (v.own_mask.size() && v.own_mask.size() != n))
            return fail("{}: bitmap sizes present {} protnone {} own {} for {} pages", describe(v),
                        v.present.size(), v.protnone.size(), v.own_mask.size(), n);
        if (v.own_mask.size() && !v.own && v.own_mask.any(0, n))
            return fail("{}: private pages marked but no private object", describe(v));
        if (!v.object || v.pgoff + n > v.object->nr_pages)
            return fail("{}: object missing or smaller than the mapping", describe(v));
        for (uint64_t w = 0; w < (n + 63) / 64; ++w) {
            const uint64_t stray = v.protnone.word(w) & ~v.present.word(w);
            if (stray)
                return fail("{}: page {} is PROT_NONE but not present", describe(v),
                            (w << 6) + std::countr_zero(stray));
            const uint64_t own = own_word(v, w) & ~v.present.word(w);
            if (own)
                return fail("{}: page {} has a private frame but is not present", describe(v),
                            (w << 6) + std::countr_zero(own));
        }
        // Bit b of pmd_mapped is the b-th PMD-sized virtual block counted from the one holding
        // start.
        for (uint64_t b = v.pmd_mapped.find_next(0, v.pmd_mapped.size()); b < v.pmd_mapped.size();
             b = v.pmd_mapped.find_next(b + 1, v.pmd_mapped.size())) {
            const uint64_t addr = ((v.start >> v.pages.pmd_shift()) + b) << v.pages.pmd_shift();
            const uint64_t first = addr >= v.start ? v.page_index(addr) : n;
            const uint64_t nr = v.pages.pmd_nr();
            if (first + nr > n || v.present.count(first, first + nr) != nr)
                return fail(
                    "{}: PMD {} is mapped huge but not all of its {} pages are present "
                    "inside the VMA",
                    describe(v), b, nr);
        }
        const int nodes = sys.nr_nodes();
        std::vector<uint64_t> node_pages(static_cast<size_t>(nodes), 0);
        for_each_bit(
            0, n, [&](uint64_t w) { return v.present.word(w); },
            [&](uint64_t i) {
                if (failed()) return;
                const PageFrame& f = v.frame(i);
                if (!(f.flags & PF_ALLOC) || f.nid >= nodes)
                    return fail("{}: page {} is present but its frame is {} on node {}",
                                describe(v), i, f.flags & PF_ALLOC ? "allocated" : "not allocated",
                                f.nid);
                ++node_pages[f.nid];
            });
        if (failed()) return;
        // Vma::pages_on(), the numa_maps N<node>= counts the samplers read: the VMA's own part
        // plus the object's totals of its window.
        for (int nid = 0; nid < nodes; ++nid) {
            if (differ(v.pages_on(nid), node_pages[static_cast<size_t>(nid)], [&] {
                    return fmt::format("{}: present pages on node {}{}", describe(v), nid,
                                       split(v.node_pages, v.shared, nid));
                }))
                return;
        }
    }

    // blk_absent and blk_protnone of every 2^BLOCK_SHIFT-page block.
    void vma_blocks(const Vma& v) {
        const uint64_t n = v.nr_pages();
        const uint64_t blocks = (n >> Vma::BLOCK_SHIFT) + 1;
        if (v.blk_absent.size() != blocks || v.blk_protnone.size() != blocks)
            return fail("{}: {} and {} block counters for {} blocks", describe(v),
                        v.blk_absent.size(), v.blk_protnone.size(), blocks);
        for (uint64_t b = 0; b < blocks; ++b) {
            const uint64_t lo = b << Vma::BLOCK_SHIFT,
                           hi = std::min(n, (b + 1) << Vma::BLOCK_SHIFT);
            const uint64_t absent = lo < hi ? (hi - lo) - v.present.count(lo, hi) : 0;
            const uint64_t prot = lo < hi ? v.protnone.count(lo, hi) : 0;
            if (v.blk_absent[b] == absent && v.blk_protnone[b] == prot) continue;
            const std::string where =
                fmt::format("{} block {} (pages [{}, {}))", describe(v), b, lo, hi);
            if (!differ<uint64_t>(v.blk_absent[b], absent, [&] { return where + " blk_absent"; }))
                differ<uint64_t>(v.blk_protnone[b], prot, [&] { return where + " blk_protnone"; });
            return;
        }
        // Each superblock's count is its blocks' counts together (checked above).
        constexpr int per = Vma::SUPERBLOCK_SHIFT - Vma::BLOCK_SHIFT;
        const uint64_t supers = (n >> Vma::SUPERBLOCK_SHIFT) + 1;
        if (v.sblk_interesting.size() != supers)
            return fail("{}: {} superblock counters for {} superblocks", describe(v),
                        v.sblk_interesting.size(), supers);
        for (uint64_t sb = 0; sb < supers; ++sb) {
            uint64_t sum = 0;
            for (uint64_t b = sb << per; b < std::min(blocks, (sb + 1) << per); ++b)
                sum += uint64_t{v.blk_absent[b]} + v.blk_protnone[b];
            if (differ<uint64_t>(v.sblk_interesting[sb], sum, [&] {
                    return fmt::format("{} superblock {} sblk_interesting", describe(v), sb);
                }))
                return;
        }
    }

    void region(const Mm& mm, const Region& r) {
        const Vma& v = *r.vma;
        if (v.mm != &mm || std::find(v.regions.begin(), v.regions.end(), &r) == v.regions.end())
            return fail("{}: not registered with its VMA in {}", describe(r), describe(mm));
        if (r.first + r.count > v.nr_pages())
            return fail("{}: extends past the VMA's {} pages", describe(r), v.nr_pages());
        const uint64_t lo = r.first, hi = r.first + r.count;
        std::vector<uint64_t> nodes(static_cast<size_t>(sys.nr_nodes()), 0);
        for_each_bit(
            lo, hi, [&](uint64_t w) { return v.present.word(w); },
            [&](uint64_t i) { ++nodes[v.frame(i).nid]; });
        if (r.node_pages.size() != nodes.size())
            return fail("{}: {} per-node counters for {} nodes", describe(r), r.node_pages.size(),
                        nodes.size());
        uint64_t present = 0;
        for (size_t nid = 0; nid < nodes.size(); ++nid) {
            present += nodes[nid];
            if (differ(r.pages_on(static_cast<int>(nid)), nodes[nid], [&] {
                    return fmt::format("{}: present pages on node {}{}", describe(r), nid,
                                       split(r.node_pages, r.shared, static_cast<int>(nid)));
                }))
                return;
        }
        if (differ(r.present, present, [&] { return describe(r) + ": present pages"; })) return;
        const uint64_t prot = v.protnone.count(lo, hi);
        if (r.protnone != prot)
            fail("{}: PROT_NONE pages: cached {}, recomputed {} (first PROT_NONE page {})",
                 describe(r), r.protnone, prot, v.protnone.find_next(lo, hi));
    }

    void mm(const Mm& m) {
        uint64_t rss = 0;
        for (size_t i = 0; i < m.vmas.size() && !failed(); ++i) {
            const Vma& v = *m.vmas[i];
            if (i > 0 && m.vmas[i - 1]->end > v.start)
                return fail("{}: overlaps or precedes {}", describe(v), describe(*m.vmas[i - 1]));
            vma_state(m, v);
            if (!failed()) vma_blocks(v);
            rss += v.present.count(0, v.nr_pages());
            for (const Region* r : v.regions)
                if (std::none_of(m.regions.begin(), m.regions.end(),
                                 [&](const auto& x) { return x.get() == r; }))
                    return fail("{}: lists region '{}', which its mm does not own", describe(v),
                                r->name);
        }
        for (const auto& r : m.regions) {
            if (failed()) return;
            region(m, *r);
        }
        if (failed() || differ(m.rss_pages, rss, [&] { return describe(m) + ": rss_pages"; }))
            return;
        int live = 0;
        for (const Task* t : m.tasks) {
            if (t->mm != &m || t->exiting())
                return fail("{}: lists {}, which is {}", describe(m), describe(*t),
                            t->exiting() ? "dead" : "in another mm");
            ++live;
        }
        if (differ(m.mm_users, live, [&] { return describe(m) + ": mm_users (live threads)"; }))
            return;
        // mm_cpumask summarises the runqueues' loaded_mm (switch_mm_irqs_off, mm/tlb.h).
        for (const Rq& rq : sys.rqs) {
            const auto cpu = static_cast<uint64_t>(rq.cpu);
            const bool in_mask = cpu < m.cpumask.size() && m.cpumask.test(cpu);
            if (in_mask != (rq.loaded_mm == &m))
                return fail("{}: cpu {} is {}in mm_cpumask but its loaded_mm is {}this mm",
                            describe(m), rq.cpu, in_mask ? "" : "not ", in_mask ? "not " : "");
        }
    }

    // Mapcounts against the mappings, allocated frames against free pages per node.
    void frames() {
        struct Obj {
            const Vma* owner = nullptr;  // the VMA whose private copies these are; null: shared
            std::vector<const Vma*> mappers;
        };
        // In the order the mms and VMAs come, so that the first mismatch is always the same one.
        std::vector<std::pair<const MemObject*, Obj>> objs;
        std::map<const MemObject*, size_t> index;
        auto obj_of = [&](const MemObject* o) -> Obj& {
            auto [it, added] = index.emplace(o, objs.size());
            if (added) objs.emplace_back(o, Obj{});
            return objs[it->second].second;
        };
        for (const auto& m : sys.mms)
            for (const auto& v : m->vmas) {
                Obj& shared = obj_of(v->object.get());
                if (shared.owner)
                    return fail("{}: maps the private object of {}", describe(*v),
                                describe(*shared.owner));
                shared.mappers.push_back(v.get());
                if (!v->own) continue;
                Obj& o = obj_of(v->own.get());
                if (o.owner || !o.mappers.empty())
                    return fail("{}: its private object is also used by {}", describe(*v),
                                o.owner ? describe(*o.owner) : describe(*o.mappers.front()));
                o.owner = v.get();
            }
        std::vector<uint64_t> used(static_cast<size_t>(sys.nr_nodes()), 0);
        std::vector<uint64_t> active(static_cast<size_t>(sys.nr_nodes()), 0);
        std::vector<uint16_t> expect;
        for (const auto& [obj, o] : objs) {
            const std::string name = o.owner ? "the private copies of " + describe(*o.owner)
                                             : fmt::format("the {} object first mapped by {}",
                                                           obj->is_file ? "file" : "anonymous",
                                                           describe(*o.mappers.front()));
            if (!o.owner) {
                std::vector<const Vma*> listed(obj->mappers.begin(), obj->mappers.end());
                std::vector<const Vma*> real = o.mappers;
                std::sort(listed.begin(), listed.end());
                std::sort(real.begin(), real.end());
                if (listed != real)
                    return fail("{}: reverse map lists {} mappings, {} VMAs map it", name,
                                listed.size(), real.size());
                // The windows that walks over the reverse map read in place of the VMAs'.
                if (obj->windows.size() != obj->mappers.size())
                    return fail("{}: {} windows for {} mappings", name, obj->windows.size(),
                                obj->mappers.size());
                for (size_t k = 0; k < obj->mappers.size(); ++k) {
                    const Vma& v = *obj->mappers[k];
                    const MemObject::Window w = obj->windows[k], real_w = v.window();
                    if (w != real_w)
                        return fail("{}: reverse map window [{}, {}) of {}, which maps [{}, {})",
                                    name, w.first, w.end, describe(v), real_w.first, real_w.end);
                }
                // The mappings per window that shared-page migration counts on.
                for (const auto& t : obj->range_totals) {
                    unsigned windows = 0;
                    for (const Vma* v : real)
                        windows += v->pgoff == t->first && v->nr_pages() == t->count;
                    if (differ(t->window_mappers, windows, [&] {
                            return fmt::format("{}: VMAs mapping object pages [{}, {})", name,
                                               t->first, t->first + t->count);
                        }))
                        return;
                }
            }
            expect.assign(obj->nr_pages, 0);
            if (o.owner) {
                const Vma& v = *o.owner;
                for_each_bit(
                    0, v.nr_pages(), [&](uint64_t w) { return v.present.word(w) & own_word(v, w); },
                    [&](uint64_t i) { expect[i] = 1; });
            } else {
                for (const Vma* v : o.mappers)
                    for_each_bit(
                        0, v->nr_pages(),
                        [&](uint64_t w) { return v->present.word(w) & ~own_word(*v, w); },
                        [&](uint64_t i) { ++expect[v->pgoff + i]; });
            }
            // The LRU index (mm/lru_index.h) of each node reclaim has walked: a frame's bit in
            // each of the node's two lists says whether it is on that list.
            std::vector<int> indexed;
            for (int nid = 0; nid < sys.nr_nodes(); ++nid) {
                if (!obj->lru.indexed(nid)) continue;
                for (int list = 2 * nid; list <= 2 * nid + 1; ++list)
                    if (obj->lru.list(list).size() != obj->nr_pages)
                        return fail("{}: LRU index list {} covers {} pages of {}", name, list,
                                    obj->lru.list(list).size(), obj->nr_pages);
                indexed.push_back(nid);
            }
            for (uint64_t k = 0; k < obj->nr_pages; ++k) {
                const PageFrame& f = obj->frames[k];
                for (int nid : indexed)
                    for (int list = 2 * nid; list <= 2 * nid + 1; ++list)
                        if (obj->lru.list(list).test(k) != (lru_list_of(f) == list))
                            return fail(
                                "{}: frame {} (node {}, flags {:#x}) is {} node {}'s {} "
                                "list in the LRU index",
                                name, k, f.nid, f.flags,
                                obj->lru.list(list).test(k) ? "on" : "missing from", nid,
                                list & 1 ? "active" : "inactive");
                if (f.mapcount != expect[k])
                    return fail("{}: frame {} has mapcount {}, but {} mappings map it", name, k,
                                f.mapcount, expect[k]);
                if (f.flags & PF_LRU_PENDING) {
                    if (!(f.flags & PF_ALLOC))
                        return fail("{}: frame {} waits in an LRU add batch but holds no page",
                                    name, k);
                    lru_pending.insert(&f);
                }
                if (!(f.flags & PF_ALLOC)) {
                    if (f.flags & (PF_ACTIVE | PF_REFERENCED))
                        return fail("{}: frame {} holds no page but has LRU flags {:#x}", name, k,
                                    f.flags);
                    continue;
                }
                // Reclaim puts anon pages only on the active list (mm/vmscan.h).
                if (f.flags & PF_ACTIVE) {
                    if (obj->is_file)
                        return fail("{}: file frame {} on the active anon list", name, k);
                    if (f.nid < sys.nr_nodes()) ++active[f.nid];
                }
                // Only the page cache keeps frames that no mapping maps.
                if (expect[k] == 0 && (o.owner || !obj->is_file))
                    return fail("{}: frame {} on node {} is allocated but nothing maps it (leak)",
                                name, k, f.nid);
                if (f.nid >= sys.nr_nodes())
                    return fail("{}: frame {} on node {}, which does not exist", name, k, f.nid);
                ++used[f.nid];
            }
        }
        uint64_t total = 0;
        for (int nid = 0; nid < sys.nr_nodes(); ++nid) {
            const NodeMemory& nm = sys.mem.nodes[nid];
            total += used[nid];
            if (nm.free_pages > nm.present_pages)
                return fail("node {}: {} free pages of {} present", nid, nm.free_pages,
                            nm.present_pages);
            if (differ(sys.mem.used_pages(nid), used[nid], [&] {
                    return fmt::format(
                        "node {}: pages in use (present_pages - free_pages, against "
                        "allocated frames)",
                        nid);
                }))
                return;
            if (differ(nm.nr_active_anon, active[nid], [&] {
                    return fmt::format("node {}: nr_active_anon (against PF_ACTIVE frames)", nid);
                }))
                return;
        }
        differ(sys.counters[Vm::pgalloc] - sys.counters[Vm::pgfree], total,
               [&] { return "vmstat pgalloc - pgfree (against allocated frames)"; });
    }

    // The per-CPU LRU add batches against the frames marked as waiting in one (frames() first).
    void lru_add_batches() {
        std::set<const PageFrame*> listed;
        for (int cpu = 0; cpu < sys.lru_add.nr_cpus(); ++cpu) {
            const auto& batch = sys.lru_add.batch(cpu);
            if (batch.size() >= std::max<size_t>(sys.knobs.pagevec_size, 1))
                return fail("CPU {}: {} folios in its LRU add batch, which moves at {}", cpu,
                            batch.size(), sys.knobs.pagevec_size);
            for (const PageFrame* f : batch) {
                if (!f) continue;  // a folio freed while it waited
                if (!listed.insert(f).second)
                    return fail("CPU {}: a frame is in the LRU add batches twice", cpu);
                if (!lru_pending.contains(f))
                    return fail("CPU {}: its LRU add batch holds a frame not marked as waiting",
                                cpu);
            }
        }
        differ(listed.size(), lru_pending.size(),
               [&] { return "frames waiting in an LRU add batch (against the batches)"; });
        // The mms on khugepaged's list, whose passes drain the batches (mm/khugepaged.h).
        int listed_mms = 0;
        for (const auto& m : sys.mms)
            listed_mms += m->khugepaged_listed;
        differ(sys.khugepaged_mms, listed_mms,
               [&] { return "mms on khugepaged's list (against the mms marked listed)"; });
    }

    // numa_faults sums of every task, and NUMA group totals against their members.
    void tasks_and_groups() {
        const int nodes = sys.nr_nodes();
        const size_t task_stats = static_cast<size_t>(8 * nodes);
        const size_t group_stats = static_cast<size_t>(4 * nodes);
        struct Sum {
            std::vector<unsigned long> faults;
            unsigned long total = 0;
            int members = 0;
        };
        std::map<const NumaGroup*, Sum> sums;
        for (const auto& g : sys.numa_groups)
            sums[g.get()].faults.assign(group_stats, 0);
        const auto dead = std::count_if(sys.tasks.begin(), sys.tasks.end(),
                                        [](const auto& t) { return t->state == TaskState::Dead; });
        if (static_cast<size_t>(dead) != sys.nr_exited_tasks)
            return fail("{} tasks are dead but nr_exited_tasks counts {}", dead,
                        sys.nr_exited_tasks);
        for (const auto& tp : sys.tasks) {
            const Task& t = *tp;
            if (t.exiting()) {
                if (t.numa_group || !t.numa_faults.empty())
                    return fail("{}: exited but still holds its fault statistics or its group",
                                describe(t));
                continue;
            }
            if (t.numa_faults.empty()) {
                if (t.numa_group)
                    return fail("{}: in NUMA group {} without fault statistics", describe(t),
                                t.numa_group->gid);
                continue;
            }
            if (t.numa_faults.size() != task_stats)
                return fail("{}: {} numa_faults entries for {} nodes", describe(t),
                            t.numa_faults.size(), nodes);
            unsigned long mem = 0;
            for (int nid = 0; nid < nodes; ++nid)
                for (int priv = 0; priv < 2; ++priv)
                    mem += t.numa_faults[task_faults_idx(sys, NUMA_MEM, nid, priv)];
            if (differ(t.total_numa_faults, mem, [&] {
                    return describe(t) + ": total_numa_faults (against the NUMA_MEM entries)";
                }))
                return;
            if (!t.numa_group) continue;
            auto it = sums.find(t.numa_group);
            if (it == sums.end())
                return fail("{}: in NUMA group {}, which the system does not hold", describe(t),
                            t.numa_group->gid);
            for (size_t i = 0; i < group_stats; ++i)
                it->second.faults[i] += t.numa_faults[i];
            it->second.total += t.total_numa_faults;
            ++it->second.members;
        }
        for (const auto& gp : sys.numa_groups) {
            const NumaGroup* g = gp.get();
            const Sum& s = sums[g];
            const std::string where = fmt::format("NUMA group gid {}", g->gid);
            if (g->faults.size() != group_stats)
                return fail("{}: {} fault entries for {} nodes", where, g->faults.size(), nodes);
            for (size_t i = 0; i < group_stats; ++i) {
                const int stat = static_cast<int>(i / (2 * nodes));
                const int nid = static_cast<int>(i / 2 % nodes);
                if (differ(g->faults[i], s.faults[i], [&] {
                        return fmt::format(
                            "{}: faults[{} node {} {}] (against its {} live members)", where,
                            stat_name(stat), nid, i % 2 ? "private" : "shared", s.members);
                    }))
                    return;
            }
            if (differ(g->total_faults, s.total,
                       [&] { return where + ": total_faults (against its members)"; }) ||
                differ(g->nr_tasks, s.members,
                       [&] { return where + ": nr_tasks (live members)"; }) ||
                differ(g->refcount, s.members,
                       [&] { return where + ": refcount (one per member)"; }))
                return;
        }
    }

    // Runqueue counts against curr and the queued tasks, and every task's state against them. A
    // queued task is runnable, or (EEVDF's delayed dequeue) asleep but still competing.
    void runqueues() {
        std::vector<int> seen(sys.tasks.size(), 0);
        auto state_name = [](const Task& t) {
            switch (t.state) {
                case TaskState::Running:
                    return "running";
                case TaskState::Runnable:
                    return "runnable";
                case TaskState::Sleeping:
                    return t.sched_delayed ? "sleeping (delayed dequeue)" : "sleeping";
                default:
                    return "dead";
            }
        };
        for (const Rq& rq : sys.rqs) {
            const int node = sys.cpu_to_node(rq.cpu);
            unsigned running = 0, numa = 0, preferred = 0;
            auto count = [&](const Task* t, bool curr) {
                const bool ok = curr ? t->state == TaskState::Running
                                     : t->state == TaskState::Runnable ||
                                           (t->state == TaskState::Sleeping && t->sched_delayed);
                if (!ok || t->cpu != rq.cpu) {
                    fail("cpu {}: {} is {} there but is {} on cpu {}", rq.cpu, describe(*t),
                         curr ? "curr" : "queued", state_name(*t), t->cpu);
                    return;
                }
                // A kernel thread (kswapd) is no member of sys.tasks: it is counted, not seen.
                if (!t->kthread()) ++seen[static_cast<size_t>(t->index)];
                ++running;
                numa += t->numa_preferred_nid != NUMA_NO_NODE;
                preferred += t->numa_preferred_nid == node;
            };
            if (rq.curr && rq.curr->mm && rq.loaded_mm != rq.curr->mm)
                return fail("cpu {}: runs {} but its loaded_mm is another mm", rq.cpu,
                            describe(*rq.curr));
            if (rq.curr) count(rq.curr, true);
            for (const Task* t : rq.queued)
                count(t, false);
            if (failed()) return;
            const std::string where = fmt::format("cpu {} runqueue", rq.cpu);
            if (differ(rq.nr_running, running,
                       [&] { return where + ": nr_running (curr + queued)"; }) ||
                differ(rq.nr_numa_running, numa,
                       [&] { return where + ": nr_numa_running (tasks with a preferred node)"; }) ||
                differ(rq.nr_preferred_running, preferred, [&] {
                    return where + ": nr_preferred_running (tasks on their preferred node)";
                }))
                return;
        }
        for (const auto& tp : sys.tasks) {
            const Task& t = *tp;
            const bool queued = t.state == TaskState::Running || t.state == TaskState::Runnable ||
                                (t.state == TaskState::Sleeping && t.sched_delayed);
            const int want = queued ? 1 : 0;
            if (seen[static_cast<size_t>(t.index)] != want)
                return fail("{} ({}, cpu {}) is on {} runqueue entries, expected {}", describe(t),
                            state_name(t), t.cpu, seen[static_cast<size_t>(t.index)], want);
        }
    }

    // The NO_HZ state against the runqueues: the idle mask and its count against the CPUs whose
    // tick is stopped (none with the knob off), each such CPU out of its LLC's nr_busy_cpus.
    void nohz() {
        const Nohz& n = sys.nohz;
        int in_mask = 0;
        std::vector<int> busy(n.nr_busy_cpus.size(), 0);
        for (const Rq& rq : sys.rqs) {
            const bool bit = n.idle_cpus_mask[static_cast<size_t>(rq.cpu)] != 0;
            if (bit != rq.nohz_tick_stopped)
                return fail("cpu {}: nohz_tick_stopped {} but {} nohz.idle_cpus_mask", rq.cpu,
                            rq.nohz_tick_stopped, bit ? "in" : "not in");
            if (bit && !sys.knobs.nohz)
                return fail("cpu {}: in nohz.idle_cpus_mask with nohz off", rq.cpu);
            in_mask += bit;
            const bool llc = sys.sched.sd_llc(rq.cpu) != nullptr;
            if (rq.nohz_idle != (llc && bit))
                return fail("cpu {}: sd_llc nohz_idle {} with nohz_tick_stopped {}", rq.cpu,
                            rq.nohz_idle, bit);
            if (llc && !rq.nohz_idle) ++busy[static_cast<size_t>(sys.topo.cpus[rq.cpu].llc)];
        }
        if (differ(n.nr_cpus, in_mask,
                   [] { return std::string("nohz.nr_cpus (CPUs in the mask)"); }))
            return;
        for (size_t l = 0; l < busy.size(); ++l)
            if (differ(n.nr_busy_cpus[l], busy[l],
                       [&] { return fmt::format("llc {}: nr_busy_cpus (CPUs not nohz idle)", l); }))
                return;
    }

    // Memory tiering's promotion state per node (NodeMemory): the candidate counts the rate-limit
    // window and the threshold period started from are counts pgpromote_candidate has passed,
    // an adjusted threshold lies within the knob's range, promotions land on top-tier nodes
    // only, and there are no more of them than NUMA migrations.
    void promotion_state() {
        const Counters& c = sys.counters;
        const size_t nr = static_cast<size_t>(sys.nr_nodes());
        if (c.pgpromote_success.size() != nr || c.pgpromote_candidate.size() != nr)
            return fail("pgpromote_success/candidate sized for {}/{} nodes, machine has {}",
                        c.pgpromote_success.size(), c.pgpromote_candidate.size(), nr);
        // pghot's kmigrated adjusts the threshold around its frequency window (mm/pghot.h).
        const unsigned ref = pghot_active(sys) ? sys.knobs.pghot_promote_freq_window_ms
                                               : sys.knobs.numa_balancing_hot_threshold_ms;
        for (size_t n = 0; n < nr; ++n) {
            const NodeMemory& m = sys.mem.nodes[n];
            const uint64_t cand = c.pgpromote_candidate[n];
            if (m.nbp_rl_nr_cand > cand || m.nbp_th_nr_cand > cand)
                return fail(
                    "node {}: nbp_rl_nr_cand {} / nbp_th_nr_cand {} above "
                    "pgpromote_candidate {}",
                    n, m.nbp_rl_nr_cand, m.nbp_th_nr_cand, cand);
            if (m.nbp_threshold && (m.nbp_threshold < ref * 2 / 16 || m.nbp_threshold > ref * 2))
                return fail("node {}: nbp_threshold {} outside [{}, {}]", n, m.nbp_threshold,
                            ref * 2 / 16, ref * 2);
            if (c.pgpromote_success[n] && !sys.node_is_toptier(static_cast<int>(n)))
                return fail("node {}: pgpromote_success {} on a node below the top tier", n,
                            c.pgpromote_success[n]);
        }
        if (node_stat_total(c.pgpromote_success) > c[Vm::numa_pages_migrated])
            return fail("pgpromote_success {} above numa_pages_migrated {}",
                        node_stat_total(c.pgpromote_success), c[Vm::numa_pages_migrated]);
    }

    // The memory demand the cost model keeps for each running task against the demand derived
    // again from the page counts: a count changed without its placement stamp shows here.
    void cost_demand() {
        for (const Rq& rq : sys.rqs) {
            const Task* t = rq.curr;
            if (!t || !t->touches) continue;
            if (auto stale = sys.cost.find_stale_demand(*t->touches, rq.cpu))
                return fail("{}", *stale);
        }
    }

    // A task's PELT averages marked settled (updates over the settled interval are skipped)
    // against one such update taken again.
    void pelt_settled() {
        for (const auto& t : sys.tasks)
            if (!pelt_settle_holds(*t))
                return fail(
                    "task {} ({}): PELT averages load {} runnable {} util {} marked settled for "
                    "{} ns (runnable {}, running {}, weight {}) move under that update",
                    t->pid, t->comm, t->avg.load_avg, t->avg.runnable_avg, t->avg.util_avg,
                    t->avg.settled_delta, t->avg.settled_runnable, t->avg.settled_running,
                    t->avg.settled_weight);
    }

    // Every valid entry of the sched-group sums cache against the sums of its CPUs' runqueues.
    void sched_group_sums() {
        const SgStatsCache& cache = sys.sg_cache;
        if (!cache.enabled()) return;
        std::vector<std::vector<int>> members(static_cast<size_t>(cache.nr_groups()));
        for (size_t cpu = 0; cpu < sys.sched.cpu_groups.size(); ++cpu)
            for (int g : sys.sched.cpu_groups[cpu])
                members[static_cast<size_t>(g)].push_back(static_cast<int>(cpu));
        for (int g = 0; g < cache.nr_groups(); ++g) {
            const SgSums* cached = cache.cached(g);
            if (!cached) continue;
            const SgSums real = sum_group(sys, members[static_cast<size_t>(g)]);
            if (*cached == real) continue;
            const auto& cpus = members[static_cast<size_t>(g)];
            return fail(
                "sched group {} (cpus {}-{}, {} cpus): cached sums load {} util {} runnable {} "
                "nr_running {} numa {} preferred {} idle {}, recomputed load {} util {} "
                "runnable {} nr_running {} numa {} preferred {} idle {}",
                g, cpus.front(), cpus.back(), cpus.size(), cached->load, cached->util,
                cached->runnable, cached->sum_nr_running, cached->nr_numa_running,
                cached->nr_preferred_running, cached->idle_cpus, real.load, real.util,
                real.runnable, real.sum_nr_running, real.nr_numa_running, real.nr_preferred_running,
                real.idle_cpus);
        }
    }
};

}  // namespace

std::optional<std::string> find_invariant_violation(const System& sys) {
    Checker c{sys, std::nullopt, {}};
    for (const auto& m : sys.mms) {
        c.mm(*m);
        if (c.failed()) return c.failure;
    }
    c.frames();
    if (!c.failed()) c.lru_add_batches();
    if (!c.failed()) c.tasks_and_groups();
    if (!c.failed()) c.runqueues();
    if (!c.failed()) c.nohz();
    if (!c.failed()) c.pelt_settled();
    if (!c.failed()) c.sched_group_sums();
    if (!c.failed()) c.cost_demand();
    if (!c.failed()) c.promotion_state();
    return c.failure;
}

bool check_invariants_by_default() {
#ifdef NUMASIM_CHECK_INVARIANTS
    return true;
#else
    return false;
#endif
}

}  // namespace numasim
