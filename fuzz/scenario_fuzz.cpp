// Feeds arbitrary bytes to the scenario loader. Any input must either load or raise InputError;
// a crash, a sanitizer report or another exception type is a bug.
//
// A scenario that loads is then simulated briefly through the invariant checker, so that the
// fuzzer also explores the model's states: on the small FUZZ_MACHINE (whatever machine the input
// names), with scanning starting after FUZZ_SCAN_DELAY_MS, for FUZZ_DURATION of simulated time,
// when its mappings total at most FUZZ_MAX_PAGES (a run then takes milliseconds). A scenario that
// does not fit the machine is an InputError, which is fine; an InvariantViolation escapes and is
// reported as a crash.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "config/input_error.h"
#include "engine/engine.h"
#include "engine/process.h"
#include "experiment/overrides.h"
#include "experiment/scenario.h"
#include "kernel/system.h"
#include "workload/workload.h"

namespace {

constexpr const char* FUZZ_MACHINE = "tiny-4n";       // 4 nodes x 2 CPUs x 2 GiB
constexpr numasim::Nanos FUZZ_DURATION = 60'000'000;  // 60 ms: 15 ticks
constexpr int FUZZ_SCAN_DELAY_MS = 10;
constexpr uint64_t FUZZ_MAX_PAGES = uint64_t{1} << 17;  // 512 MiB of mappings

void simulate(std::string_view text) {
    const std::string origin = "fuzz";
    const std::string delay = std::to_string(FUZZ_SCAN_DELAY_MS);
    const numasim::ScenarioOverrides ov = {
        numasim::string_override("machine", FUZZ_MACHINE, origin),
        numasim::parse_override("scan_delay_ms=" + delay, origin),
        numasim::parse_override("scan_period_min_ms=" + delay, origin)};
    const numasim::Scenario sc = numasim::load_scenario_text(text, "fuzz.toml", ov);
    numasim::System sys(sc.machine, sc.knobs, sc.seed);
    auto workloads = sc.make_workloads();
    // A workload that fits the input's own machine may not fit FUZZ_MACHINE, which the harness
    // chose, at setup or when it forks at run time: that is not a bug.
    try {
        for (size_t i = 0; i < workloads.size(); ++i)
            workloads[i]->setup(sys, static_cast<int>(i));
        uint64_t pages = 0;
        for (const auto& mm : sys.mms)
            for (const auto& v : mm->vmas)
                pages += v->nr_pages();
        if (pages > FUZZ_MAX_PAGES) return;
        numasim::Engine engine(sys);
        engine.set_check_invariants(true);
        engine.run(FUZZ_DURATION);
    } catch (const numasim::WorkloadTooLarge&) {
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        numasim::load_scenario_text(text, "fuzz.toml");
        simulate(text);
    } catch (const numasim::InputError&) {
    }
    return 0;
}
