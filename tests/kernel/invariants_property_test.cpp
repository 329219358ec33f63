// Property test of the model's cached totals: whatever sequence of memory-management and
// NUMA-balancing operations runs, every total the model keeps (region, VMA block, rss, free
// pages, mapcounts, fault sums, group totals, runqueue counts) equals what the page and task
// state says. Each seed drives a random sequence of mmap (private, THP, shared, file), first
// touch, writes (copy-on-write), scan windows of every size (from one page to more than the VMA,
// and task_numa_work with every scan_size_mb), hinting faults, page migrations (some to a full
// node, which fail), THP splits, fork, munmap, thread exit and stretches of engine time, on
// machines whose nodes are small enough to fill, and runs the checker after every operation.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "engine/engine.h"
#include "engine/process.h"
#include "engine/program.h"
#include "kernel/invariants.h"
#include "kernel/system.h"
#include "machine/presets.h"
#include "mm/fault.h"
#include "mm/migrate.h"
#include "mm/mm.h"
#include "mm/munmap.h"
#include "numab/numab.h"
#include "numab/profile.h"
#include "sched/fair.h"
#include "sim/rng.h"

namespace numasim {
namespace {

// Node memory small enough that a few mappings fill a node: 48 MiB = 12288 pages.
constexpr uint64_t NODE_BYTES = 48ull << 20;
constexpr int STEPS = 160;
#if defined(__SANITIZE_ADDRESS__)
constexpr int SEEDS = 8;  // ASan runs every step about 10x slower
#else
constexpr int SEEDS = 40;
#endif

bool is_work(const Vma& v) {
    return v.name.rfind("work", 0) == 0;
}

// A thread's program: phases of random streams over the regions of its mm's work VMAs (found by
// name at every phase, so forked children use their own copies), sometimes sleeping, sometimes
// moving to another node; `phases` < 0 loops forever, otherwise the task exits after that many.
class RandomProgram : public TaskProgram {
  public:
    RandomProgram(uint64_t seed, int phases, int nr_cpus)
        : rng_(seed, "program"), left_(phases), nr_cpus_(nr_cpus) {}

    bool next_phase(Task& t, Phase& ph) override {
        if (left_ == 0) return false;
        if (left_ > 0) --left_;
        std::vector<Region*> regions;
        for (auto& r : t.mm->regions)
            if (is_work(*r->vma)) regions.push_back(r.get());
        const int streams = regions.empty() ? 0 : 1 + static_cast<int>(rng_.below(3));
        for (int i = 0; i < streams; ++i) {
            AccessStream s;
            s.region = regions[rng_.below(regions.size())];
            s.pattern = static_cast<Pattern>(rng_.below(3));
            s.share = 1.0 / streams;
            s.write_fraction = rng_.bernoulli(0.5) ? rng_.uniform() : 0.0;
            s.start_at_thread_offset = rng_.bernoulli(0.3);
            s.start_page = rng_.below(1 << 12);
            ph.streams.push_back(s);
        }
        ph.rate_gbs = 0.5 + 4 * rng_.uniform();
        ph.cpu_time = static_cast<Nanos>(1 + rng_.below(8)) * NSEC_PER_MSEC;
        if (rng_.bernoulli(0.2))
            ph.sleep_after = static_cast<Nanos>(1 + rng_.below(20)) * NSEC_PER_MSEC;
        if (rng_.bernoulli(0.05))
            ph.set_affinity = std::vector<int>{static_cast<int>(rng_.below(nr_cpus_))};
        if (rng_.bernoulli(0.05)) ph.clear_affinity = true;
        return true;
    }

  private:
    Rng rng_;
    int left_;
    int nr_cpus_;
};

class Driver {
  public:
    explicit Driver(uint64_t seed) : seed_(seed), rng_(seed, "property") {
        Topology topo = load_preset(rng_.bernoulli(0.5) ? "tiny-2n" : "tiny-4n");
        for (auto& n : topo.nodes)
            n.mem_bytes = NODE_BYTES;
        static const char* profiles[] = {"v4.18", "v6.1", "v6.6", "v6.12"};
        NumaBalancingKnobs k = load_profile(profiles[rng_.below(4)]);
        k.scan_delay_ms = 10;  // scan from the first ticks on
        k.scan_period_min_ms = 10;
        k.skip_shared_cow = rng_.bernoulli(0.5);
        sys_ = std::make_unique<System>(std::move(topo), k, seed);
        engine_ = std::make_unique<Engine>(*sys_);
        engine_->set_check_invariants(true);  // also inside runs, after ticks
        // The first process lives for the whole test, so the engine always has a task.
        new_process(-1);
        new_process(20);
    }

    // One random operation; returns its description for the failure log.
    std::string step() {
        switch (rng_.below(16)) {
            case 0:
            case 1:
                return run_engine();
            case 2:
                return mmap_scratch();
            case 3:
            case 4:
                return touch(false);
            case 5:
                return touch(true);
            case 6:
            case 7:
                return scan_window();
            case 8:
                return numa_work();
            case 9:
                return hint_faults();
            case 10:
                return migrate_pages();
            case 11:
                return fill_node();
            case 12:
                return fork();
            case 13:
                return munmap();
            case 14:
                return exit_task();
            default:
                return split_thp();
        }
    }

    System& sys() { return *sys_; }
    uint64_t munmaps = 0, forks = 0, splits = 0, exits = 0;

  private:
    // --- set-up ---

    Vma& map(Mm& mm, const std::string& name, std::shared_ptr<MemObject> share = nullptr) {
        const uint64_t pages = 1 + rng_.below(rng_.bernoulli(0.3) ? 4096 : 1200);
        uint32_t flags = VM_READ | VM_WRITE;
        uint64_t pgoff = 0;
        if (share) {
            flags |= share->is_file ? VM_FILE : VM_SHARED;
        } else {
            switch (rng_.below(4)) {
                case 0:
                    flags |= VM_HUGEPAGE;
                    break;
                case 1:
                    flags |= VM_SHARED | (rng_.bernoulli(0.5) ? VM_HUGEPAGE : 0);
                    break;
                case 2:
                    flags |= VM_FILE;
                    break;
                default:
                    break;
            }
        }
        uint64_t n = pages;
        if (share) {
            pgoff = rng_.below(share->nr_pages);
            n = 1 + rng_.below(share->nr_pages - pgoff);
        }
        Vma& v = do_mmap(*sys_, mm, n * kPages4K.size(), flags, name, share, pgoff);
        add_region(*sys_, v, 0, v.nr_pages(), name);
        // Overlapping slices of every size, as threads carve up a buffer.
        const int slices = static_cast<int>(rng_.below(5));
        for (int i = 0; i < slices; ++i) {
            const uint64_t first = rng_.below(v.nr_pages());
            const uint64_t count = 1 + rng_.below(v.nr_pages() - first);
            add_region(*sys_, v, first, count, name + "#" + std::to_string(i));
        }
        return v;
    }

    void new_process(int phases) {
        Mm& mm = mm_create(*sys_);
        const int vmas = 1 + static_cast<int>(rng_.below(3));
        for (int i = 0; i < vmas; ++i)
            map(mm, "work" + std::to_string(i), maybe_shared_object());
        Task& leader = create_process(*sys_, mm, nullptr, "proc", program(phases), 0, 0);
        const int threads = static_cast<int>(rng_.below(4));
        for (int i = 0; i < threads; ++i)
            create_thread(*sys_, leader, "thread", program(rng_.bernoulli(0.5) ? -1 : 30), i + 1);
    }

    TaskProgram* program(int phases) {
        programs_.push_back(
            std::make_unique<RandomProgram>(rng_.next_u64(), phases, sys_->nr_cpus()));
        return programs_.back().get();
    }

    // Now and then an existing shared or file object, so that processes share pages.
    std::shared_ptr<MemObject> maybe_shared_object() {
        if (!rng_.bernoulli(0.3)) return nullptr;
        std::vector<std::shared_ptr<MemObject>> objs;
        for (auto& m : sys_->mms)
            for (auto& v : m->vmas)
                if (v->object->is_file || (v->vm_flags & VM_SHARED)) objs.push_back(v->object);
        return objs.empty() ? nullptr : objs[rng_.below(objs.size())];
    }

    // --- picking ---

    Task* running_task() {
        std::vector<Task*> c;
        for (auto& rq : sys_->rqs)
            if (rq.curr && !rq.curr->exiting()) c.push_back(rq.curr);
        return c.empty() ? nullptr : c[rng_.below(c.size())];
    }

    Vma* vma_of(Mm& mm) {
        if (mm.vmas.empty()) return nullptr;
        return mm.vmas[rng_.below(mm.vmas.size())].get();
    }

    // A page range of `v`: any start, lengths from one page to more than the VMA.
    std::pair<uint64_t, uint64_t> range(const Vma& v) {
        static const uint64_t lens[] = {1, 7, 64, 511, 512, 513, 1500, 4096, 65536};
        const uint64_t first = rng_.below(v.nr_pages());
        const uint64_t len = rng_.bernoulli(0.2) ? v.nr_pages() + 1 : lens[rng_.below(9)];
        return {first, std::min(v.nr_pages(), first + len)};
    }

    // --- operations ---

    std::string run_engine() {
        const int ticks = 1 + static_cast<int>(rng_.below(40));
        engine_->run(sys_->now + ticks * TICK_NSEC);
        return "run " + std::to_string(ticks) + " ticks";
    }

    std::string mmap_scratch() {
        Task* t = running_task();
        Mm& mm = t ? *t->mm : *sys_->mms[rng_.below(sys_->mms.size())];
        Vma& v = map(mm, "scratch", maybe_shared_object());
        return "mmap " + std::to_string(v.nr_pages()) + " pages in mm " + std::to_string(mm.id);
    }

    // The engine's fault path for one access.
    void access(Task& p, Vma& v, uint64_t i, bool write) {
        if (!v.present.test(i)) {
            handle_mm_fault(*sys_, p, v, i, write);
        } else if (v.protnone.test(i)) {
            ++sys_->counters[Vm::pgfault];
            do_numa_page(*sys_, p, v, i, write);
            if (write && v.present.test(i) && !v.protnone.test(i)) do_wp_page(*sys_, p, v, i);
        } else if (write) {
            do_wp_page(*sys_, p, v, i);
        }
    }

    std::string touch(bool write) {
        Task* t = running_task();
        if (!t) return "touch: nothing running";
        Vma* v = vma_of(*t->mm);
        if (!v) return "touch: no vma";
        auto [lo, hi] = range(*v);
        hi = std::min(hi, lo + 2048);
        for (uint64_t i = lo; i < hi && t->mm; ++i)
            if (!t->exiting()) access(*t, *v, i, write);
        return (write ? "write " : "touch ") + v->name + " [" + std::to_string(lo) + ", " +
               std::to_string(hi) + ")";
    }

    std::string scan_window() {
        Task* t = running_task();
        if (!t) return "scan: nothing running";
        Vma* v = vma_of(*t->mm);
        if (!v) return "scan: no vma";
        const auto [lo, hi] = range(*v);
        double ns = 0;
        change_prot_numa(*sys_, *t, *v, v->page_addr(lo), v->page_addr(hi), ns);
        return "change_prot_numa " + v->name + " [" + std::to_string(lo) + ", " +
               std::to_string(hi) + ")";
    }

    std::string numa_work() {
        Task* t = running_task();
        if (!t) return "task_numa_work: nothing running";
        static const unsigned sizes[] = {1, 2, 4, 16, 64, 256, 1024, 4096};
        sys_->knobs.scan_size_mb = sizes[rng_.below(8)];
        t->mm->numa_next_scan = 0;  // past the per-mm rate limit
        task_numa_work(*sys_, *t);
        return "task_numa_work scan_size_mb=" + std::to_string(sys_->knobs.scan_size_mb);
    }

    std::string hint_faults() {
        Task* t = running_task();
        if (!t) return "hint: nothing running";
        Vma* v = vma_of(*t->mm);
        if (!v) return "hint: no vma";
        uint64_t i = v->protnone.find_next(rng_.below(v->nr_pages()), v->nr_pages());
        for (int k = 0; k < 64 && i < v->nr_pages() && !t->exiting(); ++k) {
            access(*t, *v, i, rng_.bernoulli(0.3));
            i = v->protnone.find_next(i + 1 + rng_.below(8), v->nr_pages());
        }
        return "hinting faults in " + v->name;
    }

    std::string migrate_pages() {
        Task* t = running_task();
        if (!t) return "migrate: nothing running";
        Vma* v = vma_of(*t->mm);
        if (!v) return "migrate: no vma";
        uint64_t i = v->present.find_next(rng_.below(v->nr_pages()), v->nr_pages());
        int moved = 0;
        for (int k = 0; k < 32 && i < v->nr_pages(); ++k) {
            uint64_t first = i, last = i + 1, nr = 1;
            if (v->pmd_mapped.size() && v->thp_block(i, first, last) &&
                v->pmd_mapped.test((v->page_addr(first) >> 21) - (v->start >> 21)))
                nr = kPages4K.pmd_nr();
            else
                first = i;
            const int target = static_cast<int>(rng_.below(sys_->nr_nodes()));
            double ns = 0;
            if (v->frame(first).nid != target &&
                migrate_misplaced_folio(*sys_, *t, *v, first, nr, target, ns) == MIGRATE_OK)
                ++moved;
            i = v->present.find_next(first + nr + rng_.below(16), v->nr_pages());
        }
        return "migrated " + std::to_string(moved) + " folios of " + v->name;
    }

    // A bound mapping that takes a node down to its min watermark: migrations there fail.
    std::string fill_node() {
        Task* t = running_task();
        if (!t) return "fill: nothing running";
        const int nid = static_cast<int>(rng_.below(sys_->nr_nodes()));
        const NodeMemory& m = sys_->mem.nodes[nid];
        const uint64_t pages = m.free_pages + 64;
        Vma& v =
            do_mmap(*sys_, *t->mm, pages * kPages4K.size(), VM_READ | VM_WRITE, "scratch-fill");
        v.policy = MemPolicy{};
        v.policy->mode = MpolMode::Bind;
        v.policy->nodes = uint64_t{1} << nid;
        add_region(*sys_, v, 0, v.nr_pages(), "scratch-fill");
        for (uint64_t i = 0; i < pages; ++i)
            handle_mm_fault(*sys_, *t, v, i, true);
        return "fill node " + std::to_string(nid) + ": " + std::to_string(m.free_pages) + " free";
    }

    std::string fork() {
        Task* t = running_task();
        if (!t) return "fork: nothing running";
        Mm& child = dup_mm(*sys_, *t->mm);
        create_process(*sys_, child, t, "child", program(rng_.bernoulli(0.3) ? -1 : 20), 0, 0);
        ++forks;
        return "fork mm " + std::to_string(t->mm->id) + " -> mm " + std::to_string(child.id);
    }

    // A scratch VMA of any mm, or any VMA of an mm whose threads have all exited (exit_mmap).
    std::string munmap() {
        std::vector<Vma*> c;
        for (auto& m : sys_->mms)
            for (auto& v : m->vmas)
                if (!is_work(*v) || m->tasks.empty()) c.push_back(v.get());
        if (c.empty()) return "munmap: nothing to unmap";
        Vma* v = c[rng_.below(c.size())];
        const std::string what = "munmap " + v->name + " of mm " + std::to_string(v->mm->id);
        do_munmap(*sys_, *v);
        ++munmaps;
        return what;
    }

    std::string exit_task() {
        std::vector<Task*> c;
        for (auto& t : sys_->tasks)
            if (!t->exiting() && t->index != 0) c.push_back(t.get());
        if (c.empty()) return "exit: nothing to end";
        Task& t = *c[rng_.below(c.size())];
        const int cpu = t.cpu;
        do_exit(*sys_, t);
        schedule(*sys_, cpu);
        ++exits;
        return "exit pid " + std::to_string(t.pid);
    }

    // A scan window that cuts a PMD-mapped THP: change_prot_numa splits it.
    std::string split_thp() {
        for (auto& m : sys_->mms)
            for (auto& v : m->vmas)
                for (uint64_t b = v->pmd_mapped.find_next(0, v->pmd_mapped.size());
                     b < v->pmd_mapped.size();
                     b = v->pmd_mapped.find_next(b + 1, v->pmd_mapped.size())) {
                    if (m->tasks.empty() || !rng_.bernoulli(0.5)) continue;
                    const uint64_t first = v->page_index(((v->start >> 21) + b) << 21);
                    const uint64_t lo = first + rng_.below(kPages4K.pmd_nr() / 2) + 1;
                    double ns = 0;
                    change_prot_numa(*sys_, *m->tasks.front(), *v, v->page_addr(lo),
                                     v->page_addr(lo + 1 + rng_.below(200)), ns);
                    ++splits;
                    return "split THP " + std::to_string(b) + " of " + v->name;
                }
        return "split: no THP";
    }

    uint64_t seed_;
    Rng rng_;
    std::unique_ptr<System> sys_;
    std::unique_ptr<Engine> engine_;
    std::vector<std::unique_ptr<TaskProgram>> programs_;
};

TEST(InvariantProperty, RandomOperationSequencesKeepEveryCachedTotalExact) {
    Counters seen;
    uint64_t munmaps = 0, forks = 0, splits = 0, exits = 0;
    // NUMASIM_PROPERTY_SEED=i replays seed index i alone; NUMASIM_PROPERTY_SEEDS=n runs n seeds
    // (a longer soak than CI's).
    const char* only = std::getenv("NUMASIM_PROPERTY_SEED");
    const char* many = std::getenv("NUMASIM_PROPERTY_SEEDS");
    const int from = only ? std::atoi(only) : 0;
    const int to = only ? from + 1 : many ? std::atoi(many) : SEEDS;
    for (int s = from; s < to; ++s) {
        const uint64_t seed = derive_seed(0x1a7a, static_cast<uint64_t>(s));
        Driver d(seed);
        std::deque<std::string> log;
        auto last_ops = [&] {
            std::string ops = "\nlast operations:";
            for (const auto& l : log)
                ops += "\n  " + l;
            return ops;
        };
        for (int i = 0; i < STEPS; ++i) {
            std::string op;
            try {
                op = d.step();
            } catch (const InvariantViolation& e) {  // from a check inside an engine run
                FAIL() << "seed index " << s << " step " << i << ": " << e.what() << last_ops();
            }
            log.push_back(op);
            if (log.size() > 8) log.pop_front();
            if (auto v = find_invariant_violation(d.sys()))
                FAIL() << "seed index " << s << " step " << i << ": " << *v << last_ops();
        }
        for (size_t k = 0; k < seen.vm.size(); ++k)
            seen.vm[k] += d.sys().counters.vm[k];
        munmaps += d.munmaps;
        forks += d.forks;
        splits += d.splits;
        exits += d.exits;
    }
    // The sequences reached every path they are meant to cover.
    EXPECT_GT(seen[Vm::numa_pages_migrated], 0u);
    EXPECT_GT(seen[Vm::pgmigrate_fail], 0u);  // target node full
    EXPECT_GT(seen[Vm::thp_fault_alloc], 0u);
    EXPECT_GT(seen[Vm::thp_migration_success], 0u);
    EXPECT_GT(seen[Vm::numa_huge_pte_updates], 0u);
    EXPECT_GT(seen[Vm::numa_hint_faults], 0u);
    EXPECT_GT(seen[Vm::pgfree], 0u);
    EXPECT_GT(munmaps, 0u);
    EXPECT_GT(forks, 0u);
    EXPECT_GT(splits, 0u);
    EXPECT_GT(exits, 0u);
}

}  // namespace
}  // namespace numasim
