#include "report/log2_hist_text.h"

#include <fmt/format.h>

#include <algorithm>

namespace numasim {

namespace {

// bcc's stars_max, and the highest slot printed in the narrow layout.
constexpr int kStarsMax = 40;
constexpr int kNarrowMaxSlot = 32;

// bcc's _stars(): floor(width * count / max) stars, at most `width`.
std::string stars(uint64_t v, uint64_t max, int width) {
    const auto n = static_cast<uint64_t>(static_cast<unsigned __int128>(width) * v / max);
    return std::string(std::min<uint64_t>(n, static_cast<uint64_t>(width)), '*');
}

}  // namespace

std::string log2_hist_text(const Log2Hist& h, std::string_view unit) {
    const int top = h.max_slot();
    if (top == 0) return "";
    uint64_t max = 0;
    for (int k = 1; k <= top; ++k)
        max = std::max(max, h.slot(k));
    const bool narrow = top <= kNarrowMaxSlot;
    const int width = narrow ? kStarsMax : kStarsMax / 2;
    std::string s = narrow ? fmt::format("     {:<19} : count     distribution\n", unit)
                           : fmt::format("               {:<29} : count     distribution\n", unit);
    for (int k = 1; k <= top; ++k) {
        const uint64_t v = h.slot(k);
        const std::string bar = stars(v, max, width);
        s += narrow ? fmt::format("{:>10} -> {:<10} : {:<8} |{:<{}}|\n", Log2Hist::slot_low(k),
                                  Log2Hist::slot_high(k), v, bar, width)
                    : fmt::format("{:>20} -> {:<20} : {:<8} |{:<{}}|\n", Log2Hist::slot_low(k),
                                  Log2Hist::slot_high(k), v, bar, width);
    }
    return s;
}

}  // namespace numasim
