// pghot's per-page hotness record in its default mode, as the "mm: Hot page tracking and
// promotion infrastructure" series (RFC v6, Bharata B Rao, linux-mm, 2026-03-23) describes it
// (include/linux/pghot.h, mm/pghot-default.c of the series; not merged): one byte per slow-tier
// page holding
//   bits 0-1  access frequency, 1..PGHOT_FREQ_MAX
//   bits 2-6  the time of the last access in buckets of 2^PGHOT_TIME_BUCKETS_SHIFT jiffies
//   bit  7    ready for migration (PGHOT_MIGRATE_READY)
// A record with no bit set is an untouched page. docs/tiering.md, "The pghot switch".
#pragma once

#include <cstdint>

namespace numasim {

inline constexpr int PGHOT_FREQ_WIDTH = 2;
inline constexpr unsigned PGHOT_FREQ_MAX = (1u << PGHOT_FREQ_WIDTH) - 1;
inline constexpr int PGHOT_TIME_WIDTH = 5;
inline constexpr unsigned PGHOT_TIME_MASK = (1u << PGHOT_TIME_WIDTH) - 1;
// The time is kept in buckets of 128 jiffies: 32 buckets span 4096 jiffies (4.1 s at HZ=1000,
// as the series says; 16.4 s at the model's HZ=250).
inline constexpr int PGHOT_TIME_BUCKETS_SHIFT = 7;
inline constexpr uint64_t PGHOT_TIME_BUCKETS_MASK = uint64_t{PGHOT_TIME_MASK}
                                                    << PGHOT_TIME_BUCKETS_SHIFT;
inline constexpr int PGHOT_TIME_SHIFT = PGHOT_FREQ_WIDTH;
inline constexpr int PGHOT_MIGRATE_READY = 7;

// The series' defaults (include/linux/pghot.h): a page is hot after 2 accesses within 3 s
// (vm.pghot_promote_freq_window_ms); kmigrated sleeps 100 ms between passes and migrates up to
// 512 folios a batch; default mode promotes to node 0 (debugfs pghot/target_nid).
inline constexpr unsigned PGHOT_DEFAULT_FREQ_THRESHOLD = 2;
inline constexpr unsigned PGHOT_DEFAULT_FREQ_WINDOW_MS = 3000;
inline constexpr unsigned KMIGRATED_DEFAULT_SLEEP_MS = 100;
inline constexpr unsigned KMIGRATED_DEFAULT_BATCH_NR = 512;
inline constexpr int PGHOT_DEFAULT_NODE = 0;
// kmigrated's threshold adjustment period, fixed in the series (it was
// numa_balancing_scan_period_max_ms in the scheduler's copy of the same code).
inline constexpr unsigned KMIGRATED_PROMOTION_THRESHOLD_WINDOW = 60000;

// The ms between the bucketed time `old_time` of a record and `now` (in jiffies), modulo the
// 32 buckets (pghot_access_latency).
unsigned pghot_access_latency(unsigned old_time, uint64_t now_jiffies);

// One recorded access at `now` (pghot_update_record): the count starts over at 1 when the
// last access is more than `window_ms` old, else goes up by one (to PGHOT_FREQ_MAX at most);
// the page becomes ready once the count reaches `freq_threshold`. Returns whether it is ready.
bool pghot_update_record(uint8_t& phi, uint64_t now_jiffies, unsigned window_ms,
                         unsigned freq_threshold);

// kmigrated's read of a record (pghot_get_record): nothing unless it is ready; a ready record
// is cleared and its bucketed time returned in `time`.
bool pghot_get_record(uint8_t& phi, unsigned& freq, unsigned& time);

}  // namespace numasim
