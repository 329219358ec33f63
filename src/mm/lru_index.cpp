#include "mm/lru_index.h"

#include <bit>

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

namespace {

void ensure_indexed(MemObject& o, int nid) {
    if (!o.lru.indexed(nid)) o.lru.build(nid, o.frames, o.nr_pages);
}

}  // namespace

bool next_lru_folio(Vma& v, uint64_t from, int nid, bool active, uint64_t& first, uint64_t& nr) {
    const auto& mappers = v.object->mappers;
    const bool meets_shared = mappers.empty() || mappers.front() == &v;
    const bool has_copies = v.own_mask.size() != 0;
    // A mapping that sizes own_mask makes `own` with its first copy: until then it has none.
    MemObject* own = has_copies ? v.own.get() : nullptr;
    if (!meets_shared && !own) return false;  // all met through another mapping
    const uint64_t n = v.nr_pages();
    if (meets_shared) ensure_indexed(*v.object, nid);
    if (own) ensure_indexed(*own, nid);
    const int list = 2 * nid + (active ? 1 : 0);
    const uint8_t mask = PF_ALLOC | PF_LRU_PENDING | PF_ACTIVE;
    const uint8_t want = PF_ALLOC | (active ? PF_ACTIVE : 0);
    const bool thp = v.pmd_mapped.size() != 0;
    for (uint64_t i = from; i < n;) {
        // The pages of word w, from i on, that are present and whose frame is on the list:
        // the shared object's where the mapping has no copy (if it meets those), its copies'.
        const uint64_t w = i >> 6, base = w << 6;
        const uint64_t copies = has_copies ? v.own_mask.word(w) : 0;
        uint64_t on = 0;
        if (meets_shared) on = v.object->lru.bits_at(list, v.pgoff + base) & ~copies;
        if (own) on |= own->lru.bits_at(list, base) & copies;
        on &= v.present.word(w) & (~uint64_t{0} << (i & 63));
        i = base + 64;
        for (; on; on &= on - 1) {
            const uint64_t j = base + static_cast<uint64_t>(std::countr_zero(on));
            if (j >= n) return false;
            // A page in an LRU add batch is not on the list yet.
            const PageFrame& f = v.frame(j);
            const bool listed = f.nid == nid && (f.flags & mask) == want;
            uint64_t lo = 0, hi = 0;
            if (thp && v.thp_block(j, lo, hi) && v.pmd_mapped.test(v.pmd_index(lo))) {
                // A PMD-mapped folio is met at its first page, whose frame carries its flags,
                // or passed whole.
                if (j == lo && listed) {
                    first = lo;
                    nr = hi - lo;
                    return true;
                }
                i = hi;
                break;
            }
            if (listed) {
                // The caller reads this frame and draws its accesses meanwhile: the next
                // page's frame, likely the next call's, is loaded by then.
                if (const uint64_t next = on & (on - 1))
                    v.prefetch_frame(base + static_cast<uint64_t>(std::countr_zero(next)));
                first = j;
                nr = 1;
                return true;
            }
        }
    }
    return false;
}

}  // namespace numasim
