// A power-of-two histogram as bcc's tools keep one (BPF_HISTOGRAM indexed by bpf_log2l(value)):
// slot k >= 1 counts the values v with 2^(k-1) <= v < 2^k, and slot 1 also counts 0, because
// bcc's bpf_log2l() maps both 0 and 1 to 1. Adding n equal values is one addition, so a batch
// of like events costs what one does.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>

namespace numasim {

// The nearest rank of the p-th percentile (0 <= p <= 100, in steps of 0.001) of `count` values:
// ceil(p/100 * count), at least 1.
uint64_t nearest_rank(double p, uint64_t count);

class Log2Hist {
  public:
    // 0 (never used, as in bcc) and one slot per bit of a 64-bit value.
    static constexpr int kSlots = 65;

    // bpf_log2l(v): 1 for v <= 1, floor(log2(v)) + 1 otherwise. Inline: every latency event
    // takes it twice. v | 1 has the bit width of v for v >= 2 and 1 for 0 and 1, with no branch.
    static int slot_of(uint64_t v) { return static_cast<int>(std::bit_width(v | 1)); }
    // The bounds bcc's print_log2_hist() prints for slot k (k >= 1): "low -> high", both
    // inclusive, with the first slot printed as "0 -> 1".
    static uint64_t slot_low(int k);
    static uint64_t slot_high(int k);

    void add(uint64_t v, uint64_t n = 1) { add_to_slot(slot_of(v), n); }
    // n values whose slot (slot_of) the caller knows.
    void add_to_slot(int slot, uint64_t n) {
        slots_[static_cast<size_t>(slot)] += n;
        count_ += n;
    }
    void merge(const Log2Hist& o);

    uint64_t count() const { return count_; }
    uint64_t slot(int k) const { return slots_[static_cast<size_t>(k)]; }
    // The highest slot that holds a value; 0 when empty.
    int max_slot() const;

    // The p-th percentile (0 <= p <= 100, in steps of 0.001): the slot of the value of
    // nearest rank ceil(p/100 * count), at least 1, reported as that slot's upper bound
    // (slot_high), as a reader of a bcc histogram bounds it: the true percentile is not above
    // it, and above the slot's low bound. 0 for an empty histogram.
    uint64_t percentile(double p) const;

  private:
    std::array<uint64_t, kSlots> slots_{};
    uint64_t count_ = 0;
};

}  // namespace numasim
