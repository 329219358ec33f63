#include "mm/vma.h"

#include <atomic>
#include <new>

#include "mm/mm.h"

namespace numasim {

namespace {
std::atomic<uint64_t> next_object_id{1};
}

MemObject::MemObject(uint64_t pages, bool file)
    : frames(static_cast<PageFrame*>(std::calloc(pages ? pages : 1, sizeof(PageFrame)))),
      nr_pages(pages),
      is_file(file),
      id(next_object_id++) {
    if (!frames) throw std::bad_alloc();
}

MemObject::~MemObject() { std::free(frames); }

bool Vma::thp_block(uint64_t idx, uint64_t& first, uint64_t& last) const {
    const uint64_t addr = page_addr(idx);
    const uint64_t bstart = addr & ~(HPAGE_PMD_SIZE - 1);
    const uint64_t bend = bstart + HPAGE_PMD_SIZE;
    if (bstart < start || bend > end) return false;
    first = page_index(bstart);
    last = page_index(bend);
    return true;
}

Vma* Mm::find_vma(uint64_t addr) {
    for (auto& v : vmas)
        if (v->end > addr) return v.get();
    return nullptr;
}

}  // namespace numasim
