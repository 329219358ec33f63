// `numasim-guest --calibrate-ms N`: the measurement of `numasim calibrate` (machine/pair_probe.h)
// across the guest's nodes, for `numasim calibrate --oracle MACHINE`. It prints one
// `calibrate` line per node pair (guest/protocol.h) and a `progress` line as each pair ends.
#pragma once

#include <cstdint>
#include <string>

#include "machine/pair_probe.h"

namespace numasim::guest {

// Measures every pair of the machine sysfs shows within about `ms` milliseconds; returns 0.
int run_calibration(int64_t ms);

// The `calibrate` line of one pair, without the "NUMASIM " prefix: from, to, placed (0 or 1),
// then median, runs, min and max of latency_ns, read_gbs and write_gbs.
std::string calibrate_line(const PairMeasurement& m);

}  // namespace numasim::guest
