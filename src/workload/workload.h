// A workload model: builds the processes, threads and memory of one benchmark on the simulated
// machine, gives each task its TaskProgram, and reports the benchmark's own metrics at the end.
// Each model lives in one file under workload/ and registers itself by name, so adding a
// workload means adding one file (see workload/registry.h).
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/clock.h"

namespace numasim {

struct System;
struct Topology;
class TomlTable;

class Workload {
  public:
    virtual ~Workload() = default;
    // Creates the tasks and memory at sys.now. `index` is this workload's position in the
    // scenario; tasks record it in Task::workload.
    virtual void setup(System& sys, int index) = 0;
    // The benchmark's own figures (throughput, elapsed, ...) and per-task figures, as JSON.
    virtual nlohmann::json metrics(const System& sys, Nanos elapsed) const = 0;
    // A few lines for the text report.
    virtual std::string summary(const System& sys, Nanos elapsed) const = 0;
    // True if the run may end once this workload's tasks have all exited.
    virtual bool finite() const { return true; }
};

}  // namespace numasim
