#include "sim/log2_hist.h"

#include <cmath>

namespace numasim {

uint64_t Log2Hist::slot_low(int k) {
    return k <= 1 ? 0 : uint64_t{1} << (k - 1);
}

uint64_t Log2Hist::slot_high(int k) {
    return k >= 64 ? ~uint64_t{0} : (uint64_t{1} << k) - 1;
}

void Log2Hist::merge(const Log2Hist& o) {
    for (size_t k = 0; k < slots_.size(); ++k)
        slots_[k] += o.slots_[k];
    count_ += o.count_;
}

int Log2Hist::max_slot() const {
    for (int k = kSlots - 1; k > 0; --k)
        if (slots_[static_cast<size_t>(k)]) return k;
    return 0;
}

uint64_t nearest_rank(double p, uint64_t count) {
    // The rank in integers, from p in thousandths of a percent, so that 99.9 % of 1000 values
    // is rank 999 and not 1000 through a rounding of 99.9 / 100 * 1000.
    const auto milli = static_cast<unsigned __int128>(std::llround(p * 1000));
    const unsigned __int128 scaled = milli * count;
    const unsigned __int128 per = 100000;
    const auto rank = static_cast<uint64_t>((scaled + per - 1) / per);
    return rank < 1 ? 1 : rank;
}

uint64_t Log2Hist::percentile(double p) const {
    if (!count_) return 0;
    const uint64_t rank = nearest_rank(p, count_);
    uint64_t seen = 0;
    for (int k = 1; k < kSlots; ++k) {
        seen += slots_[static_cast<size_t>(k)];
        if (seen >= rank) return slot_high(k);
    }
    return slot_high(max_slot());
}

}  // namespace numasim
