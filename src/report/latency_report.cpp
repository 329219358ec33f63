#include "report/latency_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string_view>
#include <utility>

#include "report/json_splice.h"
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

namespace {

// The layout of nlohmann's dump(2) for the members of one object or array: "{" or "[", each
// member on a line of its own indented two spaces deeper, ",\n" between them, and the closing
// bracket on a line at the object's indentation; "{}" or "[]" when it has none.
class DumpMembers {
  public:
    DumpMembers(std::string& b, int indent, char open) : b_(b), indent_(indent) {
        b_.push_back(open);
    }
    // Starts the next member of an array.
    void item() {
        b_ += first_ ? "\n" : ",\n";
        first_ = false;
        pad(indent_ + kJsonIndent);
    }
    // Starts the next member of an object; `key` needs no escaping.
    void key(std::string_view key) {
        item();
        b_ += '"';
        b_ += key;
        b_ += "\": ";
    }
    void close(char c) {
        if (!first_) {
            b_.push_back('\n');
            pad(indent_);
        }
        b_.push_back(c);
    }
    // The indentation of the members' lines.
    int inner() const { return indent_ + kJsonIndent; }

  private:
    void pad(int n) { b_.append(static_cast<size_t>(n), ' '); }

    std::string& b_;
    int indent_;
    bool first_ = true;
};

void put_uint(std::string& b, uint64_t v) {
    const fmt::format_int text(v);
    b.append(text.data(), text.size());
}

// A histogram's object: with bcc_buckets, bcc's bucket objects, else, for each
// task or process, only the counts, entry i being bcc's slot i + 1 ("0 -> 1", "2 -> 3", ...),
// which keeps the JSON of a run with hundreds of processes a fraction of its size. nlohmann keeps
// an object's members in the order of their keys: "buckets" or "count", "counts", then the
// percentiles' names, then "total_ns".
// `names` are the percentiles' names in that order with their index in o.percentiles (a name
// given twice is one member, as in the object).
void hist_json_text(std::string& b, int indent, const LatencyHists& h, size_t k,
                    const LatencyReportOptions& o,
                    const std::vector<std::pair<std::string, size_t>>& names, bool bcc_buckets) {
    const Log2Hist& lh = hist(h, k, o);
    const int top = lh.max_slot();
    DumpMembers m(b, indent, '{');
    const auto buckets = [&] {
        DumpMembers a(b, m.inner(), '[');
        for (int s = 1; s <= top; ++s) {
            a.item();
            if (!bcc_buckets) {
                put_uint(b, lh.slot(s));
                continue;
            }
            DumpMembers bucket(b, a.inner(), '{');
            bucket.key("count");
            put_uint(b, lh.slot(s));
            bucket.key("interval-end");
            put_uint(b, Log2Hist::slot_high(s));
            bucket.key("interval-start");
            put_uint(b, Log2Hist::slot_low(s));
            bucket.close('}');
        }
        a.close(']');
    };
    if (bcc_buckets) {
        m.key("buckets");
        buckets();
    }
    m.key("count");
    put_uint(b, lh.count());
    if (!bcc_buckets) {
        m.key("counts");
        buckets();
    }
    for (const auto& [name, i] : names) {
        m.key(name);
        put_uint(b, lh.percentile(o.percentiles[i]));
    }
    m.key("total_ns");
    put_uint(b, h.sum_ns[k]);
    m.close('}');
}

// hists_json's object: the kinds that have events, in the order of their names.
void hists_json_text(std::string& b, int indent, const LatencyHists& h,
                     const LatencyReportOptions& o,
                     const std::vector<std::pair<std::string, size_t>>& names, bool bcc_buckets) {
    static const std::vector<size_t> by_name = [] {
        std::vector<size_t> kinds;
        for (size_t k = 0; k < kLatencyKinds; ++k)
            kinds.push_back(k);
        std::sort(kinds.begin(), kinds.end(), [](size_t a, size_t c) {
            return latency_kind_name(static_cast<LatencyKind>(a)) <
                   latency_kind_name(static_cast<LatencyKind>(c));
        });
        return kinds;
    }();
    DumpMembers m(b, indent, '{');
    for (const size_t k : by_name) {
        if (!hist(h, k, o).count()) continue;
        m.key(latency_kind_name(static_cast<LatencyKind>(k)));
        hist_json_text(b, m.inner(), h, k, o, names, bcc_buckets);
    }
    m.close('}');
}

// The percentiles' names in key order, each once, with their index in o.percentiles: made once
// per report rather than once per histogram.
std::vector<std::pair<std::string, size_t>> percentile_members(const LatencyReportOptions& o) {
    std::vector<std::pair<std::string, size_t>> names;
    for (size_t i = 0; i < o.percentiles.size(); ++i)
        names.emplace_back(pname(o.percentiles[i]), i);
    std::stable_sort(names.begin(), names.end(),
                     [](const auto& a, const auto& c) { return a.first < c.first; });
    names.erase(std::unique(names.begin(), names.end(),
                            [](const auto& a, const auto& c) { return a.first == c.first; }),
                names.end());
    return names;
}

}  // namespace

std::string latency_json_text(const RunResult& r, const LatencyReportOptions& o, int indent) {
    const std::vector<std::pair<std::string, size_t>> names = percentile_members(o);
    std::string b;
    // Members in key order: "all", "entries", "per", "unit"; an entry's "comm", "histograms",
    // then "pid" or "tid".
    DumpMembers top(b, indent, '{');
    top.key("all");
    hists_json_text(b, top.inner(), merged(r), o, names, true);
    top.key("entries");
    DumpMembers entries(b, top.inner(), '[');
    for (const Section& sec : sections(r, o)) {
        entries.item();
        DumpMembers e(b, entries.inner(), '{');
        e.key("comm");
        b += nlohmann::json(sec.comm).dump();  // escaped as the object's string would be
        e.key("histograms");
        hists_json_text(b, e.inner(), sec.hists, o, names, false);
        e.key(o.per_process ? "pid" : "tid");
        b += fmt::format_int(sec.id).str();
        e.close('}');
    }
    entries.close(']');
    top.key("per");
    b += o.per_process ? "\"process\"" : "\"task\"";
    top.key("unit");
    b += '"';
    b += unit_name(o);
    b += '"';
    top.close('}');
    return b;
}

nlohmann::json latency_variant_json(const VariantRuns& v, const LatencyReportOptions& o) {
    LatencyHists all;
    for (const RunResult& r : v.runs)
        all.merge(merged(r));
    // The one writer of a histograms object, read back: a compare has one per variant.
    std::string b;
    hists_json_text(b, 0, all, o, percentile_members(o), true);
    return nlohmann::json::parse(b);
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
