#include "cli/scenario.h"

#include <fmt/format.h>

#include <set>
#include "config/input_error.h"
#include "engine/system.h"
#include "machine/hardware_table.h"
#include "machine/presets.h"
#include "numab/profile.h"
#include "workload/registry.h"
#include "workload/workload.h"

namespace numasim {

namespace {

constexpr const char* kDefaultProfile = "v6.12";  // the newest release the reference describes
constexpr int64_t kDefaultDurationS = 60;

// Sets the workloads up on a scratch machine (no simulation) and refuses memory the machine
// cannot hold: the model has no swap, so such a run could only stall.
void check_fits(const Scenario& sc) {
    System sys(sc.machine, sc.knobs, sc.seed);
    auto workloads = sc.make_workloads();
    std::set<const MemObject*> seen;
    uint64_t bytes = 0;
    for (size_t i = 0; i < workloads.size(); ++i) {
        workloads[i]->setup(sys, static_cast<int>(i));
        for (const auto& mm : sys.mms)
            for (const auto& v : mm->vmas)
                if (seen.insert(v->object.get()).second) bytes += v->object->nr_pages * PAGE_SIZE;
        if (bytes > sc.machine.total_mem_bytes())
            sc.workload_tables[i].fail_here(
                fmt::format("the workloads map {:.1f} GiB but the machine has {:.1f} GiB of memory",
                            bytes / 1073741824.0, sc.machine.total_mem_bytes() / 1073741824.0));
    }
}

Scenario load(const TomlTable& root, const ScenarioOverrides& ov) {
    Scenario sc;
    sc.file = root.file();
    auto head = root.table("scenario");
    if (!head) root.fail_here("missing [scenario] table");
    sc.name = head->get_string("name", sc.file);
    sc.description = head->get_string("description", "");
    // File values are always read (so their keys count as known), then overridden.
    sc.machine_spec = head->get_string("machine");
    if (ov.machine) sc.machine_spec = *ov.machine;
    sc.machine = resolve_machine(sc.machine_spec, sc.file, "scenario.machine");
    if (auto hw = root.table("hardware")) {
        apply_hardware_overrides(sc.machine, *hw);
    }
    sc.profile = head->get_string("profile", kDefaultProfile);
    if (ov.profile) sc.profile = *ov.profile;
    try {
        sc.knobs = load_profile(sc.profile);
    } catch (const InputError& e) {
        head->fail("profile", e.problem());
    }
    sc.duration = head->get_duration_ns("duration", kDefaultDurationS * NSEC_PER_SEC);
    if (ov.duration) sc.duration = *ov.duration;
    if (sc.duration <= 0) head->fail("duration", "must be positive");
    sc.iterations = static_cast<int>(head->get_int("iterations", 1));
    if (ov.iterations) sc.iterations = *ov.iterations;
    if (sc.iterations < 1 || sc.iterations > 10000) head->fail("iterations", "must be 1..10000");
    const int64_t seed = head->get_int("seed", 1);
    if (seed < 0) head->fail("seed", "must be non-negative");
    sc.seed = ov.seed ? *ov.seed : static_cast<uint64_t>(seed);
    head->finish();

    if (auto nb = root.table("numa_balancing")) {
        apply_knobs(sc.knobs, *nb);
        nb->finish();
    }
    for (const auto& a : ov.knob_assignments) {
        try {
            apply_knob_override(sc.knobs, a);
        } catch (const InputError& e) {
            throw InputError("command line", "--set " + a, e.problem());
        }
    }

    for (const auto& v : root.tables("variant")) {
        ScenarioVariant sv;
        sv.name = v.get_string("name");
        if (sv.name.empty() || sv.name.find(' ') != std::string::npos)
            v.fail("name", "a variant name must be non-empty and without spaces");
        if (v.has("profile")) sv.profile = v.get_string("profile");
        if (v.has("machine")) sv.machine = v.get_string("machine");
        if (v.has("set")) sv.set = v.get_string_array("set");
        if (v.has("params")) sv.params = v.get_string_array("params");
        // Validate now: the profile exists and every assignment parses.
        NumaBalancingKnobs k = sc.knobs;
        if (sv.profile) {
            try {
                k = load_profile(*sv.profile);
            } catch (const InputError& e) {
                v.fail("profile", e.problem());
            }
        }
        for (const auto& a : sv.set) {
            try {
                apply_knob_override(k, a);
            } catch (const InputError& e) {
                v.fail("set", e.problem());
            }
        }
        v.finish();
        sc.variants.push_back(std::move(sv));
    }
    // `numasim validate` reads these; a plain run ignores them.
    root.has("effect");
    root.has("validate");
    sc.workload_tables = root.tables("workload");
    if (sc.workload_tables.empty()) root.fail_here("no [[workload]] table: nothing to run");
    for (const auto& w : sc.workload_tables) {
        const std::string type = w.get_string("type");
        if (!find_workload(type)) {
            std::string names;
            for (const auto& i : workload_registry())
                names += (names.empty() ? "" : ", ") + i.name;
            w.fail("type", fmt::format("unknown workload '{}' (known: {})", type, names));
        }
        sc.workload_types.push_back(type);
    }
    // Build and set up once: validates every parameter and the memory, and marks the keys read
    // so that unknown ones are rejected now.
    check_fits(sc);
    for (const auto& w : sc.workload_tables)
        w.finish();
    root.finish();
    return sc;
}

}  // namespace

std::vector<std::unique_ptr<Workload>> Scenario::make_workloads() const {
    std::vector<std::unique_ptr<Workload>> out;
    for (size_t i = 0; i < workload_tables.size(); ++i)
        out.push_back(find_workload(workload_types[i])->factory(workload_tables[i], machine));
    return out;
}

Scenario load_scenario_file(const std::string& path, const ScenarioOverrides& ov) {
    return load(TomlTable::parse_file(path, ov.params), ov);
}

Scenario load_scenario_text(std::string_view text, const std::string& name,
                            const ScenarioOverrides& ov) {
    return load(TomlTable::parse_text(text, name, ov.params), ov);
}

}  // namespace numasim
