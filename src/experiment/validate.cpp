#include "experiment/validate.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>

#include "config/input_error.h"
#include "config/toml_reader.h"
#include "experiment/compare.h"
#include "experiment/oracle.h"
#include "experiment/uncertainty.h"
#include "oracle/subprocess.h"

namespace numasim {

namespace {

struct EffectSpec {
    std::string name, metric, from, to, expect, group;
    bool has_published = false;
    double pub_from = 0, pub_to = 0;
    double lo = 0, hi = 0;
    bool headline = true;
    bool ci = true;
};

const std::vector<std::string> kExpectations = {"sign",          "factor2",   "rise",       "fall",
                                                "rise_10x",      "fall_10x",  "change_pct", "near",
                                                "majority_rise", "argmax_in", "in_range"};

EffectSpec read_effect(const TomlTable& t) {
    EffectSpec e;
    e.name = t.get_string("name");
    e.metric = t.get_string("metric");
    e.from = t.get_string("from");
    e.to = t.get_string("to");
    e.expect = t.get_string("expect");
    if (std::find(kExpectations.begin(), kExpectations.end(), e.expect) == kExpectations.end())
        t.fail("expect", "unknown expectation '" + e.expect + "'");
    if (t.has("published")) {
        const auto p = t.get_double_array("published");
        if (p.size() != 2) t.fail("published", "expected [from, to]");
        e.has_published = true;
        e.pub_from = p[0];
        e.pub_to = p[1];
    }
    if (t.has("range")) {
        const auto r = t.get_double_array("range");
        if (r.size() != 2 || r[0] > r[1]) t.fail("range", "expected [lo, hi] with lo <= hi");
        e.lo = r[0];
        e.hi = r[1];
    } else if (e.expect == "change_pct" || e.expect == "near" || e.expect == "argmax_in" ||
               e.expect == "in_range") {
        t.fail_here("expectation '" + e.expect + "' needs `range`");
    }
    if ((e.expect == "sign" || e.expect == "factor2") && !e.has_published)
        t.fail_here("expectation '" + e.expect + "' needs `published`");
    e.group = t.get_string("group", "");
    e.headline = t.get_bool("headline", true);
    e.ci = t.get_bool("ci", true);
    t.finish();
    return e;
}

}  // namespace

double pct_change(double from, double to) {
    if (from == 0) return to == 0 ? 0.0 : (to > 0 ? INFINITY : -INFINITY);
    return (to - from) / std::fabs(from) * 100.0;
}

namespace {

double mean_metric(const VariantRuns& v, const std::string& metric, const std::string& file) {
    double sum = 0;
    for (const auto& r : v.runs) {
        auto m = run_metric(r, metric);
        if (!m) throw InputError(file, "effect.metric", "no metric '" + metric + "' in the runs");
        sum += *m;
    }
    return v.runs.empty() ? 0 : sum / static_cast<double>(v.runs.size());
}

const VariantRuns& variant(const std::vector<VariantRuns>& runs, const std::string& name,
                           const std::string& file) {
    for (const auto& v : runs)
        if (v.name == name) return v;
    throw InputError(file, "effect", "no variant named '" + name + "'");
}

// Names of operations matching "prefix*", in the order of their numeric suffix.
std::vector<std::string> pattern_metrics(const VariantRuns& v, const std::string& pattern) {
    const std::string prefix = pattern.substr(0, pattern.size() - 1);
    std::vector<std::pair<double, std::string>> found;
    for (const auto& o : run_operations(v.runs.front()))
        if (o.name.rfind(prefix, 0) == 0)
            found.emplace_back(std::atof(o.name.c_str() + prefix.size()), o.name);
    std::sort(found.begin(), found.end());
    std::vector<std::string> out;
    for (auto& f : found)
        out.push_back(f.second);
    return out;
}

struct OracleCheckSpec {
    std::string name, variant, figure, expect;
};

const std::vector<std::string> kOracleExpectations = {"nonzero", "zero", "within_2x"};

OracleCheckSpec read_oracle_check(const TomlTable& t) {
    OracleCheckSpec c;
    c.name = t.get_string("name");
    c.variant = t.get_string("variant");
    c.figure = t.get_string("figure");
    c.expect = t.get_string("expect");
    if (std::find(kOracleExpectations.begin(), kOracleExpectations.end(), c.expect) ==
        kOracleExpectations.end())
        t.fail("expect",
               "unknown oracle expectation '" + c.expect + "' (nonzero, zero, within_2x)");
    t.finish();
    return c;
}

// Boots the real kernel once per variant the checks name and judges each check.
std::vector<EffectResult> run_oracle_checks(const std::string& file, const std::string& stem,
                                            const std::vector<OracleCheckSpec>& checks,
                                            const ScenarioOverrides& ov, const ValidateOptions& o) {
    std::vector<EffectResult> rows;
    const OracleOptions defaults;
    const bool can_boot = have_program(defaults.qemu);
    std::map<std::string, std::vector<OracleVerdict>> by_variant;
    for (const auto& c : checks) {
        EffectResult r;
        r.experiment = stem;
        r.name = c.name;
        r.metric = c.figure;
        r.expect = "oracle:" + c.expect;
        r.has_published = true;
        if (!can_boot) {
            r.skipped = true;
            r.note = "skipped: " + defaults.qemu + " is not installed";
            rows.push_back(r);
            continue;
        }
        auto it = by_variant.find(c.variant);
        if (it == by_variant.end()) {
            OracleOptions oo;
            oo.scenario = file;
            oo.overrides = ov;
            oo.variant = c.variant;
            oo.boots = o.oracle_boots;
            oo.jobs = std::max(1, o.workers);
            oo.status = o.oracle_status;
            oo.write_log = o.oracle_write_log;
            std::vector<OracleVerdict> v;
            for (const auto& f : run_oracle(oo).figures)
                v.push_back(judge_oracle_figure(f));
            it = by_variant.emplace(c.variant, std::move(v)).first;
        }
        const auto f = std::find_if(it->second.begin(), it->second.end(),
                                    [&](const OracleVerdict& v) { return v.name == c.figure; });
        if (f == it->second.end())
            throw InputError(file, "oracle.figure",
                             "the oracle report has no figure '" + c.figure + "'");
        r.published_from = f->real_median;
        r.sim_to = f->model_median;
        r.pass = c.expect == "nonzero" ? f->real_median > 0
                 : c.expect == "zero"  ? f->real_median == 0
                                       : f->within;
        rows.push_back(r);
    }
    return rows;
}

// Decides pass or miss; in quick mode only the direction counts.
void judge(EffectResult& r, const EffectSpec& e, bool quick) {
    const double sim = pct_change(r.sim_from, r.sim_to);
    const double pub = e.has_published ? pct_change(e.pub_from, e.pub_to) : 0;
    std::string x = e.expect;
    if (quick) {
        if (x == "factor2") x = "sign";
        if (x == "rise_10x") x = "rise";
        if (x == "fall_10x") x = "fall";
    }
    if (x == "sign")
        r.pass = (sim > 0) == (pub > 0) && sim != 0;
    else if (x == "factor2")
        r.pass = (sim > 0) == (pub > 0) && std::fabs(sim) >= std::fabs(pub) / 2 &&
                 std::fabs(sim) <= std::fabs(pub) * 2;
    else if (x == "rise")
        r.pass = r.sim_to > r.sim_from;
    else if (x == "fall")
        r.pass = r.sim_to < r.sim_from;
    else if (x == "rise_10x")
        r.pass = r.sim_to > 10 * r.sim_from && r.sim_to > 0;
    else if (x == "fall_10x")
        r.pass = r.sim_to * 10 < r.sim_from;
    else if (x == "in_range")
        r.pass = r.sim_to >= e.lo && r.sim_to <= e.hi;
    else if (x == "change_pct" || x == "near")
        r.pass = quick && x == "change_pct" ? (sim > 0) == ((e.lo + e.hi) / 2 > 0)
                                            : sim >= e.lo && sim <= e.hi;
}

// The effect's range across the draws, and whether the published figure lies in it: the
// published change for a change, the published range (meeting the predicted one) for in_range.
void spread(EffectResult& r, const EffectSpec& e,
            const std::vector<std::vector<VariantRuns>>& draws, const std::string& file) {
    std::vector<double> values;
    for (const auto& d : draws) {
        const double to = mean_metric(variant(d, e.to, file), e.metric, file);
        values.push_back(
            e.expect == "in_range"
                ? to
                : pct_change(mean_metric(variant(d, e.from, file), e.metric, file), to));
    }
    const EffectSpread s = effect_spread(values);
    r.has_spread = true;
    r.spread_lo = s.min;
    r.spread_hi = s.max;
    if (e.expect == "in_range")
        r.published_inside = e.lo <= s.max && s.min <= e.hi;
    else if (e.has_published) {
        const double pub = pct_change(e.pub_from, e.pub_to);
        r.published_inside = pub >= s.min && pub <= s.max;
    }
}

}  // namespace

std::vector<EffectResult> run_validation(const std::string& dir, const ValidateOptions& o) {
    std::vector<std::string> files;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec))
        if (entry.path().extension() == ".toml") files.push_back(entry.path().string());
    if (ec) throw InputError(dir, "", "cannot read the experiment directory: " + ec.message());
    std::sort(files.begin(), files.end());
    for (const auto& name : o.only)
        if (std::none_of(files.begin(), files.end(), [&](const std::string& f) {
                return std::filesystem::path(f).stem() == name;
            }))
            throw InputError("--only " + name, "",
                             fmt::format("no experiment {}/{}.toml", dir, name));
    if (files.empty()) throw InputError(dir, "", "no experiment (*.toml) in this directory");
    std::vector<EffectResult> rows;
    std::map<std::string, std::vector<double>> groups;
    for (const auto& file : files) {
        const std::string stem = std::filesystem::path(file).stem().string();
        if (!o.only.empty() && std::find(o.only.begin(), o.only.end(), stem) == o.only.end())
            continue;
        const TomlTable doc = TomlTable::parse_file(file);
        std::vector<EffectSpec> effects;
        for (const auto& t : doc.tables("effect"))
            effects.push_back(read_effect(t));
        std::vector<OracleCheckSpec> oracle_checks;
        for (const auto& t : doc.tables("oracle"))
            oracle_checks.push_back(read_oracle_check(t));
        if (effects.empty() && (oracle_checks.empty() || !o.oracle)) continue;
        ScenarioOverrides ov;
        if (o.quick)
            if (auto v = doc.table("validate"); v && v->has("quick"))
                for (const auto& a : v->get_string_array("quick"))
                    ov.push_back(parse_override(a, v->origin("quick")));
        ov.insert(ov.end(), o.overrides.begin(), o.overrides.end());
        if (o.oracle && !oracle_checks.empty())
            for (auto& r : run_oracle_checks(file, stem, oracle_checks, ov, o))
                rows.push_back(std::move(r));
        if (effects.empty()) continue;
        const Scenario sc = load_scenario_file(file, ov);
        auto draws =
            make_draws(load_variants(file, ov, sc.variants), std::max(1, o.uncertainty_draws));
        run_draws(draws, o.workers);
        const auto& runs = draws.front();
        for (const auto& e : effects) {
            const VariantRuns& a = variant(runs, e.from, file);
            const VariantRuns& b = variant(runs, e.to, file);
            EffectResult r;
            r.experiment = stem;
            r.name = e.name;
            r.metric = e.metric;
            r.expect = e.expect;
            r.has_published = e.has_published || e.expect == "in_range";
            r.published_from = e.expect == "in_range" ? e.lo : e.pub_from;
            r.published_to = e.expect == "in_range" ? e.hi : e.pub_to;
            r.headline = e.headline;
            r.ci = e.ci;
            r.group = e.group;
            if (!e.metric.empty() && e.metric.back() == '*') {
                // A sweep: compare every point.
                const auto names = pattern_metrics(a, e.metric);
                int rises = 0;
                double best = -INFINITY;
                std::string best_name;
                for (const auto& n : names) {
                    const double c = pct_change(mean_metric(a, n, file), mean_metric(b, n, file));
                    rises += c > 0;
                    if (c > best) {
                        best = c;
                        best_name = n;
                    }
                }
                r.sim_from = static_cast<double>(names.size());
                r.sim_to = rises;
                if (e.expect == "majority_rise") {
                    r.pass = 2 * rises > static_cast<int>(names.size());
                    r.note = fmt::format("{} of {} points rise", rises, names.size());
                } else {
                    const double at = std::atof(best_name.c_str() + e.metric.size() - 1);
                    r.pass = at >= e.lo && at <= e.hi;
                    r.note = fmt::format("largest gain {:+.2f}% at {}", best, best_name);
                    if (o.quick) continue;  // needs the full sweep
                }
            } else {
                r.sim_from = mean_metric(a, e.metric, file);
                r.sim_to = mean_metric(b, e.metric, file);
                judge(r, e, o.quick);
                if (o.uncertainty_draws > 0) spread(r, e, draws, file);
            }
            if (!e.group.empty()) groups[e.group].push_back(pct_change(r.sim_from, r.sim_to));
            rows.push_back(r);
        }
    }
    for (const auto& [g, changes] : groups) {
        EffectResult r;
        r.experiment = "(all)";
        r.name = g + ": mean change over " + std::to_string(changes.size()) + " cases";
        r.expect = "mean_positive";
        double m = 0;
        for (double c : changes)
            m += c;
        m /= static_cast<double>(changes.size());
        r.sim_from = 0;
        r.sim_to = m;
        r.pass = m > 0;
        r.note = fmt::format("mean {:+.2f}%", m);
        rows.push_back(r);
    }
    return rows;
}

}  // namespace numasim
