#include "experiment/overrides.h"

#include <fmt/format.h>

#include <toml++/toml.h>
#include <algorithm>
#include <cctype>

#include "config/input_error.h"
#include "experiment/scenario.h"
#include "numab/knobs.h"

namespace numasim {

namespace {

std::string_view trim(std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
        s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
        s.remove_suffix(1);
    return s;
}

// The full dotted key for `key`.
std::string resolve_key(std::string_view key, const std::string& origin) {
    if (key.empty()) throw InputError(origin, "", "expected KEY=VALUE, e.g. smallimp=0");
    if (key.find('.') != std::string_view::npos) return std::string(key);
    const auto& head = scenario_head_keys();
    if (std::find(head.begin(), head.end(), key) != head.end())
        return "scenario." + std::string(key);
    if (find_knob(key)) return "numa_balancing." + std::string(key);
    std::vector<std::string_view> knobs;
    for (const KnobInfo& k : knob_table())
        knobs.push_back(k.name);
    throw InputError(origin, std::string(key),
                     fmt::format("unknown key: give a dotted key of the scenario file (e.g. "
                                 "workload.jvms), a [scenario] key ({}) or a knob ({})",
                                 fmt::join(head, ", "), fmt::join(knobs, ", ")));
}

bool bare_word(std::string_view v) {
    return !v.empty() && std::all_of(v.begin(), v.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == ':' ||
               c == '/' || c == '+' || c == '-';
    });
}

// The value as TOML text: TOML as given if it parses, a bare word as a string.
std::string toml_value(std::string_view value, const std::string& origin, const std::string& key) {
    if (value.empty()) throw InputError(origin, key, "missing value");
    check_toml_shape(value, origin);
    try {
        const std::string doc = "v = " + std::string(value);
        (void)toml::parse(std::string_view(doc), std::string_view(origin));
        return std::string(value);
    } catch (const toml::parse_error& e) {
        const std::string_view digits = value.substr(value[0] == '-' || value[0] == '+');
        if (digits.size() >= 19 && std::all_of(digits.begin(), digits.end(), [](char c) {
                return std::isdigit(static_cast<unsigned char>(c));
            }))
            throw InputError(origin, key,
                             "integer out of range (a 64-bit signed integer: at most "
                             "9223372036854775807)");
        if (bare_word(value)) return toml_quote(value);
        throw InputError(origin, key,
                         "the value is neither TOML nor a bare word (quote strings): " +
                             std::string(e.description()));
    }
}

}  // namespace

KeyAssignment parse_override(std::string_view text, const std::string& origin) {
    const auto eq = text.find('=');
    if (eq == std::string_view::npos)
        throw InputError(origin, "", "expected KEY=VALUE, e.g. smallimp=0");
    const std::string key = resolve_key(trim(text.substr(0, eq)), origin);
    return {origin, key, toml_value(trim(text.substr(eq + 1)), origin, key)};
}

KeyAssignment string_override(std::string_view key, std::string_view value,
                              const std::string& origin) {
    return {origin, resolve_key(key, origin), toml_quote(value)};
}

Variant parse_variant(std::string_view spec) {
    const std::string origin = "--variant " + std::string(spec);
    const auto colon = spec.find(':');
    if (colon == std::string_view::npos || colon == 0)
        throw InputError(origin, "",
                         "expected NAME:KEY=VALUE[,KEY=VALUE...], e.g. vanilla:profile=v4.18");
    Variant v{std::string(spec.substr(0, colon)), {}};
    const std::string_view rest = spec.substr(colon + 1);
    int depth = 0;
    char quote = 0;
    size_t start = 0;
    for (size_t i = 0; i <= rest.size(); ++i) {
        const char c = i < rest.size() ? rest[i] : ',';
        if (quote) {
            if (c == quote) quote = 0;
        } else if (c == '"' || c == '\'') {
            quote = c;
        } else if (c == '[' || c == '{') {
            ++depth;
        } else if (c == ']' || c == '}') {
            --depth;
        } else if (c == ',' && depth == 0) {
            const std::string_view item = rest.substr(start, i - start);
            if (!trim(item).empty()) v.overrides.push_back(parse_override(item, origin));
            start = i + 1;
        }
    }
    return v;
}

}  // namespace numasim
