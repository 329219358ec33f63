// A scenario's System set up as `numasim run` sets one up (kernel release, placement policy, the
// first workload's processes), for the policy tests that drive or inspect that System.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/engine.h"
#include "experiment/scenario.h"
#include "kernel/system.h"
#include "workload/workload.h"

namespace numasim::test {

struct PolicyRun {
    PolicyRun(const std::string& text, const std::string& name)
        : sc(load_scenario_text(text, name)), sys(sc.machine, sc.knobs, sc.seed, sc.figures) {
        sys.set_kernel_release(profile_release(sc.profile));
        sys.placement_policy = sc.placement.get();
        workloads = sc.make_workloads();
        workloads[0]->setup(sys, 0);
    }
    // The scenario's whole duration.
    void run() {
        Engine engine(sys);
        engine.run(sc.duration);
    }
    Scenario sc;
    System sys;
    std::vector<std::unique_ptr<Workload>> workloads;
};

}  // namespace numasim::test
