// `numasim calibrate --oracle MACHINE`: the measurement of `numasim calibrate` run inside the
// oracle's qemu guest (docs/oracle.md) across its emulated nodes, and the machine file made of
// it: the guest machine's topology with the figures the guest measured. One boot; numasim-guest
// --calibrate-ms does the measuring (guest/calibrate.h).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "machine/calibrate.h"
#include "oracle/guest_log.h"

namespace numasim {

struct GuestCalibrateOptions {
    std::string machine;        // a preset, machine file or hwloc spec: the guest's machine
    double budget_seconds = 0;  // for the measurement inside the guest
    std::string like;           // as CalibrateOptions::like
    std::string cache_dir;      // "" : default_oracle_cache_dir()
    std::string guest_binary;   // "" : beside the numasim executable
    std::string busybox = "/bin/busybox";
    std::string qemu = "qemu-system-x86_64";
    std::string accel = "auto";
    std::function<void(const std::string&)> progress;
};

// Throws InputError for bad input (machine, preset) and for a boot that fails.
Calibration calibrate_oracle_guest(const GuestCalibrateOptions& o);

// The pairs of a boot's `calibrate` lines; throws InputError naming "oracle" if a line lacks a
// figure or names a node the guest does not have.
std::vector<PairMeasurement> guest_pairs(const BootLog& log, int nr_nodes);

}  // namespace numasim
