#include "mm/munmap.h"

#include <algorithm>
#include <bit>
#include <vector>

#include "kernel/system.h"
#include "mm/lru_add.h"
#include "mm/lru_index.h"
#include "mm/mm.h"
#include "mm/page_alloc.h"
#include "mm/vmscan.h"

namespace numasim {

namespace {

// Frees every allocated frame of an object that no mapping maps any more.
void free_object(System& sys, MemObject& obj, std::vector<uint64_t>& freed) {
    for (uint64_t k = 0; k < obj.nr_pages; ++k) {
        PageFrame& f = obj.frames[k];
        if (!(f.flags & PF_ALLOC)) continue;
        ++freed[f.nid];
        lru_add_forget(sys, f);
        lru_forget_page(sys, f.flags, f.nid);
        obj.lru.note(k, lru_list_of(f), kNoLru);
        f = PageFrame{};
    }
}

}  // namespace

void do_munmap(System& sys, Vma& vma) {
    QuietStamp::bump();
    Mm& mm = *vma.mm;
    std::vector<uint64_t> freed(static_cast<size_t>(sys.nr_nodes()), 0);
    const uint64_t n = vma.nr_pages();
    const bool file = vma.object->is_file;
    // zap_pte_range(): every present PTE drops its frame's mapcount; an anonymous frame (or a
    // private copy) that nothing maps any more is freed at once.
    uint64_t present = 0;
    for (uint64_t w = 0; w < (n + 63) / 64; ++w)
        for (uint64_t m = vma.present.word(w); m; m &= m - 1) {
            const uint64_t i = (w << 6) + static_cast<uint64_t>(std::countr_zero(m));
            ++present;
            PageFrame& f = vma.frame(i);
            const bool shared = vma.shares_object_page(i);
            if (f.mapcount > 0) --f.mapcount;
            if (f.mapcount == 0 && (!shared || !file)) {
                ++freed[f.nid];
                lru_add_forget(sys, f);
                lru_forget_page(sys, f.flags, f.nid);
                lru_index_note(vma, i, lru_list_of(f), kNoLru);
                f = PageFrame{};
            }
        }
    mm.rss_pages -= present;

    vma.object->remove_mapper(vma);
    if (vma.object->mappers.empty()) free_object(sys, *vma.object, freed);
    for (size_t nid = 0; nid < freed.size(); ++nid)
        if (freed[nid]) free_pages(sys, static_cast<int>(nid), freed[nid]);

    // The regions over the VMA go with it, then the VMA (and its private copies) itself.
    std::erase_if(mm.regions, [&](const std::unique_ptr<Region>& r) { return r->vma == &vma; });
    std::erase_if(mm.vmas, [&](const std::unique_ptr<Vma>& v) { return v.get() == &vma; });
}

}  // namespace numasim
