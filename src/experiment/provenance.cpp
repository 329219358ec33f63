#include "experiment/provenance.h"

#include <algorithm>

#include <fmt/format.h>

#include "config/version.h"
#include "experiment/scenario.h"
#include "policy/registry.h"

namespace numasim {

namespace {

// "10 21; 21 10": the SLIT row by row, as numactl -H prints its node distances.
std::string slit_text(const Topology& m) {
    std::vector<std::string> rows;
    for (const auto& row : m.distance)
        rows.push_back(fmt::format("{}", fmt::join(row, " ")));
    return fmt::format("{}", fmt::join(rows, "; "));
}

// Knobs added after the knobs line's format was settled appear on it only when set away from
// their defaults, so that a run that leaves them prints the line it printed before them: the
// reclaim knobs (docs/tiering.md, "Step 3: demotion"), the THP knobs (docs/tiering.md, "THP
// faults"), the task-swap switch (docs/placement-policies.md) and the pghot knobs
// (docs/tiering.md, "The pghot switch").
constexpr std::string_view kListedWhenSet[] = {"demotion_enabled",
                                               "watermark_scale_factor",
                                               "transparent_hugepage_enabled",
                                               "transparent_hugepage_defrag",
                                               "numa_task_swap",
                                               "pghot",
                                               "pghot_freq_threshold",
                                               "pghot_promote_freq_window_ms",
                                               "kmigrated_sleep_ms",
                                               "kmigrated_batch_nr"};

bool listed_knob(const KnobInfo& info, const NumaBalancingKnobs& k) {
    if (std::find(std::begin(kListedWhenSet), std::end(kListedWhenSet), info.name) ==
        std::end(kListedWhenSet))
        return true;
    return info.get(k) != info.get(NumaBalancingKnobs{});
}

std::string knobs_text_line(const NumaBalancingKnobs& k) {
    std::vector<std::string> kv;
    for (const KnobInfo& info : knob_table())
        if (listed_knob(info, k))
            kv.push_back(fmt::format("{}={}", info.name, knob_value_text(info, info.get(k))));
    return fmt::format("{}", fmt::join(kv, " "));
}

}  // namespace

Provenance make_provenance(const Scenario& sc, const std::string& command_line) {
    Provenance p = {
        {"numasim_version", fmt::format("{} (git {})", numasim_version(), numasim_git_revision())},
        {"command", command_line},
        {"scenario", sc.name},
        {"scenario_file", sc.file},
        {"scenario_sha256", sc.file_sha256},
        {"machine", sc.machine.name},
        {"machine_spec", sc.machine_spec},
        {"machine_sha256", sc.machine.input_sha256},
        {"machine_nodes", std::to_string(sc.machine.nr_nodes())},
        {"machine_cpus", std::to_string(sc.machine.nr_cpus())},
        {"machine_slit", slit_text(sc.machine)},
        {"profile", sc.profile},
        {"knobs", knobs_text_line(sc.knobs)},
        {"scenario_seed", std::to_string(sc.seed)},
    };
    // Named when it is not the kernel's own loop, which every earlier output ran.
    if (sc.policy != kMainlinePolicy) p.emplace_back("policy", sc.policy);
    return p;
}

Provenance with_seed(Provenance p, uint64_t seed) {
    p.emplace_back("seed", std::to_string(seed));
    return p;
}

std::vector<std::string> provenance_lines(const Provenance& p) {
    std::vector<std::string> lines;
    for (const auto& [k, v] : p)
        lines.push_back(fmt::format("{}: {}", k, v));
    return lines;
}

std::string command_line_text(int argc, const char* const* argv) {
    std::string s;
    for (int i = 0; i < argc; ++i) {
        const std::string_view w = argv[i];
        if (i) s += ' ';
        const bool plain = !w.empty() && w.find_first_not_of(
                                             "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                             "0123456789-_./:=,+@%") == std::string_view::npos;
        if (plain) {
            s += w;
            continue;
        }
        s += '\'';
        for (const char c : w)
            s += c == '\'' ? std::string("'\\''") : std::string(1, c);
        s += '\'';
    }
    return s;
}

}  // namespace numasim
