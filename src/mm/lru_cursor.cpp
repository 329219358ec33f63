#include "mm/lru_cursor.h"

#include <bit>

namespace numasim {

namespace {

void ensure_indexed(MemObject& o, int nid) {
    if (!o.lru.indexed(nid)) o.lru.build(nid, o.frames, o.nr_pages);
}

}  // namespace

LruCursor::LruCursor(Vma& v, int nid, bool active)
    : v_(v),
      has_copies_(v.own_mask.size() != 0),
      nid_(nid),
      list_(2 * nid + (active ? 1 : 0)),
      want_(static_cast<uint8_t>(PF_ALLOC | (active ? PF_ACTIVE : 0))),
      nr_pages_(v.nr_pages()) {
    const auto& mappers = v.object->mappers;
    if (mappers.empty() || mappers.front() == &v) shared_ = v.object.get();
    // A mapping that sizes own_mask makes `own` with its first copy: until then it has none.
    if (has_copies_) own_ = v.own.get();
    if (shared_) ensure_indexed(*shared_, nid);
    if (own_) ensure_indexed(*own_, nid);
    // The object's list words as the mapping's own: no copies, and its window starts a word.
    if (shared_ && !has_copies_ && (v.pgoff & 63) == 0)
        words_ = shared_->lru.list(list_).data() + (v.pgoff >> 6);
    if (v.pmd_mapped.size() != 0) {
        start_page_ = v.start >> v.pages.shift;
        pmd_order_ = v.pages.pmd_order;
        pmd_nr_ = v.pages.pmd_nr();
    }
}

void LruCursor::read_word(uint64_t w) {
    // The pages of word w that are present and whose frame is on the list: the shared object's
    // where the mapping has no copy (if it meets those), its copies'.
    const uint64_t base = w << 6;
    word_ = w;
    copies_ = has_copies_ ? v_.own_mask.word(w) : 0;
    on_ = 0;
    if (shared_) on_ = shared_->lru.bits_at(list_, v_.pgoff + base) & ~copies_;
    if (own_) on_ |= own_->lru.bits_at(list_, base) & copies_;
    on_ &= v_.present.word(w);
}

PageFrame* LruCursor::next(uint64_t from, uint64_t& first, uint64_t& nr) {
    if (!shared_ && !own_) return nullptr;  // all met through another mapping
    Vma& v = v_;
    const uint64_t n = nr_pages_;
    const uint8_t mask = PF_ALLOC | PF_LRU_PENDING | PF_ACTIVE;
    const uint64_t last = n ? (n - 1) >> 6 : 0;
    for (uint64_t i = from; i < n;) {
        uint64_t w = i >> 6;
        // The word read before still holds: only the folios met have changed lists since, and
        // a met folio's frame, read again below, says whether it is still on the list.
        if (w != word_) {
            if (words_ && words_[w] == 0) {
                // Words with no page on the list (another node's pages, the other list's) are
                // passed at a load each.
                while (w < last && words_[w] == 0)
                    ++w;
                i = w << 6;
            }
            read_word(w);
        }
        const uint64_t base = w << 6;
        uint64_t on = on_ & (~uint64_t{0} << (i & 63));
        i = base + 64;
        for (; on; on &= on - 1) {
            const uint64_t j = base + static_cast<uint64_t>(std::countr_zero(on));
            if (j >= n) return nullptr;
            PageFrame& f =
                (copies_ >> (j & 63)) & 1 ? own_->frames[j] : v.object->frames[v.pgoff + j];
            // A page in an LRU add batch is not on the list yet.
            const bool listed = f.nid == nid_ && (f.flags & mask) == want_;
            if (pmd_nr_) {
                // Vma::thp_block and Vma::pmd_index in page numbers: the PMD-aligned block
                // holding j, if it lies wholly inside the VMA, and whether one PMD maps it.
                const uint64_t block = (start_page_ + j) & ~(pmd_nr_ - 1);
                if (block >= start_page_ && block + pmd_nr_ <= start_page_ + n &&
                    v.pmd_mapped.test((block >> pmd_order_) - (start_page_ >> pmd_order_))) {
                    // A PMD-mapped folio is met at its first page, whose frame carries its
                    // flags, or passed whole.
                    const uint64_t lo = block - start_page_;
                    if (j == lo && listed) {
                        first = lo;
                        nr = pmd_nr_;
                        return &f;
                    }
                    i = lo + pmd_nr_;
                    break;
                }
            }
            if (listed) {
                // The caller reads this frame and draws its accesses meanwhile: the next
                // page's frame, likely the next call's, is loaded by then.
                if (const uint64_t next = on & (on - 1))
                    v.prefetch_frame(base + static_cast<uint64_t>(std::countr_zero(next)));
                first = j;
                nr = 1;
                return &f;
            }
        }
    }
    return nullptr;
}

}  // namespace numasim
