#include "report/validation_report.h"

#include <fmt/format.h>

#include <cmath>

namespace numasim {

std::string validation_text(const std::vector<EffectResult>& rows) {
    std::string s = fmt::format("{:<34} {:<44} {:<28} {:<28} {}\n", "experiment", "effect",
                                "published", "simulated", "result");
    auto fig = [](double v) {
        return std::fabs(v) >= 1000 || v == std::floor(v) ? fmt::format("{:.0f}", v)
                                                          : fmt::format("{:.2f}", v);
    };
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
        s += fmt::format("{:<34} {:<44} {:<28} {:<28} {}{}\n", r.experiment, r.name, pub, sim,
                         r.skipped ? "skipped"
                         : r.pass  ? "pass"
                                   : "MISS",
                         r.headline ? "" : " (info)");
    }
    return s;
}

}  // namespace numasim
