// One node pair of `numasim calibrate` (calibrate.h): the buffer on the target node, the chase
// from the initiator's first CPU and the streams from all its CPUs, in a time given. Free of
// hwloc, so that the oracle's static guest runner measures its nodes with the same code.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "machine/calibrate_stats.h"
#include "machine/topology.h"

namespace numasim {

// What one node pair measured: CPUs of node `from` loading from the memory of node `to`.
struct PairMeasurement {
    int from = 0, to = 0;
    RunStats latency_ns, read_gbs, write_gbs;
    // Why the buffer may not be on `to` (mbind refused, pages found elsewhere) or a thread not
    // where it was put; empty when all went as asked.
    std::string placement;
    // False when the buffer is known not to be on `to`, or may not be: pages found elsewhere,
    // or mbind refused with no CPU of `to` to place them by first touch and move_pages unable
    // to say. Such a pair's figures go into no key (apply_measurements).
    bool placed = true;
};

struct PairProbe {
    int from = 0, to = 0;       // the nodes as the machine numbers them (for the result)
    std::vector<int> cpus;      // Linux numbers of the initiator's CPUs
    int node_os = 0;            // Linux number of the target node
    int touch_cpu = -1;         // Linux number of a CPU of the target node; -1: it has none
    uint64_t buffer_bytes = 0;  // a multiple of 2 MiB
    double seconds = 0;         // for the whole pair, buffer set-up included
};

// The chase orders made so far, by buffer size: pairs with the same buffer share one.
using ChaseOrders = std::map<uint64_t, std::vector<uint32_t>>;

PairMeasurement measure_pair(const PairProbe& probe, ChaseOrders& orders);

// The pairs to measure: every node with CPUs to every node with memory, in that order.
std::vector<std::pair<int, int>> calibration_pairs(const Topology& machine);

// The buffer for CPUs of `from` loading from `to`: at least 4x the LLCs of `from` (64 MiB at
// least, 4 MiB per CPU of `from` at least), at most a quarter of the memory of `to`, in whole
// 2 MiB pages.
uint64_t pair_buffer_bytes(const Topology& t, int from, int to);

// "latency 95.1 ns (5 runs, 93.0..99.2), read 20.3 GB/s (...), write ... GB/s (...)": the
// figures of a pair as the progress lines and the file's header give them.
std::string pair_figures_text(const PairMeasurement& m);

}  // namespace numasim
