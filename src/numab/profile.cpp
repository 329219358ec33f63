#include "numab/profile.h"

#include <fmt/format.h>

#include <algorithm>

#include "config/embedded.h"
#include "config/input_error.h"
#include "config/toml_reader.h"

namespace numasim {

namespace {

constexpr const char* kGroup = "kernel_profiles";

std::string join(const std::vector<std::string>& v) {
    return fmt::format("{}", fmt::join(v, ", "));
}

int64_t read_knob(const TomlTable& t, const std::string& key, const KnobInfo& info) {
    switch (info.domain.kind) {
        case KnobDomain::Bool:
            return t.get_bool(key, false);
        case KnobDomain::Enum: {
            const std::string s = t.get_string(key);
            const auto& names = info.domain.names;
            const auto it = std::find(names.begin(), names.end(), s);
            if (it == names.end())
                t.fail(key,
                       fmt::format("unknown value '{}' (valid: {})", s, knob_valid_values(info)));
            return it - names.begin();
        }
        case KnobDomain::OneOf: {
            const int64_t v = t.get_int(key);
            if (!knob_value_valid(info, v))
                t.fail(key, fmt::format("must be {}, got {}", knob_valid_values(info), v));
            return v;
        }
        default: {
            const int64_t v = t.get_int(key);
            if (!knob_value_valid(info, v))
                t.fail(key, fmt::format("must be between {} and {}, got {}", info.domain.lo,
                                        info.domain.hi, v));
            return v;
        }
    }
}

}  // namespace

KnobOrigins default_knob_origins() {
    return KnobOrigins(knob_table().size(), "default");
}

void apply_knobs(NumaBalancingKnobs& k, const TomlTable& t, KnobOrigins* origins,
                 std::string_view label) {
    const auto& table = knob_table();
    for (const std::string& key : t.keys()) {
        const KnobInfo* info = find_knob(key);
        if (!info) {
            std::vector<std::string> names;
            for (const KnobInfo& i : table)
                names.emplace_back(i.name);
            t.fail(key, "unknown NUMA-balancing knob (valid: " + join(names) + ")");
        }
        info->set(k, read_knob(t, key, *info));
        if (origins)
            (*origins)[info - table.data()] = label.empty() ? t.origin(key) : std::string(label);
    }
    if (k.scan_period_max_ms < k.scan_period_min_ms) {
        const char* key = t.has("scan_period_max_ms") ? "scan_period_max_ms" : "scan_period_min_ms";
        t.fail(key, fmt::format("scan_period_max_ms ({}) is below scan_period_min_ms ({})",
                                k.scan_period_max_ms, k.scan_period_min_ms));
    }
}

std::vector<std::string> profile_names() {
    std::vector<std::string> names;
    for (const EmbeddedFile& f : embedded_files())
        if (f.group == kGroup) names.emplace_back(f.name);
    std::sort(names.begin(), names.end());
    return names;
}

namespace {

TomlTable profile_document(const std::string& name) {
    const EmbeddedFile* f = find_embedded(kGroup, name);
    if (!f)
        throw InputError(
            "", "profile",
            "unknown kernel profile '" + name + "' (valid: " + join(profile_names()) + ")");
    return TomlTable::parse_text(f->text, "profiles/" + name + ".toml");
}

}  // namespace

std::string profile_release(const std::string& name) {
    const TomlTable root = profile_document(name);
    const auto p = root.table("profile");
    return p ? p->get_string("release", "") : "";
}

NumaBalancingKnobs load_profile(const std::string& name, KnobOrigins* origins) {
    const TomlTable root = profile_document(name);
    NumaBalancingKnobs k;
    if (origins) *origins = default_knob_origins();
    if (auto p = root.table("profile")) {
        (void)p->get_string("description", "");
        (void)p->get_string("release", "");
        p->finish();
    }
    if (auto t = root.table("numa_balancing")) apply_knobs(k, *t, origins, "profile " + name);
    root.finish();
    return k;
}

}  // namespace numasim
