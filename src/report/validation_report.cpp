#include "report/validation_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace numasim {

namespace {

// A figure as the report prints it: whole numbers and large ones without decimals.
std::string fig(double v) {
    return std::fabs(v) >= 1000 || v == std::floor(v) ? fmt::format("{:.0f}", v)
                                                      : fmt::format("{:.2f}", v);
}

// The uncertainty columns of a row (validate --uncertainty): the predicted range and whether
// the published figure lies inside it.
std::string spread_columns(const EffectResult& r) {
    if (!r.has_spread) return fmt::format("  {:<26} {}", "-", "-");
    const bool absolute = r.expect == "in_range";
    const std::string range = absolute
                                  ? fig(r.spread_lo) + " .. " + fig(r.spread_hi)
                                  : fmt::format("{:+.1f}% .. {:+.1f}%", r.spread_lo, r.spread_hi);
    return fmt::format("  {:<26} {}", range,
                       !r.has_published     ? "-"
                       : r.published_inside ? "yes"
                                            : "no");
}

}  // namespace

std::string validation_text(const std::vector<EffectResult>& rows) {
    const bool spreads =
        std::any_of(rows.begin(), rows.end(), [](const EffectResult& r) { return r.has_spread; });
    std::string s = fmt::format("{:<34} {:<44} {:<28} {:<28} {}", "experiment", "effect",
                                "published", "simulated", "result");
    s += spreads ? fmt::format("{:<10}  {:<26} {}\n", "", "predicted range", "published inside")
                 : "\n";
    for (const auto& r : rows) {
        std::string pub = "-", sim;
        if (r.has_published)
            pub = fmt::format("{} -> {} ({:+.1f}%)", fig(r.published_from), fig(r.published_to),
                              pct_change(r.published_from, r.published_to));
        if (r.expect.rfind("oracle:", 0) == 0) {
            pub = "real kernel " + fig(r.published_from);
            sim = r.skipped ? r.note : fig(r.sim_to);
        } else if (r.expect == "in_range") {
            pub = fmt::format("{} .. {}", fig(r.published_from), fig(r.published_to));
            sim = fig(r.sim_to);
        } else if (!r.note.empty())
            sim = r.note;
        else
            sim = fmt::format("{} -> {} ({:+.1f}%)", fig(r.sim_from), fig(r.sim_to),
                              pct_change(r.sim_from, r.sim_to));
        const std::string result = fmt::format("{}{}",
                                               r.skipped ? "skipped"
                                               : r.pass  ? "pass"
                                                         : "MISS",
                                               r.headline ? "" : " (info)");
        s += fmt::format("{:<34} {:<44} {:<28} {:<28} ", r.experiment, r.name, pub, sim);
        s += spreads ? fmt::format("{:<16}{}\n", result, spread_columns(r)) : result + "\n";
    }
    return s;
}

}  // namespace numasim
