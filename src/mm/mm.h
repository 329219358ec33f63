// An address space (struct mm_struct): its VMAs, its threads, and the NUMA-scan cursor that all
// of its threads share.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "mm/vma.h"
#include "sim/bitmap.h"
#include "sim/clock.h"

namespace numasim {

struct Task;

struct Mm {
    int id = 0;
    PageGeometry pages;                      // the kernel's base page and PMD THP (System::pages())
    std::vector<std::unique_ptr<Vma>> vmas;  // sorted by start
    std::vector<std::unique_ptr<Region>> regions;
    std::vector<Task*> tasks;                // live threads
    int mm_users = 0;                        // live threads; 1 means single-threaded
    uint64_t rss_pages = 0;                  // present pages over all VMAs (get_mm_rss)
    uint64_t mmap_base = uint64_t{1} << 40;  // next free virtual address for new mappings
    // Top-down layout (mm->get_unmapped_area = arch_get_unmapped_area_topdown): new mappings go
    // just below mmap_base, which then moves down. Processes built by workload/process_layout
    // use it; bare test mms keep the bottom-up cursor.
    bool mmap_top_down = false;
    // mm_cpumask(): the CPUs that may cache this mm's translations, kept by switch_mm_irqs_off
    // (mm/tlb.h); a TLB flush interrupts every one of them but the flushing CPU.
    Bitmap cpumask;

    bool khugepaged_listed = false;  // MMF_VM_HUGEPAGE: on khugepaged's list (mm/khugepaged.h)

    // NUMA balancing scan state (mm->numa_next_scan, numa_scan_offset, numa_scan_seq).
    Nanos numa_next_scan = 0;
    uint64_t numa_scan_offset = 0;
    int numa_scan_seq = 0;
};

}  // namespace numasim
