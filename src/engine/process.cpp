#include "engine/process.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "config/limits.h"
#include "kernel/system.h"
#include "kernel/tracepoints.h"
#include "mm/fault.h"
#include "mm/huge_memory.h"
#include "mm/khugepaged.h"
#include "mm/lru_add.h"
#include "mm/lru_index.h"
#include "mm/page_alloc.h"
#include "numab/numab.h"
#include "numab/placement_policy.h"
#include "numab/proc_sched.h"
#include "sched/fair.h"

namespace numasim {

Mm& mm_create(System& sys) {
    auto mm = std::make_unique<Mm>();
    mm->id = static_cast<int>(sys.mms.size());
    mm->pages = sys.pages();
    sys.mms.push_back(std::move(mm));
    return *sys.mms.back();
}

Vma& do_mmap(System& sys, Mm& mm, uint64_t bytes, uint32_t vm_flags, const std::string& name,
             std::shared_ptr<MemObject> object, uint64_t pgoff, uint64_t addr) {
    const uint64_t machine = sys.topo.total_mem_bytes();
    if (bytes == 0) throw WorkloadTooLarge(fmt::format("mapping '{}' has no pages", name));
    if (bytes > machine)
        throw WorkloadTooLarge(
            fmt::format("mapping '{}' is {:.1f} GiB but the machine has {:.1f} GiB of memory", name,
                        static_cast<double>(bytes) / 1073741824.0,
                        static_cast<double>(machine) / 1073741824.0));
    const PageGeometry& pg = mm.pages;
    const uint64_t pages = pg.pages(bytes);
    const uint64_t len = pages * pg.size();
    const uint64_t pmd = pg.pmd_size();
    auto v = std::make_unique<Vma>();
    v->mm = &mm;
    v->pages = pg;
    v->name = name;
    if (addr) {
        v->start = addr;
    } else if (mm.mmap_top_down) {
        v->start = mm.mmap_base - len;
        if (len >= pmd) v->start &= ~(pmd - 1);
        mm.mmap_base = v->start;
    } else {
        // Leave a gap so that VMAs never merge, and align for THP.
        mm.mmap_base = (mm.mmap_base + pmd - 1) & ~(pmd - 1);
        v->start = mm.mmap_base;
        mm.mmap_base = v->start + len + pmd;
    }
    v->end = v->start + len;
    v->vm_flags = vm_flags | VM_MAYWRITE * ((vm_flags & VM_WRITE) != 0);
    if (!object) object = std::make_shared<MemObject>(pgoff + pages, (vm_flags & VM_FILE) != 0);
    // A fault indexes the object's frames by pgoff + page: a mapping past the object's end
    // would read and write beyond them.
    if (pgoff + pages > object->nr_pages)
        throw std::logic_error(fmt::format("mapping '{}' ends at page {} of an object of {} pages",
                                           name, pgoff + pages, object->nr_pages));
    v->object = std::move(object);
    v->pgoff = pgoff;
    v->object->add_mapper(*v, sys.nr_nodes());
    v->present = Bitmap(pages);
    v->protnone = Bitmap(pages);
    v->pmd_mapped = Bitmap((pages >> pg.pmd_order) + 2);
    v->node_pages.assign(static_cast<size_t>(sys.nr_nodes()), 0);
    // A window of an object others map already may hold moves: this mapping's part is what is
    // left (nothing is present in it yet).
    for (int n = 0; n < sys.nr_nodes(); ++n)
        v->node_pages[static_cast<size_t>(n)] -= v->shared->moved[static_cast<size_t>(n)];
    v->init_block_counts();
    Vma& ref = *v;
    auto it =
        std::upper_bound(mm.vmas.begin(), mm.vmas.end(), ref.start,
                         [](uint64_t s, const std::unique_ptr<Vma>& x) { return s < x->start; });
    // VMAs never overlap (the scanner walks them in address order).
    if ((it != mm.vmas.end() && (*it)->start < ref.end) ||
        (it != mm.vmas.begin() && (*(it - 1))->end > ref.start))
        throw std::logic_error("do_mmap: " + name + " overlaps an existing mapping");
    mm.vmas.insert(it, std::move(v));
    // An anonymous VMA that may hold THPs puts its mm on khugepaged's list.
    if (thp_vma_allowable(sys.knobs.transparent_hugepage_enabled, ref.vm_flags))
        khugepaged_enter(sys, mm);
    return ref;
}

Region& add_region(System& sys, Vma& vma, uint64_t first_page, uint64_t count,
                   const std::string& name) {
    auto r = std::make_unique<Region>();
    r->name = name;
    r->vma = &vma;
    r->first = first_page;
    r->count = count;
    r->node_pages.assign(sys.nr_nodes(), 0);
    for (uint64_t i = vma.present.find_next(first_page, first_page + count); i < first_page + count;
         i = vma.present.find_next(i + 1, first_page + count)) {
        ++r->node_pages[vma.frame(i).nid];
        ++r->present;
    }
    // The region's pages of the object: the object's moves of that range count for it too, so
    // its own part is the count minus them (see ObjectRangeTotals).
    r->shared = vma.object->totals_for(vma.pgoff + first_page, count, sys.nr_nodes());
    for (int n = 0; n < sys.nr_nodes(); ++n)
        r->node_pages[static_cast<size_t>(n)] -= r->shared->moved[static_cast<size_t>(n)];
    r->protnone = vma.protnone.count(first_page, first_page + count);
    Region& ref = *r;
    vma.add_region(r.get());
    vma.mm->regions.push_back(std::move(r));
    return ref;
}

namespace {

Task& new_task(System& sys, Mm& mm, Task* parent, const std::string& comm, TaskProgram* program,
               int workload, int thread_index, bool clone_vm) {
    if (static_cast<int64_t>(sys.tasks.size()) >= kMaxTasks)
        throw WorkloadTooLarge(fmt::format("more than {} tasks", kMaxTasks));
    auto t = std::make_unique<Task>();
    Task& p = *t;
    p.index = static_cast<int>(sys.tasks.size());
    p.pid = sys.next_pid++;
    p.tgid = clone_vm && parent ? parent->tgid : p.pid;
    p.comm = comm;
    p.mm = &mm;
    p.program = program;
    p.workload = workload;
    p.thread_index = thread_index;
    p.allow_all(sys.nr_cpus());
    p.start_time = sys.now;
    if (parent) {
        p.cpu = parent->cpu;
        p.mempolicy = parent->mempolicy;
        p.has_mempolicy = parent->has_mempolicy;
        p.cpus_allowed = parent->cpus_allowed;
        p.nr_cpus_allowed = parent->nr_cpus_allowed;
    } else {
        // Started from outside, as a shell would exec it: under its launcher's binding, if the
        // policy has one. Before the first placement, as numactl's settings precede exec().
        const PlacementPolicy* policy = sys.placement_policy;
        const int process = sys.nr_exec_processes++;
        if (policy && policy->has(PlacementPolicy::kExec)) policy->exec(sys, p, process);
    }
    sys.tasks.push_back(std::move(t));
    mm.tasks.push_back(&p);
    init_numa_balancing(sys, p, parent, clone_vm);  // sched_fork(): before copy_mm() counts p
    ++mm.mm_users;
    if (parent) trace_sched_process_fork(sys, *parent, p);
    wake_up_new_task(sys, p);
    return p;
}

}  // namespace

Task& create_process(System& sys, Mm& mm, Task* parent, const std::string& comm,
                     TaskProgram* program, int workload, int thread_index) {
    if (mm.tasks.empty() && mm.numa_next_scan == 0)
        mm.numa_next_scan = sys.now + msecs_to_ns(sys.knobs.scan_delay_ms);
    return new_task(sys, mm, parent, comm, program, workload, thread_index, false);
}

Task& create_thread(System& sys, Task& parent, const std::string& comm, TaskProgram* program,
                    int thread_index) {
    return new_task(sys, *parent.mm, &parent, comm, program, parent.workload, thread_index, true);
}

Mm& dup_mm(System& sys, Mm& parent) {
    // The parent's private mappings start keeping copies: its writes may find shared pages.
    QuietStamp::bump();
    Mm& child = mm_create(sys);
    const int fork_cpu = parent.tasks.empty() ? 0 : parent.tasks.front()->cpu;  // zone statistics
    child.mmap_base = parent.mmap_base;
    child.mmap_top_down = parent.mmap_top_down;
    for (auto& pv : parent.vmas) {
        auto v = std::make_unique<Vma>();
        Vma& cv = *v;
        cv.mm = &child;
        cv.pages = pv->pages;
        cv.name = pv->name;
        cv.start = pv->start;
        cv.end = pv->end;
        cv.vm_flags = pv->vm_flags;
        cv.policy = pv->policy;
        cv.object = pv->object;
        cv.pgoff = pv->pgoff;
        cv.present = pv->present;
        // copy_page_range() and vm_area_dup() run on the forking CPU.
        cv.mapping_nid = sys.cpu_to_node(fork_cpu);
        if (pv->pte_nid >= 0) cv.pte_nid = cv.mapping_nid;
        cv.protnone = pv->protnone;
        cv.pmd_mapped = pv->pmd_mapped;
        cv.blk_absent = pv->blk_absent;
        cv.blk_protnone = pv->blk_protnone;
        cv.sblk_interesting = pv->sblk_interesting;
        cv.node_pages = pv->node_pages;
        cv.object->add_mapper(cv, sys.nr_nodes());
        // Both sides now share every present frame; later private writes copy (do_wp_page).
        const uint64_t n = cv.nr_pages();
        for (uint64_t i = cv.present.find_next(0, n); i < n; i = cv.present.find_next(i + 1, n))
            if (pv->shares_object_page(i)) ++pv->frame(i).mapcount;
        if (pv->own_mask.size()) {
            // Pages the parent already copied privately are copied for the child as well, as
            // base pages on the same node when it has room (a simplification: the kernel would
            // share them copy-on-write a second time). A copy that finds no memory is left
            // unmapped, and the child faults the page in again when it touches it.
            cv.own_mask = pv->own_mask;
            for (uint64_t i = cv.own_mask.find_next(0, n); i < n;
                 i = cv.own_mask.find_next(i + 1, n)) {
                split_huge_pmd(cv, i);
                const int parent_nid = pv->own->frames[i].nid;
                const int nid = alloc_pages_node(sys, parent_nid, 0, fork_cpu);
                --cv.node_pages[static_cast<size_t>(parent_nid)];
                if (nid >= 0) {
                    MemObject& own = cv.own_object();
                    PageFrame& f = own.frames[i];
                    const int was = lru_list_of(f);
                    f = pv->own->frames[i];
                    f.nid = static_cast<uint8_t>(nid);
                    // A new page: off the active list, not yet found referenced.
                    f.flags &= static_cast<uint8_t>(
                        ~(PF_THP | PF_LRU_PENDING | PF_ACTIVE | PF_REFERENCED));
                    own.lru.note(i, was, lru_list_of(f));
                    folio_add_lru(sys, fork_cpu, &f);  // a new page, in the forking CPU's batch
                    ++cv.node_pages[static_cast<size_t>(nid)];
                    continue;
                }
                cv.own_mask.clear(i);
                cv.present.clear(i);
                cv.protnone.clear(i);
            }
            cv.init_block_counts();
        } else if (!(cv.vm_flags & VM_SHARED)) {
            // Private mappings keep later private pages apart from here on (their objects come
            // with the first such page, Vma::own_object).
            pv->own_mask = Bitmap(n);
            cv.own_mask = Bitmap(n);
        }
        child.rss_pages += cv.present.count(0, n);
        child.vmas.push_back(std::move(v));
    }
    for (auto& r : parent.regions) {
        const size_t vi = static_cast<size_t>(
            std::find_if(parent.vmas.begin(), parent.vmas.end(),
                         [&](const std::unique_ptr<Vma>& x) { return x.get() == r->vma; }) -
            parent.vmas.begin());
        add_region(sys, *child.vmas[vi], r->first, r->count, r->name);
    }
    // dup_mm() copies the whole mm_struct and mm_init() resets none of the scan state: the
    // child resumes the parent's pass, next scan time and offset (init_numa_balancing() restarts
    // both when the parent is single-threaded).
    child.numa_next_scan = parent.numa_next_scan;
    child.numa_scan_seq = parent.numa_scan_seq;
    child.numa_scan_offset = parent.numa_scan_offset;
    if (parent.khugepaged_listed) khugepaged_enter(sys, child);  // khugepaged_fork()
    return child;
}

void do_exit(System& sys, Task& p) {
    if (p.state == TaskState::Dead) return;
    trace_sched_process_exit(sys, p);
    dequeue_sleeping_task(sys, p, /*exiting=*/true);
    p.state = TaskState::Dead;
    ++sys.nr_exited_tasks;
    p.exit_time = sys.now;
    // The fault statistics die with the task; keep what /proc/<pid>/sched showed last.
    p.proc_sched_at_exit = sched_show_numa(sys, p);
    task_numa_free(sys, p);
    Mm& mm = *p.mm;
    mm.tasks.erase(std::find(mm.tasks.begin(), mm.tasks.end(), &p));
    --mm.mm_users;
    if (mm.mm_users == 0) khugepaged_exit(sys, mm);  // exit_mmap()
}

bool other_threads_live(const Task& p) {
    for (const Task* q : p.mm->tasks)
        if (q != &p && q->tgid == p.tgid && q->state != TaskState::Dead) return true;
    return false;
}

Region* find_region(Mm& mm, const std::string& name) {
    for (auto& r : mm.regions)
        if (r->name == name) return r.get();
    return nullptr;
}

}  // namespace numasim
