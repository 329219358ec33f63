// A workload model: builds the processes, threads and memory of one benchmark on the simulated
// machine, gives each task its TaskProgram, and reports the benchmark's own results at the end.
// Each model lives in one file under workload/ and registers itself by name, so adding a
// workload means adding one file (see workload/registry.h).
#pragma once

#include "workload/result.h"

namespace numasim {

struct System;

class Workload {
  public:
    virtual ~Workload() = default;
    // Creates the tasks and memory at sys.now. `index` is this workload's position in the
    // scenario; tasks record it in Task::workload.
    virtual void setup(System& sys, int index) = 0;
    // The benchmark's figures at the end of the run (sys.now).
    virtual WorkloadResult result(const System& sys) const = 0;
    // The most program phases its tasks can start in `seconds` of simulated time, for the
    // scenario's bound on phase starts (config/limits.h). The benchmark models' phases are their
    // sources' loops, long by construction; a workload whose phases the user writes says how
    // many it may ask for.
    virtual double phase_starts(double seconds) const {
        (void)seconds;
        return 0;
    }
};

}  // namespace numasim
