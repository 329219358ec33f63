#include "mm/pghot_record.h"

#include "sim/clock.h"

namespace numasim {

namespace {

constexpr uint8_t kReady = uint8_t{1} << PGHOT_MIGRATE_READY;

}  // namespace

unsigned pghot_access_latency(unsigned old_time, uint64_t now_jiffies) {
    // Both sides as bucket starts in jiffies; the difference wraps with the 5-bit field.
    const uint64_t now = now_jiffies & PGHOT_TIME_BUCKETS_MASK;
    const uint64_t old = uint64_t{old_time} << PGHOT_TIME_BUCKETS_SHIFT;
    const uint64_t j = (now - old) & PGHOT_TIME_BUCKETS_MASK;
    return static_cast<unsigned>(j * (NSEC_PER_SEC / NSEC_PER_MSEC) / HZ);  // jiffies_to_msecs
}

bool pghot_update_record(uint8_t& phi, uint64_t now_jiffies, unsigned window_ms,
                         unsigned freq_threshold) {
    const unsigned old_freq = phi & PGHOT_FREQ_MAX;
    const unsigned old_time = (phi >> PGHOT_TIME_SHIFT) & PGHOT_TIME_MASK;
    const bool new_window = pghot_access_latency(old_time, now_jiffies) > window_ms;
    const unsigned freq = new_window ? 1 : old_freq < PGHOT_FREQ_MAX ? old_freq + 1 : old_freq;
    const unsigned time = (now_jiffies >> PGHOT_TIME_BUCKETS_SHIFT) & PGHOT_TIME_MASK;
    // The ready bit, once set, stays until kmigrated takes the record.
    uint8_t next = static_cast<uint8_t>((phi & kReady) | freq | (time << PGHOT_TIME_SHIFT));
    if (freq >= freq_threshold) next |= kReady;
    phi = next;
    return next & kReady;
}

bool pghot_get_record(uint8_t& phi, unsigned& freq, unsigned& time) {
    if (!(phi & kReady)) return false;
    freq = phi & PGHOT_FREQ_MAX;
    time = (phi >> PGHOT_TIME_SHIFT) & PGHOT_TIME_MASK;
    phi = 0;
    return true;
}

}  // namespace numasim
