#include "sim/bitmap.h"

namespace numasim {

namespace {
template <typename F>
void for_words(uint64_t begin, uint64_t end, F f) {
    while (begin < end) {
        const uint64_t w = begin >> 6;
        const unsigned lo = begin & 63;
        const uint64_t wend = (w + 1) << 6;
        const unsigned hi = end >= wend ? 64 : static_cast<unsigned>(end & 63);
        f(w, word_mask(lo, hi));
        begin = (w + 1) << 6;
    }
}
}  // namespace

void Bitmap::set_range(uint64_t begin, uint64_t end) {
    for_words(begin, end, [&](uint64_t w, uint64_t m) { words_[w] |= m; });
}

void Bitmap::clear_range(uint64_t begin, uint64_t end) {
    for_words(begin, end, [&](uint64_t w, uint64_t m) { words_[w] &= ~m; });
}

uint64_t Bitmap::count(uint64_t begin, uint64_t end) const {
    uint64_t n = 0;
    for_words(begin, end, [&](uint64_t w, uint64_t m) { n += std::popcount(words_[w] & m); });
    return n;
}

uint64_t Bitmap::find_next(uint64_t begin, uint64_t end) const {
    while (begin < end) {
        const uint64_t w = begin >> 6;
        uint64_t bits = words_[w] & ~((uint64_t{1} << (begin & 63)) - 1);
        if (bits) {
            const uint64_t i = (w << 6) + std::countr_zero(bits);
            return i < end ? i : end;
        }
        begin = (w + 1) << 6;
    }
    return end;
}

uint64_t Bitmap::find_next_zero(uint64_t begin, uint64_t end) const {
    while (begin < end) {
        const uint64_t w = begin >> 6;
        uint64_t bits = ~words_[w] & ~((uint64_t{1} << (begin & 63)) - 1);
        if (bits) {
            const uint64_t i = (w << 6) + std::countr_zero(bits);
            return i < end ? i : end;
        }
        begin = (w + 1) << 6;
    }
    return end;
}

}  // namespace numasim
