#include "report/json_out.h"

#include <cmath>

namespace numasim {

nlohmann::json json_number(double value) {
    if (!std::isfinite(value)) return nullptr;
    return value;
}

nlohmann::json to_json(const Summary& s) {
    return {{"n", s.n},
            {"better", s.better == Better::Lower ? "lower" : "higher"},
            {"mean_kind", mean_kind_for(s.better) == MeanKind::Arithmetic ? "amean" : "hmean"},
            {"min", json_number(s.min)},
            {"mean", json_number(s.mean)},
            {"stddev", json_number(s.stddev)},
            {"coeffvar", json_number(s.coeffvar)},
            {"max", json_number(s.max)}};
}

nlohmann::json to_json(const CompareTable& table) {
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& r : table.rows) {
        nlohmann::json values = nlohmann::json::array();
        nlohmann::json pct = nlohmann::json::array();
        nlohmann::json sig = nlohmann::json::array();
        for (const auto& c : r.cells) {
            values.push_back(json_number(c.value));
            pct.push_back(json_number(c.pct));
            sig.push_back(c.significant);
        }
        rows.push_back({{"stat", r.stat},
                        {"operation", r.operation},
                        {"values", values},
                        {"pct", pct},
                        {"significant", sig}});
    }
    nlohmann::json out = {{"columns", table.columns},
                          {"baseline", table.columns.empty() ? "" : table.columns.front()},
                          {"rows", rows},
                          {"text", render_compare_table(table)}};
    if (!table.significance.empty()) {
        nlohmann::json sig = nlohmann::json::array();
        for (const auto& r : table.significance) {
            nlohmann::json flags = nlohmann::json::array();
            nlohmann::json figures = nlohmann::json::array();
            for (const auto& c : r.cells) {
                flags.push_back(c.significant);
                figures.push_back(json_number(c.figure));
            }
            sig.push_back(
                {{"operation", r.operation}, {"significant", flags}, {"figure", figures}});
        }
        out["significance"] = sig;
    }
    return out;
}

nlohmann::json to_json(const MonitorTable& table) {
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& r : table.rows) {
        nlohmann::json values = nlohmann::json::array();
        for (double v : r.values)
            values.push_back(json_number(v));
        rows.push_back({{"stat", r.stat}, {"operation", r.operation}, {"values", values}});
    }
    return {{"columns", table.columns}, {"rows", rows}, {"text", render_monitor_table(table)}};
}

nlohmann::json to_json(const SpecjbbBlock& block) {
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& r : block.rows) {
        nlohmann::json values = nlohmann::json::array();
        nlohmann::json pct = nlohmann::json::array();
        for (size_t k = 0; k < r.values.size(); ++k) {
            values.push_back(json_number(r.values[k]));
            if (k > 0) pct.push_back(json_number(specjbb_change_pct(r.values[0], r.values[k])));
        }
        rows.push_back({{"jvms", r.jvms}, {"values", values}, {"pct", pct}});
    }
    return {{"title", block.title},
            {"settings", block.settings},
            {"rows", rows},
            {"text", render_specjbb_block(block)}};
}

nlohmann::json event_table_json(std::string_view heading, const std::vector<std::string>& columns,
                                const std::vector<EventRow>& rows) {
    nlohmann::json out_rows = nlohmann::json::array();
    for (const auto& r : rows)
        out_rows.push_back({{"event", r.event}, {"values", r.values}});
    return {{"heading", std::string(heading)}, {"columns", columns}, {"rows", out_rows}};
}

nlohmann::json to_json(const PerfBenchNumaRaw& raw) {
    const PerfBenchNumaFigures f = perf_bench_numa_figures(raw);
    nlohmann::json results = {{"runtime-max/thread", json_number(f.runtime_max)},
                              {"runtime-min/thread", json_number(f.runtime_min)},
                              {"runtime-avg/thread", json_number(f.runtime_avg)},
                              {"spread-runtime/thread", json_number(f.spread_pct)},
                              {"data/thread", json_number(f.data_per_thread_gb)},
                              {"data-total", json_number(f.data_total_gb)},
                              {"runtime/byte/thread", json_number(f.runtime_per_byte_ns)},
                              {"thread-speed", json_number(f.thread_speed_gbs)},
                              {"total-speed", json_number(f.total_speed_gbs)}};
    if (raw.measure_convergence) results["NUMA-convergence-latency"] = json_number(f.runtime_max);
    return {{"name", raw.name.empty() ? "main," : raw.name},
            {"nr_tasks", raw.nr_tasks},
            {"bytes", json_number(raw.bytes)},
            {"results", results},
            {"text", render_perf_bench_numa(raw)}};
}

}  // namespace numasim
