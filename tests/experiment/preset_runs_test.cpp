// The machines of issue 39 run: the built-in default scenario (a NUMA01_THREADLOCAL-like
// program, 4 threads first-touching on node 1) for 0.2 s on each, with every cached total of the
// model rechecked, so that a preset whose topology the engine cannot take (its sched domains,
// its links, its NUMA levels) fails here rather than in a user's run. Each takes well under a
// second.
#include <gtest/gtest.h>

#include <string>

#include "experiment/overrides.h"
#include "experiment/run.h"
#include "experiment/scenario.h"

namespace numasim {
namespace {

TEST(PresetRuns, MachinesOfIssue39RunTheDefaultScenario) {
    for (const char* machine : {"turin-2s-nps1", "turin-2s-nps4", "graniterapids-2s-snc3",
                                "sapphirerapids-8s", "superdome-flex-16s"}) {
        SCOPED_TRACE(machine);
        const std::string m = std::string("machine=") + machine;
        const ScenarioOverrides ov = {parse_override("check_invariants=true", "test"),
                                      parse_override(m, m),
                                      parse_override("duration=0.2s", "test")};
        const Scenario sc = load_builtin_scenario("default", ov);
        EXPECT_EQ(sc.machine.name, machine);
        const RunResult r = run_once(sc, sc.seed);
        EXPECT_EQ(r.elapsed, 200'000'000);
        EXPECT_GT(r.counters[Vm::pgalloc], 0u);
    }
}

}  // namespace
}  // namespace numasim
