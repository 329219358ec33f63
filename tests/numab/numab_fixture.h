// A small hand-built world for the NUMA-balancing unit tests: the tiny-2n preset (2 nodes x 2
// CPUs, SLIT 10/21), address spaces with one anonymous VMA, and tasks placed by hand.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "kernel/system.h"
#include "machine/presets.h"
#include "mm/mm.h"
#include "numab/numab.h"

namespace numasim::test {

inline constexpr uint64_t kVmaStart = uint64_t{1} << 40;  // 2 MiB aligned

struct NumabWorld {
    explicit NumabWorld(NumaBalancingKnobs k = {}, const std::string& preset = "tiny-2n")
        : sys(load_preset(preset), k, 1) {}

    Mm& new_mm() {
        sys.mms.push_back(std::make_unique<Mm>());
        Mm& mm = *sys.mms.back();
        mm.id = static_cast<int>(sys.mms.size());
        mm.pages = sys.pages();
        return mm;
    }

    // An anonymous private writable VMA of `pages` pages, all present on `nid`, mapcount 1.
    Vma& new_vma(Mm& mm, uint64_t pages, int nid, bool present = true) {
        auto v = std::make_unique<Vma>();
        Vma& vma = *v;
        vma.mm = &mm;
        vma.pages = mm.pages;
        vma.name = "anon";
        vma.start = kVmaStart + mm.vmas.size() * (uint64_t{1} << 32);
        vma.end = vma.start + pages * mm.pages.size();
        vma.vm_flags = VM_READ | VM_WRITE | VM_MAYWRITE;
        vma.object = std::make_shared<MemObject>(pages, false);
        vma.object->list_mapper(vma);
        vma.present = Bitmap(pages);
        vma.protnone = Bitmap(pages);
        vma.pmd_mapped = Bitmap((pages + mm.pages.pmd_nr() - 1) / mm.pages.pmd_nr());
        for (uint64_t i = 0; i < pages; ++i) {
            PageFrame& f = vma.object->frames[i];
            f.nid = static_cast<uint8_t>(nid);
            f.flags = PF_ALLOC;
            f.mapcount = 1;
        }
        if (present) {
            vma.present.set_range(0, pages);
            mm.rss_pages += pages;
        }
        vma.init_block_counts();
        mm.vmas.push_back(std::move(v));
        return vma;
    }

    // A mapping by `mm` of `pages` pages of `of`'s object from object page `pgoff`, as fork
    // leaves one: in the object's reverse map, with nothing present yet. The caller sets its PTE
    // bits, then calls init_block_counts().
    Vma& map_object(Mm& mm, const Vma& of, uint64_t pgoff, uint64_t pages) {
        auto v = std::make_unique<Vma>();
        Vma& vma = *v;
        vma.mm = &mm;
        vma.pages = of.pages;
        vma.name = of.name;
        vma.start = of.start + (pgoff - of.pgoff) * of.pages.size();
        vma.end = vma.start + pages * of.pages.size();
        vma.pgoff = pgoff;
        vma.vm_flags = of.vm_flags;
        vma.object = of.object;
        vma.object->list_mapper(vma);
        vma.present = Bitmap(pages);
        vma.protnone = Bitmap(pages);
        vma.pmd_mapped = Bitmap((pages + of.pages.pmd_nr() - 1) / of.pages.pmd_nr());
        mm.vmas.push_back(std::move(v));
        return vma;
    }

    // A task of `mm` on `cpu`, running there (rq->curr) if `running`, else sleeping.
    Task& new_task(Mm& mm, int pid, int cpu, bool running = false) {
        sys.tasks.push_back(std::make_unique<Task>());
        Task& p = *sys.tasks.back();
        p.index = static_cast<int>(sys.tasks.size()) - 1;
        p.pid = pid;
        p.tgid = mm.tasks.empty() ? pid : mm.tasks.front()->tgid;
        p.mm = &mm;
        p.cpu = cpu;
        p.allow_all(sys.nr_cpus());
        p.numa_scan_period = sys.knobs.scan_delay_ms;
        mm.tasks.push_back(&p);
        ++mm.mm_users;
        if (running) {
            p.state = TaskState::Running;
            sys.rqs[cpu].curr = &p;
            ++sys.rqs[cpu].nr_running;
        } else {
            p.state = TaskState::Sleeping;
        }
        return p;
    }

    void give_faults(Task& p) {
        if (p.numa_faults.empty()) p.numa_faults.assign(static_cast<size_t>(8 * sys.nr_nodes()), 0);
    }
    void set_mem_faults(Task& p, int nid, unsigned long shared, unsigned long priv) {
        give_faults(p);
        p.numa_faults[task_faults_idx(sys, NUMA_MEM, nid, 0)] = shared;
        p.numa_faults[task_faults_idx(sys, NUMA_MEM, nid, 1)] = priv;
        p.total_numa_faults = 0;
        for (int n = 0; n < sys.nr_nodes(); ++n)
            p.total_numa_faults += task_faults(sys, p, n);
    }

    System sys;
};

}  // namespace numasim::test
