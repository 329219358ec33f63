// munmap() of whole VMAs (mm/mmap.c do_munmap -> unmap_region -> zap_pte_range, free_pgtables):
// drop the mapping's PTEs, the frames' mapcounts, the mm's rss and the regions over it, and free
// every frame that no mapping maps any more. Splitting a VMA (unmapping part of one) is not
// modelled: workloads map and unmap whole buffers.
#pragma once

namespace numasim {

struct System;
struct Vma;

// Unmaps `vma` and destroys it with its regions: no access stream may refer to them afterwards.
// Anonymous frames and private copies are freed when their last mapping goes; a file's page
// cache is dropped with the last mapping of the file (the simulator keeps no page cache that
// nothing maps, see docs/model.md).
void do_munmap(System& sys, Vma& vma);

}  // namespace numasim
