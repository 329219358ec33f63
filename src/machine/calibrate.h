// `numasim calibrate`: measures the host into a machine file (docs/machines.md, "Measuring the
// host"). The topology comes from hwloc as for `hwloc:host`; for every node with CPUs and every
// node with memory, the idle load-to-use latency (a pointer chase over a buffer larger than the
// LLC, as Intel MLC's idle latency) and the read and write bandwidth of all the node's CPUs
// streaming (as STREAM and MLC's bandwidth matrix) are measured; the machine's figures follow
// from them, and whatever the host cannot show keeps a named preset's (or the generic) figure.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "machine/machine_file_writer.h"
#include "machine/pair_probe.h"
#include "machine/topology.h"

namespace numasim {

// The figures a calibration starts from, for everything it does not measure.
struct CalibrationBaseline {
    MemoryHardware hw;
    std::string name;  // "preset haswell-2s", for the comments
};

// Sets the figures of `host` that `pairs` measure and takes every other from `baseline`;
// returns the comment for each figure, saying how it was measured or that it was kept. Pure:
// the tests give it hand-made measurements.
//   latency_ns.10      the mean over the nodes with CPUs of their local latency
//   latency_ns.D       the mean latency of the pairs of nodes with CPUs at SLIT distance D
//   dram_bandwidth_gbs the mean local read bandwidth of the nodes with CPUs
//   link_bandwidth_gbs the mean read bandwidth of the directly linked pairs of nodes with CPUs
//   llc_mb, page_size  `host`'s own (hwloc's LLC, the host's or guest's base page)
//   a device node's latency_ns and bandwidth_gbs: from its nearest node with CPUs
// Pairs not placed (PairMeasurement::placed) go into no figure. A figure no pair measures (a
// one-node host has no remote latency or link) keeps the baseline's.
std::map<std::string, std::string> apply_measurements(Topology& host,
                                                      const CalibrationBaseline& baseline,
                                                      const std::vector<PairMeasurement>& pairs);

struct CalibrateOptions {
    double budget_seconds = 0;  // for the whole calibration, hwloc included
    // A preset whose figures fill what is not measured; empty: the generic figures of an hwloc
    // import.
    std::string like;
    std::function<void(const std::string&)> progress;  // one line at a time, no newline
};

struct Calibration {
    std::string text;  // the machine file
    std::vector<PairMeasurement> pairs;
    double seconds = 0;  // wall time taken
};

// Throws InputError (naming `--like`) for an unknown preset, before measuring anything.
Calibration calibrate_host(const CalibrateOptions& options);

// The pieces calibrate_host() is made of, which the oracle's guest calibration shares:
// The baseline: the preset `like`, or the generic figures of an hwloc import of `machine`.
// Throws InputError naming `--like` for an unknown preset.
CalibrationBaseline calibration_baseline(const std::string& like, const Topology& machine);
// The machine file: `machine` (topology, name, page size) with the figures apply_measurements()
// makes of `pairs`, a header with every pair's figures and a [source] saying how; `where` names
// what was measured ("this host").
std::string calibration_file(Topology machine, const CalibrationBaseline& baseline,
                             const std::vector<PairMeasurement>& pairs, const std::string& where);

}  // namespace numasim
