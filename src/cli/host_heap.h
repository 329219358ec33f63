// The numasim process's own heap on transparent huge pages of the host.
//
// A run allocates its state (tasks, VMAs and their bitmaps, run queues, the cost model's records)
// as many small objects at its start, and every first touch of a 4 KiB heap page is a page fault
// of the host: about a microsecond on bare metal, 20 us and more on a virtual machine whose
// hypervisor backs guest memory lazily. glibc can put its heap on huge pages itself (the tunable
// glibc.malloc.hugetlb=1), but reads that only from the environment when the process starts.
// This does the same from inside: the heap is grown once by a large reserve of address space and
// that range is advised MADV_HUGEPAGE, so that a first touch maps 2 MiB at a time.
//
// Nothing a run computes depends on where its objects lie, so outputs stay byte-identical; only
// host time and peak RSS change (docs/performance.md, "The host heap on huge pages").
#pragma once

namespace numasim {

// Call at the start of main(), before any thread starts. Does nothing under AddressSanitizer
// (whose allocator is not glibc's) or where the host has no transparent huge pages (the advice
// is then ignored and pages stay small).
void back_heap_with_huge_pages();

}  // namespace numasim
