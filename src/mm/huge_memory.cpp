#include "mm/huge_memory.h"

#include <optional>

#include "kernel/release.h"
#include "mm/vma.h"

namespace numasim {

namespace {

// The first release whose THP fault may take a huge page from another node: the "mm, page_alloc:
// allow hugepage fallback to remote nodes when madvised" series of the v5.4 merge window
// (2019-09), which restored the local-only try of v4.15 to v5.2 as the first of two, and
// cc638f329ef6 ("mm, thp: tweak reclaim/compaction effort of local-only and all-node
// allocations"), which made the first one __GFP_NORETRY.
constexpr KernelRelease kThpRemoteFallbackSince{5, 4};

}  // namespace

ThpGfp vma_thp_gfp_mask(ThpDefrag defrag, bool vma_madvised) {
    switch (defrag) {
        case ThpDefrag::Always:  // GFP_TRANSHUGE, and __GFP_NORETRY unless madvised
            return {true, false, !vma_madvised};
        case ThpDefrag::Defer:
            return {false, true, false};
        case ThpDefrag::DeferMadvise:
            return {vma_madvised, !vma_madvised, false};
        case ThpDefrag::Madvise:
            return {vma_madvised, false, false};
        case ThpDefrag::Never:
            break;
    }
    return {};
}

bool thp_vma_allowable(ThpEnabled enabled, uint32_t vm_flags) {
    if (vm_flags & (VM_FILE | VM_NOHUGEPAGE)) return false;
    if (vm_flags & VM_SHARED) return vm_flags & VM_HUGEPAGE;  // shmem_enabled = advise
    switch (enabled) {
        case ThpEnabled::Always:
            return true;
        case ThpEnabled::Madvise:
            return vm_flags & VM_HUGEPAGE;
        case ThpEnabled::Never:
            break;
    }
    return false;
}

ThpFaultNodes thp_fault_nodes_of_release(std::string_view release) {
    // A release that does not read as MAJOR.MINOR counts as a current kernel.
    const std::optional<KernelRelease> r = parse_kernel_release(release);
    return r && *r < kThpRemoteFallbackSince ? ThpFaultNodes::ThisNodeOnly
                                             : ThpFaultNodes::LocalFirst;
}

}  // namespace numasim
