// Running a workload from a TOML snippet on a preset machine, for the workload tests.
#pragma once

#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "config/input_error.h"
#include "config/toml_reader.h"
#include "engine/engine.h"
#include "kernel/system.h"
#include "machine/presets.h"
#include "numab/knobs.h"
#include "workload/registry.h"
#include "workload/workload.h"

namespace numasim::test {

// Figure `name` of a record as a T (int64_t, double, bool, std::string, std::vector<Record>).
template <typename T>
T figure(const Record& r, std::string_view name) {
    for (const Figure& f : r)
        if (f.name == name) return std::get<T>(f.value.value());
    throw std::runtime_error("no figure " + std::string(name));
}
template <typename T>
T figure(const WorkloadResult& r, std::string_view name) {
    return figure<T>(r.figures, name);
}

struct Run {
    std::unique_ptr<System> sys;
    std::unique_ptr<Workload> w;
    Nanos end = 0;
};

// Builds the workload of `[[workload]]` #0 in `toml` on `machine` and runs it for `seconds`.
inline Run run_workload(const std::string& machine, const std::string& toml, double seconds,
                        uint64_t seed = 1, const NumaBalancingKnobs& knobs = {}) {
    Run r;
    r.sys = std::make_unique<System>(load_preset(machine), knobs, seed);
    const TomlTable doc = TomlTable::parse_text(toml, "test.toml");
    const TomlTable t = doc.tables("workload").at(0);
    const WorkloadInfo* info = find_workload(t.get_string("type"));
    if (!info) throw std::runtime_error("no workload " + t.get_string("type"));
    r.w = info->factory(t, r.sys->topo);
    t.finish();
    r.w->setup(*r.sys, 0);
    if (seconds > 0) {
        Engine eng(*r.sys);
        r.end = eng.run(static_cast<Nanos>(seconds * NSEC_PER_SEC));
    }
    return r;
}

// The input error that building the workload of `toml` on tiny-2n raises; a test failure if it
// raises none.
inline InputError parse_error(const std::string& toml) {
    try {
        run_workload("tiny-2n", toml, 0);
    } catch (const InputError& e) {
        return e;
    }
    ADD_FAILURE() << "no error for:\n" << toml;
    return InputError("", "", "");
}

}  // namespace numasim::test
