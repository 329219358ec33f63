#include "experiment/scenario.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <set>

#include "config/embedded.h"
#include "config/input_error.h"
#include "config/limits.h"
#include "config/sha256.h"
#include "config/toml_reader.h"
#include "engine/process.h"
#include "kernel/system.h"
#include "machine/hardware_table.h"
#include "machine/presets.h"
#include "mm/memory_tiers.h"
#include "numab/profile.h"
#include "policy/registry.h"
#include "workload/registry.h"
#include "workload/workload.h"

namespace numasim {

namespace {

constexpr int64_t kDefaultDurationS = 60;
constexpr int kMaxIterations = 10000;

using WorkloadTables = std::vector<std::shared_ptr<TomlTable>>;

// An error about workload `i`, at its [[workload]] table if there is one.
[[noreturn]] void fail_workload(const Scenario& sc, const WorkloadTables& tables, size_t i,
                                const std::string& problem) {
    if (i < tables.size()) tables[i]->fail_here(problem);
    throw InputError(sc.file, "workload", problem);
}

// Sets the workloads up on a scratch machine (no simulation); `each` sees each workload and the
// bytes mapped so far (each memory object once) after it.
uint64_t mapped_bytes(const Scenario& sc, const WorkloadTables& tables,
                      const std::function<void(size_t, const Workload&, uint64_t)>& each) {
    System sys(sc.machine, sc.knobs, sc.seed);
    sys.set_kernel_release(profile_release(sc.profile));
    sys.placement_policy = sc.placement.get();
    auto workloads = sc.make_workloads();
    std::set<const MemObject*> seen;
    uint64_t bytes = 0;
    for (size_t i = 0; i < workloads.size(); ++i) {
        try {
            workloads[i]->setup(sys, static_cast<int>(i));
        } catch (const WorkloadTooLarge& e) {
            fail_workload(sc, tables, i,
                          fmt::format("{} (docs/scenario.md, \"Limits\")", e.what()));
        }
        for (const auto& mm : sys.mms)
            for (const auto& v : mm->vmas)
                if (seen.insert(v->object.get()).second)
                    bytes += v->object->nr_pages * v->pages.size();
        if (each) each(i, *workloads[i], bytes);
    }
    return bytes;
}

// Refuses, for each workload in turn, phases that would start faster than the engine's bound
// (the run would never end; short bursts are fine, the bound is an average over the run, at
// least a second), and memory the machine cannot hold (the model has no swap, so such a run
// could only stall).
void check_workloads(const Scenario& sc, const WorkloadTables& tables) {
    const double seconds = std::max(1.0, static_cast<double>(sc.duration) / NSEC_PER_SEC);
    mapped_bytes(sc, tables, [&](size_t i, const Workload& w, uint64_t bytes) {
        if (const double starts = w.phase_starts(seconds);
            starts > kMaxPhaseStartsPerSecond * seconds)
            fail_workload(sc, tables, i,
                          fmt::format("its phases could start {:.3g} times in {:g} s of simulated "
                                      "time, more than {:.0e} a second (phases that repeat or "
                                      "loop with almost no cpu_time, sleep or work; "
                                      "docs/scenario.md, \"Errors and limits\")",
                                      starts, seconds, kMaxPhaseStartsPerSecond));
        if (bytes <= sc.machine.total_mem_bytes()) return;
        fail_workload(
            sc, tables, i,
            fmt::format("the workloads map {:.1f} GiB but the machine has {:.1f} GiB of memory",
                        bytes / 1073741824.0, sc.machine.total_mem_bytes() / 1073741824.0));
    });
}

Variant read_variant(const TomlTable& v, const NumaBalancingKnobs& knobs) {
    Variant out;
    out.name = v.get_string("name");
    if (out.name.empty() || out.name.find(' ') != std::string::npos)
        v.fail("name", "a variant name must be non-empty and without spaces");
    NumaBalancingKnobs k = knobs;
    if (v.has("profile")) {
        const std::string profile = v.get_string("profile");
        try {
            k = load_profile(profile);
        } catch (const InputError& e) {
            v.fail("profile", e.problem());
        }
        out.overrides.push_back(string_override("profile", profile, v.origin("profile")));
    }
    if (v.has("machine"))
        out.overrides.push_back(
            string_override("machine", v.get_string("machine"), v.origin("machine")));
    for (const char* key : {"set", "params"})
        if (v.has(key))
            for (const auto& a : v.get_string_array(key))
                out.overrides.push_back(parse_override(a, v.origin(key)));
    v.finish();
    // The knob assignments among them, applied to a copy of the knobs.
    ScenarioOverrides knob_overrides;
    for (const auto& a : out.overrides)
        if (a.key.rfind("numa_balancing.", 0) == 0) knob_overrides.push_back(a);
    const TomlTable doc = TomlTable::parse_text("", v.file(), knob_overrides);
    if (auto nb = doc.table("numa_balancing")) apply_knobs(k, *nb);
    return out;
}

// numa_balancing's MEMORY_TIERING bit came with the tiering series in v5.18: the older
// profiles' kernels take 0 or 1 only. From v6.1 on the mode promotes hot slow-tier pages
// (docs/tiering.md, "Step 2: promotion").
void check_tiering_mode(const Scenario& sc) {
    if (!sc.knobs.tiering_mode()) return;
    const KnobInfo& k = *find_knob("numa_balancing");
    const std::string& origin = sc.knob_origins.at(static_cast<size_t>(&k - knob_table().data()));
    if (memtier_kernel_of_release(profile_release(sc.profile)) == MemtierKernel::kNone)
        throw InputError(origin, "",
                         fmt::format("numa_balancing={}: the {} profile's kernel has no memory "
                                     "tiering mode (v5.18+): kernel.numa_balancing takes 0 or 1",
                                     sc.knobs.numa_balancing, sc.profile));
}

// Builds the policy `policy` of the [scenario] table names, and checks every [policy.NAME] table
// (each names a registered policy, and that policy accepts it), selected or not, so that a
// variant selecting another policy finds its table already checked.
void read_policies(Scenario& sc, const TomlTable& root, const TomlTable& head) {
    const PolicyInfo* selected = find_policy(sc.policy);
    if (!selected)
        head.fail("policy", fmt::format("unknown policy '{}' (known: {})", sc.policy,
                                        fmt::join(policy_names(), ", ")));
    const std::optional<TomlTable> tables = root.table("policy");
    if (tables)
        for (const std::string& name : tables->keys())
            if (!find_policy(name))
                tables->fail(name, fmt::format("unknown policy '{}' (known: {})", name,
                                               fmt::join(policy_names(), ", ")));
    for (const PolicyInfo& info : policy_registry()) {
        std::optional<TomlTable> params;
        if (tables && tables->has(info.name)) params = tables->table(info.name);
        if (!params && &info != selected) continue;
        try {
            std::unique_ptr<PlacementPolicy> policy =
                info.factory(params ? &*params : nullptr, sc.machine);
            if (&info == selected) sc.placement = std::move(policy);
        } catch (const InputError& e) {
            if (!e.file().empty()) throw;
            head.fail("policy", e.problem());  // a policy that needs a table it was not given
        }
    }
    if (tables) tables->finish();
}

// vm.watermark_scale_factor spaces the watermarks by a share of each node (at most 30 %): on a
// node that small against min_free_kbytes, the promo watermark (three gaps above min) could
// reach the node's size, and the node would never count as balanced. The kernel takes any value
// in range; the model refuses one that leaves a node no pages above its marks.
void check_watermarks(const Scenario& sc) {
    PhysMem mem;
    std::vector<uint64_t> bytes;
    for (const auto& n : sc.machine.nodes)
        bytes.push_back(n.mem_bytes);
    mem.init(bytes, sc.machine.distance, sc.machine.hw.pages, sc.knobs.watermark_scale_factor);
    const KnobInfo& k = *find_knob("watermark_scale_factor");
    const std::string& origin = sc.knob_origins.at(static_cast<size_t>(&k - knob_table().data()));
    for (size_t nid = 0; nid < mem.nodes.size(); ++nid) {
        const NodeMemory& m = mem.nodes[nid];
        if (m.present_pages && m.wmark_promo >= m.present_pages)
            throw InputError(
                origin, "",
                fmt::format("watermark_scale_factor={}: node {}'s promo watermark "
                            "({} pages) is not below its size ({} pages)",
                            sc.knobs.watermark_scale_factor, nid, m.wmark_promo, m.present_pages));
    }
}

Scenario load(const TomlTable& root, std::string_view text, std::vector<ScenarioWorkload> extra) {
    Scenario sc;
    sc.file = root.file();
    sc.file_sha256 = sha256_hex(text);
    auto head = root.table("scenario");
    if (!head) root.fail_here("missing [scenario] table");
    sc.name = head->get_string("name", sc.file);
    sc.description = head->get_string("description", "");
    sc.machine_spec = head->get_string("machine");
    // A machine given on the command line is resolved from the working directory and blamed
    // on the option; one from the file, relative to the file.
    const std::string machine_origin = head->origin("machine");
    const bool from_file = machine_origin.rfind(sc.file + ": ", 0) == 0;
    sc.machine = resolve_machine(sc.machine_spec, from_file ? sc.file : machine_origin,
                                 from_file ? "scenario.machine" : "", from_file);
    if (auto f = machine_spec_file(sc.machine_spec, sc.file, from_file); !f.empty())
        sc.input_files.push_back(f);
    if (auto hw = root.table("hardware")) apply_hardware_overrides(sc.machine, *hw);
    sc.profile = head->get_string("profile", kDefaultProfile);
    try {
        sc.knobs = load_profile(sc.profile, &sc.knob_origins);
    } catch (const InputError& e) {
        head->fail("profile", e.problem());
    }
    sc.duration = head->get_duration_ns("duration", kDefaultDurationS * NSEC_PER_SEC);
    if (sc.duration <= 0) head->fail("duration", "must be positive");
    if (sc.duration > kMaxDurationSeconds * NSEC_PER_SEC)
        head->fail("duration", fmt::format("must be at most {} s (docs/scenario.md, \"Limits\")",
                                           kMaxDurationSeconds));
    const int64_t iterations = head->get_int("iterations", 1);
    if (iterations < 1 || iterations > kMaxIterations)
        head->fail("iterations", fmt::format("must be 1..{}", kMaxIterations));
    sc.iterations = static_cast<int>(iterations);
    const int64_t seed = head->get_int("seed", 1);
    if (seed < 0) head->fail("seed", "must be 0..9223372036854775807");
    sc.seed = static_cast<uint64_t>(seed);
    sc.check_invariants = head->get_bool("check_invariants", false);
    sc.fault_runs = head->get_bool("fault_runs", true);
    sc.deferred_ticks = head->get_bool("deferred_ticks", true);
    sc.settled_tick_in_place = head->get_bool("settled_tick_in_place", true);
    sc.policy = head->get_string("policy", kMainlinePolicy);
    head->finish();
    read_policies(sc, root, *head);

    if (auto nb = root.table("numa_balancing")) {
        apply_knobs(sc.knobs, *nb, &sc.knob_origins);
        nb->finish();
    }
    check_tiering_mode(sc);
    check_watermarks(sc);
    for (const auto& v : root.tables("variant"))
        sc.variants.push_back(read_variant(v, sc.knobs));
    // `numasim validate` (and its --oracle) reads these; a plain run ignores them.
    root.has("effect");
    root.has("validate");
    root.has("oracle");

    std::vector<std::shared_ptr<TomlTable>> tables;
    for (const auto& w : root.tables("workload")) {
        const std::string type = w.get_string("type");
        const WorkloadInfo* info = find_workload(type);
        if (!info) {
            std::vector<std::string> names;
            for (const auto& i : workload_registry())
                names.push_back(i.name);
            w.fail("type",
                   fmt::format("unknown workload '{}' (known: {})", type, fmt::join(names, ", ")));
        }
        auto t = std::make_shared<TomlTable>(w);
        tables.push_back(t);
        sc.workloads.push_back(
            {type, [info, t](const Topology& m) { return info->factory(*t, m); }});
    }
    for (auto& w : extra)
        sc.workloads.push_back(std::move(w));
    if (sc.workloads.empty()) root.fail_here("no [[workload]] table: nothing to run");
    // Build and set up once: validates every parameter and the memory, and marks the keys read
    // so that unknown ones are rejected now.
    check_workloads(sc, tables);
    for (const auto& t : tables)
        t->finish();
    root.finish();
    return sc;
}

}  // namespace

const std::vector<std::string_view>& scenario_head_keys() {
    static const std::vector<std::string_view> keys = {"name",
                                                       "description",
                                                       "machine",
                                                       "profile",
                                                       "duration",
                                                       "iterations",
                                                       "seed",
                                                       "check_invariants",
                                                       "fault_runs",
                                                       "deferred_ticks",
                                                       "settled_tick_in_place",
                                                       "policy"};
    return keys;
}

std::vector<std::unique_ptr<Workload>> Scenario::make_workloads() const {
    std::vector<std::unique_ptr<Workload>> out;
    for (const auto& w : workloads)
        out.push_back(w.make(machine));
    return out;
}

uint64_t workload_memory_bytes(const Scenario& sc) {
    return mapped_bytes(sc, {}, {});
}

Scenario load_scenario_file(const std::string& path, const ScenarioOverrides& ov) {
    const std::string text = read_input_file(path);
    Scenario sc = load(TomlTable::parse_text(text, path, ov), text, {});
    sc.input_files.push_back(path);
    return sc;
}

Scenario load_scenario_text(std::string_view text, const std::string& name,
                            const ScenarioOverrides& ov) {
    return load(TomlTable::parse_text(text, name, ov), text, {});
}

Scenario load_builtin_scenario(std::string_view name, const ScenarioOverrides& ov,
                               std::vector<ScenarioWorkload> workloads) {
    const EmbeddedFile* f = find_embedded("builtin_scenarios", name);
    if (!f) throw InputError("", std::string(name), "no such built-in scenario");
    return load(TomlTable::parse_text(f->text, fmt::format("<built-in {} scenario>", name), ov),
                f->text, std::move(workloads));
}

}  // namespace numasim
