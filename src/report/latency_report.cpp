#include "report/latency_report.h"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <utility>

#include "report/log2_hist_text.h"
#include "report/stats.h"

namespace numasim {

namespace {

const char* unit_name(const LatencyReportOptions& o) {
    return o.msecs ? "msecs" : "usecs";
}

const Log2Hist& hist(const LatencyHists& h, size_t k, const LatencyReportOptions& o) {
    return o.msecs ? h.msecs[k] : h.usecs[k];
}

struct Section {
    int id = 0;
    std::string comm;
    LatencyHists hists;
};

// Per task as recorded, or per process: the threads of one thread group merged, named after
// its first task that has a histogram, in the order of those first tasks.
std::vector<Section> sections(const RunResult& r, const LatencyReportOptions& o) {
    std::vector<Section> out;
    std::map<int, size_t> at;
    for (const TaskLatency& t : r.latency) {
        const int id = o.per_process ? t.tgid : t.pid;
        auto [it, fresh] = at.emplace(id, out.size());
        if (fresh)
            out.push_back({id, t.comm, t.hists});
        else
            out[it->second].hists.merge(t.hists);
    }
    return out;
}

// The percentile's name in JSON and text: p50, p99.9.
std::string pname(double p) {
    return fmt::format("p{}", p);
}

std::string hist_text(const LatencyHists& h, size_t k, const LatencyReportOptions& o) {
    const Log2Hist& lh = hist(h, k, o);
    const double per =
        o.msecs ? static_cast<double>(NSEC_PER_MSEC) : static_cast<double>(NSEC_PER_USEC);
    const auto total = static_cast<uint64_t>(static_cast<double>(h.sum_ns[k]) / per);
    std::string s = fmt::format("\nLatency = {}\n", latency_kind_name(static_cast<LatencyKind>(k)));
    s += log2_hist_text(lh, unit_name(o));
    // funclatency's summary line, in whole units.
    s += fmt::format("\navg = {} {}, total: {} {}, count: {}\n", total / lh.count(), unit_name(o),
                     total, unit_name(o), lh.count());
    std::vector<std::string> ps;
    for (double p : o.percentiles)
        ps.push_back(fmt::format("{} <= {}", pname(p), lh.percentile(p)));
    if (!ps.empty()) s += fmt::format("{} {}\n", fmt::join(ps, ", "), unit_name(o));
    return s;
}

// bcc's bucket objects (interval-start, interval-end, count) for the merged histograms; for each
// task or process only the counts, bucket i being bcc's slot i + 1 ("0 -> 1", "2 -> 3", ...),
// which keeps the JSON of a run with hundreds of processes a fraction of its size.
// The names of o's percentiles (pname), made once per report rather than once per histogram.
std::vector<std::string> pnames(const LatencyReportOptions& o) {
    std::vector<std::string> names;
    for (double p : o.percentiles)
        names.push_back(pname(p));
    return names;
}

nlohmann::json hist_json(const LatencyHists& h, size_t k, const LatencyReportOptions& o,
                         const std::vector<std::string>& names, bool bcc_buckets) {
    const Log2Hist& lh = hist(h, k, o);
    // Built member by member and moved, not from initializer lists, which copy every value they
    // hold: with hundreds of tasks the copies cost more than the simulation's own accounting.
    nlohmann::json buckets = nlohmann::json::array();
    const int top = lh.max_slot();
    buckets.get_ref<nlohmann::json::array_t&>().reserve(static_cast<size_t>(top));
    for (int s = 1; s <= top; ++s) {
        if (!bcc_buckets) {
            buckets.push_back(lh.slot(s));
            continue;
        }
        nlohmann::json b = nlohmann::json::object();
        b["interval-start"] = Log2Hist::slot_low(s);
        b["interval-end"] = Log2Hist::slot_high(s);
        b["count"] = lh.slot(s);
        buckets.push_back(std::move(b));
    }
    nlohmann::json j = nlohmann::json::object();
    j["count"] = lh.count();
    j["total_ns"] = h.sum_ns[k];
    j[bcc_buckets ? "buckets" : "counts"] = std::move(buckets);
    for (size_t i = 0; i < names.size(); ++i)
        j[names[i]] = lh.percentile(o.percentiles[i]);
    return j;
}

nlohmann::json hists_json(const LatencyHists& h, const LatencyReportOptions& o,
                          const std::vector<std::string>& names, bool bcc_buckets) {
    nlohmann::json j = nlohmann::json::object();
    for (size_t k = 0; k < kLatencyKinds; ++k)
        if (hist(h, k, o).count())
            j[std::string(latency_kind_name(static_cast<LatencyKind>(k)))] =
                hist_json(h, k, o, names, bcc_buckets);
    return j;
}

LatencyHists merged(const RunResult& r) {
    LatencyHists all;
    for (const TaskLatency& t : r.latency)
        all.merge(t.hists);
    return all;
}

}  // namespace

std::string latency_text(const RunResult& r, const LatencyReportOptions& o) {
    if (!r.latency_recorded) return "";
    std::string s = fmt::format("\nNUMA balancing latency per {} ({}, docs/latency.md)\n",
                                o.per_process ? "process" : "task", unit_name(o));
    if (r.latency.empty()) s += "no stretch recorded\n";
    for (const Section& sec : sections(r, o)) {
        // bcc's section headers: runqlat -P "pid = N", -L "tid = N"; the comm beside it.
        s += fmt::format("\n{} = {} {}\n", o.per_process ? "pid" : "tid", sec.id, sec.comm);
        for (size_t k = 0; k < kLatencyKinds; ++k)
            if (hist(sec.hists, k, o).count()) s += hist_text(sec.hists, k, o);
    }
    return s;
}

nlohmann::json latency_json(const RunResult& r, const LatencyReportOptions& o) {
    const std::vector<std::string> names = pnames(o);
    nlohmann::json entries = nlohmann::json::array();
    for (const Section& sec : sections(r, o)) {
        nlohmann::json e = nlohmann::json::object();
        e[o.per_process ? "pid" : "tid"] = sec.id;
        e["comm"] = sec.comm;
        e["histograms"] = hists_json(sec.hists, o, names, false);
        entries.push_back(std::move(e));
    }
    nlohmann::json j = nlohmann::json::object();
    j["per"] = o.per_process ? "process" : "task";
    j["unit"] = unit_name(o);
    j["all"] = hists_json(merged(r), o, names, true);
    j["entries"] = std::move(entries);
    return j;
}

nlohmann::json latency_variant_json(const VariantRuns& v, const LatencyReportOptions& o) {
    LatencyHists all;
    for (const RunResult& r : v.runs)
        all.merge(merged(r));
    return hists_json(all, o, pnames(o), true);
}

std::string latency_row_name(double percentile, std::string_view group) {
    // schbench prints "99.9th", which mmtests keeps: one decimal unless more are given.
    const bool tenths = std::abs(percentile * 10 - std::round(percentile * 10)) < 1e-9;
    const std::string p =
        tenths ? fmt::format("{:.1f}", percentile) : fmt::format("{}", percentile);
    return fmt::format("{}th-qrtle-{}", p, group);
}

CompareTable latency_compare_table(const std::vector<VariantRuns>& v,
                                   const LatencyReportOptions& o) {
    CompareTable t;
    std::vector<LatencyHists> per;
    for (const VariantRuns& x : v) {
        t.columns.push_back(x.name);
        LatencyHists all;
        for (const RunResult& r : x.runs)
            all.merge(merged(r));
        per.push_back(std::move(all));
    }
    t.stat_width = 3;
    for (size_t k = 0; k < kLatencyKinds; ++k) {
        bool any = false;
        for (const LatencyHists& h : per)
            any = any || hist(h, k, o).count();
        if (!any) continue;
        for (double p : o.percentiles) {
            CompareRow row;
            row.stat = "Lat";
            row.operation = latency_row_name(p, latency_kind_name(static_cast<LatencyKind>(k)));
            row.kind = StatKind::Mean;
            const auto base = static_cast<double>(hist(per.front(), k, o).percentile(p));
            for (size_t c = 0; c < per.size(); ++c) {
                const auto value = static_cast<double>(hist(per[c], k, o).percentile(p));
                row.cells.push_back(
                    {value, c == 0 ? 0.0 : compare_pct(row.kind, Better::Lower, value, base),
                     false});
            }
            t.operation_width = std::max(t.operation_width, row.operation.size());
            t.rows.push_back(std::move(row));
        }
    }
    return t;
}

}  // namespace numasim
