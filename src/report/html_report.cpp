#include "report/html_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <set>
#include <string_view>

#include "config/input_error.h"
#include "report/svg_chart.h"
#include "report/svg_histogram.h"

namespace numasim {

namespace {

using json = nlohmann::json;

int column(const json& table, std::string_view name) {
    const json& cols = table.at("columns");
    for (size_t i = 0; i < cols.size(); ++i)
        if (cols[i] == name) return static_cast<int>(i);
    return -1;
}

double num(const json& v) {
    return v.is_number() ? v.get<double>() : 0.0;
}

// One vmstat column per sample, as (time, value).
ChartSeries vmstat_series(const json& samples, std::string_view counter, std::string name) {
    const json& t = samples.at("vmstat");
    const int c = column(t, counter);
    ChartSeries s{std::move(name), {}};
    if (c < 0) return s;
    for (const auto& row : t.at("rows"))
        s.points.emplace_back(num(row[0]), num(row[static_cast<size_t>(c)]));
    return s;
}

// The share of the interval's hinting faults that were local, in percent (intervals without
// faults are left out).
ChartSeries locality_series(const json& samples, std::string name) {
    const json& t = samples.at("vmstat");
    const int f = column(t, "numa_hint_faults"), l = column(t, "numa_hint_faults_local");
    ChartSeries s{std::move(name), {}};
    if (f < 0 || l < 0) return s;
    for (const auto& row : t.at("rows")) {
        const double faults = num(row[static_cast<size_t>(f)]);
        if (faults > 0)
            s.points.emplace_back(num(row[0]), 100.0 * num(row[static_cast<size_t>(l)]) / faults);
    }
    return s;
}

// One column of the tiers table for tier `tier` (memory_tier<N>), as (time, value).
ChartSeries tier_series(const json& samples, int tier, std::string_view col, std::string name) {
    const json& t = samples.at("tiers");
    const int c = column(t, col), id = column(t, "tier");
    ChartSeries s{std::move(name), {}};
    if (c < 0 || id < 0) return s;
    for (const auto& row : t.at("rows"))
        if (num(row[static_cast<size_t>(id)]) == tier)
            s.points.emplace_back(num(row[0]), num(row[static_cast<size_t>(c)]));
    return s;
}

// The tier ids of the tiers table, fastest first.
std::vector<int> tier_ids(const json& samples) {
    const json& t = samples.at("tiers");
    const int id = column(t, "tier");
    std::vector<int> ids;
    if (id < 0) return ids;
    for (const auto& row : t.at("rows")) {
        const int v = static_cast<int>(num(row[static_cast<size_t>(id)]));
        if (std::find(ids.begin(), ids.end(), v) != ids.end()) break;  // the next sample
        ids.push_back(v);
    }
    return ids;
}

// Resident pages per tier, and the pages promoted into and demoted from each per second
// (tiered machines: the samples hold a tiers table).
std::string tiers_section(const json& samples) {
    std::vector<ChartSeries> resident, rates;
    for (int id : tier_ids(samples)) {
        const std::string tier = fmt::format("memory_tier{}", id);
        resident.push_back(tier_series(samples, id, "resident_pages", tier));
        rates.push_back(tier_series(samples, id, "promoted_per_s", tier + " promoted"));
        rates.push_back(tier_series(samples, id, "demoted_per_s", tier + " demoted"));
    }
    return svg_line_chart("Resident pages per memory tier", "time (s)", "pages", resident) +
           svg_line_chart("Promotion and demotion", "time (s)", "pages/s", rates);
}

std::string task_heatmap(const json& samples) {
    const json& t = samples.at("tasks");
    const int pid = column(t, "pid"), comm = column(t, "comm"), node = column(t, "node");
    std::vector<double> times;
    std::map<int, std::string> names;
    std::map<std::pair<int, double>, int> at;
    int nodes = 0;
    for (const auto& row : t.at("rows")) {
        const double time = num(row[0]);
        if (times.empty() || times.back() != time) times.push_back(time);
        const int p = row[static_cast<size_t>(pid)].get<int>();
        const int n = row[static_cast<size_t>(node)].get<int>();
        names[p] = fmt::format("{}-{}", row[static_cast<size_t>(comm)].get<std::string>(), p);
        at[{p, time}] = n;
        nodes = std::max(nodes, n + 1);
    }
    std::vector<HeatmapRow> rows;
    for (const auto& [p, label] : names) {
        HeatmapRow r{label, {}};
        for (const double time : times) {
            auto it = at.find({p, time});
            r.cells.push_back(it == at.end() ? -1 : it->second);
        }
        rows.push_back(std::move(r));
    }
    std::vector<std::string> legend;
    for (int n = 0; n < nodes; ++n)
        legend.push_back(fmt::format("node {}", n));
    return svg_heatmap("Node each task runs on", times, rows, legend);
}

std::string process_memory(const json& samples) {
    const json& t = samples.at("numastat");
    const int pid = column(t, "pid"), comm = column(t, "comm");
    std::vector<int> node_cols;
    for (size_t i = 0; i < t.at("columns").size(); ++i) {
        const std::string c = t["columns"][i];
        if (c.starts_with("node") && c.ends_with("_mb")) node_cols.push_back(static_cast<int>(i));
    }
    std::map<int, std::pair<std::string, std::vector<ChartSeries>>> procs;
    for (const auto& row : t.at("rows")) {
        const int p = row[static_cast<size_t>(pid)].get<int>();
        auto& [name, series] = procs[p];
        name = fmt::format("{}-{}", row[static_cast<size_t>(comm)].get<std::string>(), p);
        if (series.empty())
            for (size_t n = 0; n < node_cols.size(); ++n)
                series.push_back({fmt::format("node {}", n), {}});
        for (size_t n = 0; n < node_cols.size(); ++n)
            series[n].points.emplace_back(num(row[0]), num(row[static_cast<size_t>(node_cols[n])]));
    }
    std::string s;
    for (const auto& [p, proc] : procs)
        s += svg_line_chart("Memory of " + proc.first + " per node", "time (s)", "MB", proc.second);
    return s;
}

std::string provenance_table(const json& p) {
    std::string s = "<table class=\"prov\">\n";
    for (const auto& [k, v] : p.items())
        s += fmt::format("<tr><th>{}</th><td>{}</td></tr>\n", html_escape(k),
                         html_escape(v.is_string() ? v.get<std::string>() : v.dump()));
    return s + "</table>\n";
}

std::string page(const std::string& title, const std::string& body) {
    return fmt::format(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        "<title>{0}</title>\n<style>\n"
        "body {{ font-family: sans-serif; margin: 1.5em; color: #222; }}\n"
        "h2 {{ margin-top: 1.5em; border-bottom: 1px solid #ccc; }}\n"
        "svg {{ display: block; margin: 0.5em 0; }}\n"
        "pre {{ background: #f6f6f6; padding: 0.6em; overflow-x: auto; }}\n"
        "table.prov th {{ text-align: left; padding-right: 1em; vertical-align: top; }}\n"
        "table.prov td {{ font-family: monospace; word-break: break-all; }}\n"
        "</style>\n</head>\n<body>\n<h1>{0}</h1>\n{1}</body>\n</html>\n",
        html_escape(title), body);
}

// The latency histograms (docs/latency.md) of each kind, the named sets side by side: a
// variant's histograms under compare, the run's under run. Buckets from the lowest to the
// highest any set used.
std::string latency_section(const std::vector<std::pair<std::string, const json*>>& sets,
                            const std::string& unit) {
    std::vector<std::string> kinds;
    for (const auto& [name, hists] : sets)
        for (const auto& [kind, h] : hists->items())
            if (std::find(kinds.begin(), kinds.end(), kind) == kinds.end()) kinds.push_back(kind);
    std::string body;
    for (const std::string& kind : kinds) {
        uint64_t top = 0;  // the highest interval-end used
        for (const auto& [name, hists] : sets)
            if (hists->contains(kind))
                for (const auto& b : (*hists)[kind].at("buckets"))
                    top = std::max(top, b.at("interval-end").get<uint64_t>());
        std::vector<std::string> labels;
        std::vector<uint64_t> ends;
        for (uint64_t lo = 0, hi = 1;; lo = hi + 1, hi = 2 * hi + 1) {
            labels.push_back(fmt::format("{}-{}", lo, hi));
            ends.push_back(hi);
            if (hi >= top || hi == ~uint64_t{0}) break;
        }
        std::vector<HistogramSeries> series;
        for (const auto& [name, hists] : sets) {
            HistogramSeries h{name, std::vector<uint64_t>(ends.size(), 0)};
            if (hists->contains(kind))
                for (const auto& b : (*hists)[kind].at("buckets")) {
                    const auto at =
                        std::find(ends.begin(), ends.end(), b.at("interval-end").get<uint64_t>());
                    if (at != ends.end())
                        h.counts[static_cast<size_t>(at - ends.begin())] = b.at("count");
                }
            series.push_back(std::move(h));
        }
        body += svg_histograms(kind, unit, labels, series);
    }
    return body;
}

std::string run_page(const json& r) {
    const json& s = r.at("samples");
    std::string body;
    body += "<h2>Locality</h2>\n";
    body += svg_line_chart("Local NUMA hinting faults", "time (s)", "% of the interval's faults",
                           {locality_series(s, "local %")});
    body += "<h2>NUMA balancing activity</h2>\n";
    body += svg_line_chart("Per sample interval", "time (s)", "events",
                           {vmstat_series(s, "numa_pte_updates", "numa_pte_updates"),
                            vmstat_series(s, "numa_hint_faults", "numa_hint_faults"),
                            vmstat_series(s, "numa_pages_migrated", "numa_pages_migrated")});
    body += "<h2>Tasks</h2>\n" + task_heatmap(s);
    body += "<h2>Memory per node</h2>\n" + process_memory(s);
    if (s.contains("tiers")) body += "<h2>Memory tiers</h2>\n" + tiers_section(s);
    if (r.contains("latency")) {
        const json& l = r["latency"];
        body += "<h2>Latency (every task)</h2>\n" +
                latency_section({{"all tasks", &l.at("all")}}, l.value("unit", "usecs"));
    }
    if (r.contains("provenance"))
        body += "<h2>Provenance</h2>\n" + provenance_table(r["provenance"]);
    return page(fmt::format("numasim run: {} on {} ({})", r.value("scenario", ""),
                            r.value("machine", ""), r.value("profile", "")),
                body);
}

std::string compare_page(const json& r) {
    const json& samples = r.at("samples");
    std::vector<ChartSeries> locality, migrated, faults;
    for (const auto& [variant, runs] : samples.items()) {
        if (runs.empty()) continue;
        locality.push_back(locality_series(runs[0], variant));
        migrated.push_back(vmstat_series(runs[0], "numa_pages_migrated", variant));
        faults.push_back(vmstat_series(runs[0], "numa_hint_faults", variant));
    }
    std::string body = "<p>The first iteration of each variant.</p>\n";
    body += "<h2>Locality</h2>\n";
    body += svg_line_chart("Local NUMA hinting faults", "time (s)", "% of the interval's faults",
                           locality);
    body += "<h2>NUMA balancing activity</h2>\n";
    body += svg_line_chart("numa_hint_faults per interval", "time (s)", "faults", faults);
    body += svg_line_chart("numa_pages_migrated per interval", "time (s)", "pages", migrated);
    body += "<h2>mmtests tables</h2>\n";
    for (const char* k : {"compare", "duration", "ops"})
        if (r.contains(k) && r[k].contains("text"))
            body += "<pre>" + html_escape(r[k]["text"].get<std::string>()) + "</pre>\n";
    if (r.contains("latency")) {
        const json& l = r["latency"];
        std::vector<std::pair<std::string, const json*>> sets;
        for (const auto& [variant, hists] : l.at("variants").items())
            sets.emplace_back(variant, &hists);
        body += "<h2>Latency (all runs of each variant)</h2>\n";
        if (l.at("compare").contains("text"))
            body += "<pre>" + html_escape(l["compare"]["text"].get<std::string>()) + "</pre>\n";
        body += latency_section(sets, l.value("unit", "usecs"));
    }
    for (const auto& [variant, runs] : samples.items()) {
        if (runs.empty()) continue;
        body += fmt::format("<h2>Tasks: {}</h2>\n", html_escape(variant)) + task_heatmap(runs[0]);
    }
    for (const auto& [variant, runs] : samples.items())
        if (!runs.empty() && runs[0].contains("tiers"))
            body += fmt::format("<h2>Memory tiers: {}</h2>\n", html_escape(variant)) +
                    tiers_section(runs[0]);
    if (r.contains("provenance"))
        for (const auto& [variant, p] : r["provenance"].items())
            body += fmt::format("<h2>Provenance: {}</h2>\n", html_escape(variant)) +
                    provenance_table(p);
    return page(fmt::format("numasim compare: {}", r.value("scenario", "")), body);
}

// What the pages read: the top-level keys and the sample tables.
constexpr std::array<std::string_view, 10> kDrawnKeys = {
    "compare", "duration",   "latency", "machine",  "ops",
    "profile", "provenance", "samples", "scenario", "variants"};
constexpr std::array<std::string_view, 4> kDrawnTables = {"numastat", "tasks", "tiers", "vmstat"};

bool drawn(std::string_view name, auto names) {
    return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace

nlohmann::json read_report_input(std::istream& in, const std::string& origin) {
    // The key of the value at each depth (the root is depth 0), and how many iterations of
    // the current compare variant have begun. A run's samples are {table: {...}} (a table at
    // depth 2); compare's are {variant: [{table: {...}}, ...]} (an iteration at depth 3, a
    // table at depth 4).
    std::vector<std::string> keys;
    size_t iterations = 0;
    auto keep = [&](int depth, json::parse_event_t event, json& parsed) {
        const auto d = static_cast<size_t>(depth);
        const bool in_samples = d >= 2 && !keys.empty() && keys[0] == "samples";
        switch (event) {
            case json::parse_event_t::key:
                keys.resize(d);
                keys[d - 1] = parsed.get<std::string>();
                return d != 1 || drawn(keys[0], kDrawnKeys);
            case json::parse_event_t::array_start:
                if (in_samples && d == 2) iterations = 0;
                return true;
            case json::parse_event_t::object_start:
                if (!in_samples) return true;
                if (d == 3) return iterations++ == 0;
                if (d == 2 || d == 4) return drawn(keys[d - 1], kDrawnTables);
                return true;
            default:
                return true;
        }
    };
    try {
        return json::parse(in, keep);
    } catch (const json::exception& e) {
        throw InputError(origin, "", std::string("not JSON: ") + e.what());
    }
}

std::string html_report(const json& result, const std::string& origin) {
    if (!result.is_object() || !result.contains("samples") || !result["samples"].is_object())
        throw InputError(origin, "samples",
                         "no time series to draw: run with --sample INTERVAL --out-dir DIR");
    try {
        return result.contains("variants") ? compare_page(result) : run_page(result);
    } catch (const json::exception& e) {
        throw InputError(origin, "samples", std::string("malformed: ") + e.what());
    }
}

}  // namespace numasim
