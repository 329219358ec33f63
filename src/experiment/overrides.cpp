#include "experiment/overrides.h"

#include <fmt/format.h>

#include <toml++/toml.h>
#include <algorithm>
#include <cctype>
#include <charconv>
#include <optional>

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
        if (split_top_level(value, ',').size() > 1)
            throw InputError(origin, key,
                             "a list of values is a sweep: give it to `numasim sweep` or "
                             "`numasim compare`");
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

std::vector<std::string> split_top_level(std::string_view text, char sep) {
    std::vector<std::string> out;
    int depth = 0;
    char quote = 0;
    size_t start = 0;
    for (size_t i = 0; i <= text.size(); ++i) {
        const char c = i < text.size() ? text[i] : sep;
        if (quote) {
            if (c == quote && i < text.size()) quote = 0;
        } else if (c == '"' || c == '\'') {
            quote = c;
        } else if (c == '[' || c == '{') {
            ++depth;
        } else if (c == ']' || c == '}') {
            --depth;
        }
        if ((c == sep && depth == 0 && !quote) || i == text.size()) {
            const std::string_view item = trim(text.substr(start, i - start));
            if (!item.empty()) out.emplace_back(item);
            start = i + 1;
        }
    }
    return out;
}

Variant parse_variant(std::string_view spec) {
    const std::string origin = "--variant " + std::string(spec);
    const auto colon = spec.find(':');
    if (colon == std::string_view::npos || colon == 0)
        throw InputError(origin, "",
                         "expected NAME:KEY=VALUE[,KEY=VALUE...], e.g. vanilla:profile=v4.18");
    Variant v{std::string(spec.substr(0, colon)), {}};
    for (const auto& item : split_top_level(spec.substr(colon + 1), ','))
        v.overrides.push_back(parse_override(item, origin));
    return v;
}

namespace {

std::optional<int64_t> parse_integer(std::string_view s) {
    int64_t v = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
    return v;
}

// "A..B" or "A..B:STEP" with integers; nullopt if `value` is not written that way.
std::optional<std::vector<std::string>> integer_range(std::string_view value,
                                                      const std::string& origin,
                                                      const std::string& key) {
    const auto dots = value.find("..");
    if (dots == std::string_view::npos) return std::nullopt;
    std::string_view rest = value.substr(dots + 2);
    std::optional<int64_t> step = 1;
    if (const auto colon = rest.find(':'); colon != std::string_view::npos) {
        step = parse_integer(rest.substr(colon + 1));
        rest = rest.substr(0, colon);
    }
    const auto from = parse_integer(value.substr(0, dots));
    const auto to = parse_integer(rest);
    if (!from || !to || !step) return std::nullopt;
    if (*step <= 0 || *to < *from)
        throw InputError(origin, key, "a range A..B:STEP needs A <= B and STEP > 0");
    if (static_cast<uint64_t>(*to - *from) / static_cast<uint64_t>(*step) >= kMaxAxisValues)
        throw InputError(origin, key, fmt::format("more than {} values", kMaxAxisValues));
    std::vector<std::string> out;
    for (int64_t v = *from; v <= *to; v += *step) {
        out.push_back(std::to_string(v));
        if (*to - v < *step) break;  // no overflow past B
    }
    return out;
}

// How a value reads in a table or a CSV cell: a TOML string without its quotes.
std::string label_of(const std::string& toml_text, const std::string& written) {
    try {
        const std::string doc = "v = " + toml_text;
        const toml::table t = toml::parse(std::string_view(doc));
        if (const auto* s = t["v"].as_string()) return s->get();
    } catch (const toml::parse_error&) {
    }
    return written;
}

}  // namespace

OverrideAxis parse_override_axis(std::string_view text, const std::string& origin) {
    const auto eq = text.find('=');
    if (eq == std::string_view::npos)
        throw InputError(origin, "", "expected KEY=VALUE, e.g. smallimp=0");
    const std::string_view key = trim(text.substr(0, eq));
    const std::string_view value = trim(text.substr(eq + 1));
    const std::string full_key = resolve_key(key, origin);
    std::vector<std::string> items;
    if (auto range = integer_range(value, origin, full_key)) {
        items = std::move(*range);
    } else if (value.size() >= 2 && value.front() == '[' && value.back() == ']') {
        items = split_top_level(value.substr(1, value.size() - 2), ',');
        if (items.empty()) throw InputError(origin, full_key, "an empty list of values");
    } else {
        items = split_top_level(value, ',');
        if (items.empty()) items.emplace_back(value);  // parse_override reports it
    }
    if (items.size() > kMaxAxisValues)
        throw InputError(origin, full_key, fmt::format("more than {} values", kMaxAxisValues));
    OverrideAxis axis{std::string(key), {}, {}};
    for (const auto& item : items) {
        axis.values.push_back(parse_override(std::string(key) + "=" + item, origin));
        axis.labels.push_back(label_of(axis.values.back().value, item));
    }
    return axis;
}

OverrideAxis string_override_axis(std::string_view key, std::string_view values,
                                  const std::string& origin) {
    OverrideAxis axis{std::string(key), {}, {}};
    for (const auto& v : split_top_level(values, ',')) {
        axis.values.push_back(string_override(key, v, origin));
        axis.labels.push_back(v);
    }
    if (axis.values.empty()) throw InputError(origin, std::string(key), "missing value");
    return axis;
}

}  // namespace numasim
