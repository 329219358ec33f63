// The two NUMA monitors of mmtests, computed from a simulated run as mmtests computes them from a
// real one (gormanm/mmtests, monitors/watch-numa-convergence.pl with
// bin/lib/MMTests/MonitorNumaconvergence.pm, and monitors/watch-numa-scheduling.pl).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace numasim {

struct System;

// numa-convergence: the local share of the last 20000 hundreds of NUMA hinting faults, read
// from numa_hint_faults and numa_hint_faults_local at every sample ("%d %8.6f" per line). As in
// mmtests, a read while the previous numa_hint_faults was 0 only records the baseline, and the
// window starts out all local.
class MmtestsConvergence {
  public:
    static constexpr int kWindowSize = 20000;        // MonitorNumaconvergence.pm $windowSize
    static constexpr uint64_t kFaultsPerSlot = 100;  // "Approximate to save memory"

    void read(uint64_t numa_hint_faults, uint64_t numa_hint_faults_local);
    double current() const;  // 1 when every fault in the window was local

  private:
    void put(uint8_t remote);
    std::vector<uint8_t> window_ = std::vector<uint8_t>(kWindowSize, 0);
    size_t index_ = 0;
    size_t remote_slots_ = 0;
    uint64_t last_faults_ = 0, last_local_ = 0;
};

// numa-scheduling: the header line of watch-numa-scheduling.pl for `nr_nodes` nodes.
std::string numa_scheduling_header(int nr_nodes);
// One sample: "time: T" and a row per live thread (PID TID NAME CPU RN, an X under the node it
// runs on, the process's pages per node in percent, and "STUPID a != b" when the thread runs on
// another node than the one holding most of its process's memory).
std::string numa_scheduling_sample(const System& sys, int64_t time);

}  // namespace numasim
