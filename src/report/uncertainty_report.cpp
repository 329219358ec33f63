#include "report/uncertainty_report.h"

#include <fmt/format.h>

#include <algorithm>

namespace numasim {

namespace {

std::string pct(double v) {
    return fmt::format("{:+.2f}%", v);
}

}  // namespace

std::string uncertainty_text(const std::vector<UncertainEffect>& rows, int draws) {
    std::string s = fmt::format(
        "Uncertainty: change of the mean across {} draw(s) of the model's figures from their "
        "published ranges\n(draw 0: the published figures, the tables above; docs/validation.md, "
        "\"Uncertainty\")\n",
        draws);
    size_t width = 6;
    for (const auto& r : rows)
        width = std::max(width, r.metric.size() + r.variant.size() + 4);
    s += fmt::format("{:<{}} {:>10} {:>10} {:>10} {:>10}  {}\n", "effect", width, "nominal", "min",
                     "median", "max", "sign holds");
    for (const auto& r : rows) {
        const EffectSpread& e = r.change_pct;
        s += fmt::format("{:<{}} {:>10} {:>10} {:>10} {:>10}  {}\n",
                         r.metric + " (" + r.variant + ")", width, pct(e.nominal), pct(e.min),
                         pct(e.median), pct(e.max), e.sign_holds ? "yes" : "no");
    }
    return s;
}

nlohmann::json uncertainty_json(const std::vector<UncertainEffect>& rows, int draws) {
    nlohmann::json a = nlohmann::json::array();
    for (const auto& r : rows) {
        const EffectSpread& e = r.change_pct;
        a.push_back(
            {{"metric", r.metric},
             {"from", r.baseline},
             {"to", r.variant},
             {"change_pct",
              {{"nominal", e.nominal}, {"min", e.min}, {"median", e.median}, {"max", e.max}}},
             {"sign_holds", e.sign_holds}});
    }
    return {{"draws", draws}, {"effects", a}};
}

}  // namespace numasim
