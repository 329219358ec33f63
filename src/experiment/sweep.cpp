#include "experiment/sweep.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <map>

#include "config/input_error.h"
#include "config/toml_reader.h"
#include "experiment/scenario.h"
#include "kernel/counters.h"

namespace numasim {

namespace {

// A string or an array of strings.
std::vector<std::string> strings(const TomlTable& t, std::string_view key) {
    try {
        return {t.get_string(key)};
    } catch (const InputError&) {
        return t.get_string_array(key);
    }
}

// `seeds`: "1..20", "1,5,9", an integer or an array of integers, as --seeds takes it.
std::string seeds_text(const TomlTable& t) {
    try {
        return t.get_string("seeds");
    } catch (const InputError&) {
    }
    try {
        return std::to_string(t.get_int("seeds"));
    } catch (const InputError&) {
    }
    std::string s;
    for (int64_t v : t.get_int_array("seeds"))
        s += (s.empty() ? "" : ",") + std::to_string(v);
    return s;
}

size_t parse_count(std::string_view s) {
    size_t v = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    return ec == std::errc() && end == s.data() + s.size() && !s.empty() ? v : 0;
}

}  // namespace

void add_override_axis(SweepDefinition& d, OverrideAxis axis, const std::string& origin) {
    if (axis.values.size() == 1) {
        d.common.push_back(std::move(axis.values.front()));
        return;
    }
    const std::string key = axis.values.front().key;
    for (const auto& a : d.axes)
        if (a.kind == SweepAxis::Kind::Override && a.key == key)
            throw InputError(origin, key, "this key is swept twice");
    SweepAxis a;
    a.kind = SweepAxis::Kind::Override;
    a.name = axis.name;
    a.key = key;
    a.labels = std::move(axis.labels);
    a.assignments = std::move(axis.values);
    d.axes.push_back(std::move(a));
}

void add_variant_axis(SweepDefinition& d, std::vector<Variant> variants, bool named) {
    if (variants.empty()) return;
    for (const auto& a : d.axes)
        if (a.kind == SweepAxis::Kind::Variant)
            throw InputError("", "variant", "variants are given twice");
    SweepAxis a;
    a.kind = SweepAxis::Kind::Variant;
    a.name = "variant";
    a.named_variants = named;
    for (const auto& v : variants)
        a.labels.push_back(v.name);
    a.variants = std::move(variants);
    // The variant comes first among the axes: its overrides apply before the axes' values.
    d.axes.insert(d.axes.begin(), std::move(a));
}

bool read_sweep_file(const std::string& path, SweepDefinition& d) {
    const TomlTable doc = TomlTable::parse_file(path);
    const auto t = doc.table("sweep");
    if (!t) {
        d.scenarios.push_back(path);
        if (d.name.empty()) d.name = std::filesystem::path(path).stem().string();
        return false;
    }
    d.name = t->get_string("name", std::filesystem::path(path).stem().string());
    d.scenarios = strings(*t, "scenario");
    if (d.scenarios.empty()) t->fail("scenario", "no scenario file");
    if (t->has("variants")) {
        std::vector<Variant> vs;
        for (const auto& n : t->get_string_array("variants"))
            vs.push_back({n, {}});
        add_variant_axis(d, std::move(vs), true);
    }
    // The same order as the command line's options: machine, profile, seeds, params, set.
    for (const char* key : {"machine", "profile"})
        if (t->has(key)) {
            std::string list;
            for (const auto& v : strings(*t, key))
                list += (list.empty() ? "" : ",") + v;
            add_override_axis(d, string_override_axis(key, list, t->origin(key)), t->origin(key));
        }
    if (t->has("seeds"))
        add_override_axis(d, parse_override_axis("seed=" + seeds_text(*t), t->origin("seeds")),
                          t->origin("seeds"));
    for (const char* key : {"params", "set"})
        if (t->has(key))
            for (const auto& a : t->get_string_array(key))
                add_override_axis(d, parse_override_axis(a, t->origin(key)), t->origin(key));
    d.along = t->get_string("along", "");
    if (t->has("metrics")) d.metrics = t->get_string_array("metrics");
    t->finish();
    doc.finish();
    return true;
}

std::vector<SweepAxis> sweep_axes(const SweepDefinition& d) {
    std::vector<SweepAxis> out;
    if (d.scenarios.size() > 1) {
        SweepAxis s;
        s.kind = SweepAxis::Kind::Scenario;
        s.name = "scenario";
        s.labels = d.scenarios;
        out.push_back(std::move(s));
    }
    for (const auto& a : d.axes)
        if (a.labels.size() > 1) out.push_back(a);
    return out;
}

bool is_seed_axis(const SweepAxis& a) {
    return a.kind == SweepAxis::Kind::Override && a.key == "scenario.seed";
}

std::string sweep_along(const SweepDefinition& d) {
    const auto axes = sweep_axes(d);
    if (!d.along.empty()) {
        for (const auto& a : axes)
            if (a.name == d.along || (a.kind == SweepAxis::Kind::Override && a.key == d.along))
                return a.name;
        std::vector<std::string> names;
        for (const auto& a : axes)
            names.push_back(a.name);
        throw InputError(
            "along " + d.along, "",
            fmt::format("no axis of that name with more than one value (axes: {})",
                        names.empty() ? "none" : fmt::format("{}", fmt::join(names, ", "))));
    }
    for (const auto& a : axes)
        if (!is_seed_axis(a)) return a.name;
    return "";
}

std::vector<SweepCase> expand_sweep(const SweepDefinition& d) {
    if (d.scenarios.empty()) throw InputError("", "scenario", "a sweep needs a scenario file");
    size_t total = d.scenarios.size();
    for (const auto& a : d.axes) {
        if (a.labels.empty()) throw InputError("", a.name, "an axis without values");
        if (total > kMaxSweepCases / a.labels.size())
            throw InputError("", a.name, fmt::format("more than {} cases", kMaxSweepCases));
        total *= a.labels.size();
    }
    std::vector<SweepCase> cases;
    cases.reserve(total);
    for (const auto& file : d.scenarios) {
        // The [[variant]] tables of this file, read under the common overrides as compare does.
        std::map<std::string, ScenarioOverrides> named;
        for (const auto& a : d.axes)
            if (a.kind == SweepAxis::Kind::Variant && a.named_variants) {
                for (const auto& v : load_scenario_file(file, d.common).variants)
                    named[v.name] = v.overrides;
                for (const auto& n : a.labels)
                    if (!named.count(n))
                        throw InputError(file, "variant",
                                         fmt::format("no [[variant]] table named '{}'", n));
            }
        std::vector<size_t> point(d.axes.size(), 0);
        while (true) {
            SweepCase c;
            c.index = cases.size();
            c.scenario = file;
            if (d.scenarios.size() > 1) c.labels.push_back(file);
            c.overrides = d.common;
            for (size_t i = 0; i < d.axes.size(); ++i) {
                const SweepAxis& a = d.axes[i];
                if (a.labels.size() > 1) c.labels.push_back(a.labels[point[i]]);
                if (a.kind == SweepAxis::Kind::Variant) {
                    const auto& ov = a.named_variants ? named[a.labels[point[i]]]
                                                      : a.variants[point[i]].overrides;
                    c.overrides.insert(c.overrides.end(), ov.begin(), ov.end());
                } else {
                    c.overrides.push_back(a.assignments[point[i]]);
                }
            }
            cases.push_back(std::move(c));
            // The next point: the last axis varies fastest.
            size_t i = d.axes.size();
            while (i > 0 && ++point[i - 1] == d.axes[i - 1].labels.size())
                point[--i] = 0;
            if (i == 0) break;
        }
    }
    return cases;
}

Shard parse_shard(const std::string& text) {
    const auto slash = text.find('/');
    Shard s;
    if (slash != std::string::npos) {
        s.index = parse_count(std::string_view(text).substr(0, slash));
        s.count = parse_count(std::string_view(text).substr(slash + 1));
    }
    if (slash == std::string::npos || s.count < 1 || s.index < 1 || s.index > s.count ||
        s.count > kMaxSweepCases)
        throw InputError("--shard " + text, "",
                         "expected I/N with 1 <= I <= N, e.g. --shard 2/8 for the second of 8");
    return s;
}

void check_sweep_metrics(const std::vector<std::string>& metrics) {
    for (const auto& m : metrics) {
        bool known = true;
        if (m.rfind("vmstat.", 0) == 0)
            known = std::find(kVmNames.begin(), kVmNames.end(), m.substr(7)) != kVmNames.end() ||
                    std::any_of(kNodeStats.begin(), kNodeStats.end(),
                                [&](const auto& s) { return s.first == m.substr(7); });
        else if (m.rfind("sched.", 0) == 0)
            known = std::any_of(kSchedCounters.begin(), kSchedCounters.end(),
                                [&](const auto& c) { return c.first == m.substr(6); });
        if (!known || m.empty())
            throw InputError("metric " + m, "",
                             "no such counter (docs/reports.md lists the vmstat and sched ones)");
    }
}

std::vector<std::string> override_texts(const ScenarioOverrides& ov) {
    std::vector<std::string> out;
    for (const auto& a : ov)
        out.push_back(a.key + "=" + a.value);
    return out;
}

}  // namespace numasim
