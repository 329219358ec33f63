#include "mm/lru_index.h"

#include <bit>

#include "mm/lru_cursor.h"
#include "mm/vma.h"

namespace numasim {

void LruIndex::build(int nid, const PageFrame* frames, uint64_t nr_pages) {
    const auto l = static_cast<size_t>(2 * nid);
    if (lists_.size() < l + 2) lists_.resize(l + 2);
    lists_[l] = Bitmap(nr_pages);
    lists_[l + 1] = Bitmap(nr_pages);
    for (uint64_t k = 0; k < nr_pages; ++k) {
        const int list = lru_list_of(frames[k]);
        if (list >> 1 == nid) lists_[static_cast<size_t>(list)].set(k);
    }
}

void LruIndex::move(uint64_t k, int was, int now) {
    // Lists of nodes reclaim has not walked yet are not kept (their bitmaps are empty).
    if (was >= 0 && static_cast<size_t>(was) < lists_.size() && lists_[was].size())
        lists_[was].clear(k);
    if (now >= 0 && static_cast<size_t>(now) < lists_.size() && lists_[now].size())
        lists_[now].set(k);
}

uint64_t LruIndex::bits_at(int list, uint64_t first) const {
    const Bitmap& b = lists_[static_cast<size_t>(list)];
    const uint64_t words = (b.size() + 63) / 64, w = first >> 6;
    const unsigned s = static_cast<unsigned>(first & 63);
    if (w >= words) return 0;
    uint64_t bits = b.word(w) >> s;
    if (s && w + 1 < words) bits |= b.word(w + 1) << (64 - s);
    return bits;
}

const Bitmap& LruIndex::list(int list) const {
    static const Bitmap none;
    return static_cast<size_t>(list) < lists_.size() ? lists_[static_cast<size_t>(list)] : none;
}

size_t LruIndex::memory_bytes() const {
    size_t bytes = lists_.capacity() * sizeof(Bitmap);
    for (const Bitmap& b : lists_)
        bytes += b.memory_bytes();
    return bytes;
}

void lru_index_note(Vma& v, uint64_t idx, int was, int now) {
    if (was == now) return;
    if (v.shares_object_page(idx))
        v.object->lru.note(v.pgoff + idx, was, now);
    else
        v.own->lru.note(idx, was, now);
}

bool next_lru_folio(Vma& v, uint64_t from, int nid, bool active, uint64_t& first, uint64_t& nr) {
    return LruCursor(v, nid, active).next(from, first, nr) != nullptr;
}

}  // namespace numasim
