#include "numab/profile.h"

#include <algorithm>
#include <cctype>

#include "config/embedded.h"
#include "config/input_error.h"
#include "config/toml_reader.h"

namespace numasim {

namespace {

constexpr const char* kGroup = "kernel_profiles";
// Upper bounds that keep the arithmetic of the scan code in range; the kernel itself takes any
// unsigned int for the debugfs knobs.
constexpr int64_t MAX_MS = 3600 * 1000;        // one hour
constexpr int64_t MAX_SCAN_SIZE_MB = 1 << 20;  // 1 TiB per window
constexpr int64_t MAX_SMALLIMP = 1998;         // the largest importance (2 x 999)

std::string join(const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v)
        s += (s.empty() ? "" : ", ") + x;
    return s;
}

int64_t int_in(const TomlTable& t, const char* key, int64_t lo, int64_t hi) {
    const int64_t v = t.get_int(key);
    if (v < lo || v > hi)
        t.fail(key, "must be between " + std::to_string(lo) + " and " + std::to_string(hi) +
                        ", got " + std::to_string(v));
    return v;
}

template <typename E>
E enum_in(const TomlTable& t, const char* key, bool (*parse)(const std::string&, E&),
          const char* valid) {
    const std::string s = t.get_string(key);
    E out{};
    if (!parse(s, out)) t.fail(key, "unknown value '" + s + "' (valid: " + valid + ")");
    return out;
}

}  // namespace

const std::vector<std::string>& knob_keys() {
    static const std::vector<std::string> keys = {"numa_balancing",     "scan_delay_ms",
                                                  "scan_period_min_ms", "scan_period_max_ms",
                                                  "scan_size_mb",       "hot_threshold_ms",
                                                  "smallimp",           "skip_shared_cow",
                                                  "vma_scan",           "pids_active_bits",
                                                  "idle_early_stop",    "per_vma_start_scan_seq",
                                                  "starvation_guard",   "pid_reset_before_check",
                                                  "cow_shared_test",    "thp_sets_tnf_shared",
                                                  "thp_mapcount_check", "numa_classify",
                                                  "numa_imbalance",     "sched_class",
                                                  "lb_rework",          "numa_preferred_nid",
                                                  "numa_task_migrate",  "numa_groups",
                                                  "numa_scan_adapt"};
    return keys;
}

void apply_knobs(NumaBalancingKnobs& k, const TomlTable& t) {
    const auto& valid = knob_keys();
    for (const std::string& key : t.keys())
        if (std::find(valid.begin(), valid.end(), key) == valid.end())
            t.fail(key, "unknown NUMA-balancing knob (valid: " + join(valid) + ")");

    // sysctl kernel.numa_balancing: bit 0 NORMAL, bit 1 MEMORY_TIERING.
    if (t.has("numa_balancing"))
        k.numa_balancing = static_cast<int>(int_in(t, "numa_balancing", 0, 3));
    if (t.has("scan_delay_ms"))
        k.scan_delay_ms = static_cast<unsigned>(int_in(t, "scan_delay_ms", 0, MAX_MS));
    if (t.has("scan_period_min_ms"))
        k.scan_period_min_ms = static_cast<unsigned>(int_in(t, "scan_period_min_ms", 1, MAX_MS));
    if (t.has("scan_period_max_ms"))
        k.scan_period_max_ms = static_cast<unsigned>(int_in(t, "scan_period_max_ms", 1, MAX_MS));
    if (t.has("scan_size_mb"))
        k.scan_size_mb = static_cast<unsigned>(int_in(t, "scan_size_mb", 1, MAX_SCAN_SIZE_MB));
    if (t.has("hot_threshold_ms"))
        k.hot_threshold_ms = static_cast<unsigned>(int_in(t, "hot_threshold_ms", 0, MAX_MS));
    if (t.has("smallimp")) k.smallimp = static_cast<int>(int_in(t, "smallimp", 0, MAX_SMALLIMP));
    if (t.has("skip_shared_cow")) k.skip_shared_cow = t.get_bool("skip_shared_cow", true);
    if (t.has("vma_scan"))
        k.vma_scan = enum_in<VmaScanSelection>(t, "vma_scan", parse_vma_scan_selection,
                                               "all, pids_active, pids_active_forced, four_pass");
    if (t.has("pids_active_bits")) {
        const int64_t b = t.get_int("pids_active_bits");
        if (b != 64 && b != 128)
            t.fail("pids_active_bits", "must be 64 or 128, got " + std::to_string(b));
        k.pids_active_bits = static_cast<int>(b);
    }
    if (t.has("idle_early_stop")) k.idle_early_stop = t.get_bool("idle_early_stop", true);
    if (t.has("per_vma_start_scan_seq"))
        k.per_vma_start_scan_seq = t.get_bool("per_vma_start_scan_seq", true);
    if (t.has("starvation_guard")) k.starvation_guard = t.get_bool("starvation_guard", true);
    if (t.has("pid_reset_before_check"))
        k.pid_reset_before_check = t.get_bool("pid_reset_before_check", true);
    if (t.has("cow_shared_test"))
        k.cow_shared_test = enum_in<CowSharedTest>(t, "cow_shared_test", parse_cow_shared_test,
                                                   "mapcount, refcount, likely_mapped_shared");
    if (t.has("thp_sets_tnf_shared"))
        k.thp_sets_tnf_shared = t.get_bool("thp_sets_tnf_shared", true);
    if (t.has("thp_mapcount_check")) k.thp_mapcount_check = t.get_bool("thp_mapcount_check", false);
    if (t.has("numa_classify")) k.numa_classify = t.get_bool("numa_classify", true);
    if (t.has("numa_imbalance"))
        k.numa_imbalance = enum_in<NumaImbalance>(t, "numa_imbalance", parse_numa_imbalance,
                                                  "none, imbalance_pct, busiest_min, src_min, "
                                                  "fixed, imb_numa_nr");
    if (t.has("sched_class"))
        k.sched_class =
            enum_in<SchedClass>(t, "sched_class", parse_sched_class, "cfs, eevdf, eevdf_complete");
    if (t.has("lb_rework")) k.lb_rework = t.get_bool("lb_rework", true);
    if (t.has("numa_preferred_nid")) k.numa_preferred_nid = t.get_bool("numa_preferred_nid", true);
    if (t.has("numa_task_migrate")) k.numa_task_migrate = t.get_bool("numa_task_migrate", true);
    if (t.has("numa_groups")) k.numa_groups = t.get_bool("numa_groups", true);
    if (t.has("numa_scan_adapt")) k.numa_scan_adapt = t.get_bool("numa_scan_adapt", true);
    if (k.scan_period_max_ms < k.scan_period_min_ms) {
        const char* key = t.has("scan_period_max_ms") ? "scan_period_max_ms" : "scan_period_min_ms";
        t.fail(key, "scan_period_max_ms (" + std::to_string(k.scan_period_max_ms) +
                        ") is below scan_period_min_ms (" + std::to_string(k.scan_period_min_ms) +
                        ")");
    }
}

std::vector<std::string> profile_names() {
    std::vector<std::string> names;
    for (const EmbeddedFile& f : embedded_files())
        if (f.group == kGroup) names.emplace_back(f.name);
    std::sort(names.begin(), names.end());
    return names;
}

NumaBalancingKnobs load_profile(const std::string& name) {
    const EmbeddedFile* f = find_embedded(kGroup, name);
    if (!f)
        throw InputError(
            "", "profile",
            "unknown kernel profile '" + name + "' (valid: " + join(profile_names()) + ")");
    const TomlTable root = TomlTable::parse_text(f->text, "profiles/" + name + ".toml");
    NumaBalancingKnobs k;
    if (auto p = root.table("profile")) {
        (void)p->get_string("description", "");
        (void)p->get_string("release", "");
        p->finish();
    }
    if (auto t = root.table("numa_balancing")) apply_knobs(k, *t);
    root.finish();
    return k;
}

void apply_knob_override(NumaBalancingKnobs& k, const std::string& assignment) {
    const size_t eq = assignment.find('=');
    auto trim = [](std::string s) {
        while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
            s.pop_back();
        while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
            s.erase(s.begin());
        return s;
    };
    if (eq == std::string::npos)
        throw InputError("--set", assignment, "expected key=value (e.g. smallimp=0)");
    const std::string key = trim(assignment.substr(0, eq));
    std::string value = trim(assignment.substr(eq + 1));
    const auto& valid = knob_keys();
    if (std::find(valid.begin(), valid.end(), key) == valid.end())
        throw InputError("--set", key, "unknown NUMA-balancing knob (valid: " + join(valid) + ")");
    if (value.empty()) throw InputError("--set", key, "missing value");
    // Bare words are the enum knobs' names: quote them so the TOML reader sees a string.
    const bool number = std::all_of(value.begin(), value.end(), [](char c) {
        return std::isdigit(static_cast<unsigned char>(c)) || c == '-' || c == '+';
    });
    if (!number && value != "true" && value != "false" && value.front() != '"') {
        for (char c : value)
            if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_')
                throw InputError("--set", key, "'" + value + "' is not a valid value");
        value = "\"" + value + "\"";
    }
    TomlTable t = [&] {
        try {
            return TomlTable::parse_text(key + " = " + value + "\n", "--set");
        } catch (const InputError& e) {
            throw InputError("--set", key, "'" + value + "' is not a valid value");
        }
    }();
    apply_knobs(k, t);
}

}  // namespace numasim
