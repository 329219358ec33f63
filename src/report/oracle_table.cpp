#include "report/oracle_table.h"

#include <fmt/format.h>

#include <cmath>

#include "report/aligned_text.h"
#include "report/json_out.h"
#include "report/stats.h"

namespace numasim {

CompareTable oracle_compare_table(const std::vector<OracleFigure>& figures) {
    std::vector<OperationSamples> ops;
    for (const auto& f : figures)
        ops.push_back({f.name, Better::Lower, {f.real, f.model}});
    CompareOptions o;
    o.stat_set = StatSet::MinMedianMax;
    o.show_compare = false;
    o.precision = 0;
    o.field_length = 14;
    return build_compare_table({"oracle", "numasim"}, ops, o);
}

std::string render_oracle_verdicts(const std::vector<OracleVerdict>& verdicts) {
    TextTable t;
    t.header = {"figure", "oracle", "numasim", "ratio", "within 2x"};
    for (const auto& v : verdicts) {
        const std::string ratio = std::isinf(v.ratio) ? "inf" : fmt::format("{:.2f}", v.ratio);
        t.rows.push_back({v.name, fmt::format("{:.0f}", v.real_median),
                          fmt::format("{:.0f}", v.model_median), ratio,
                          v.real_median == 0 && v.model_median == 0 ? "yes (both 0)"
                          : v.within                                ? "yes"
                                                                    : "NO"});
    }
    return render_aligned(t);
}

nlohmann::json to_json(const OracleVerdict& v) {
    return {{"figure", v.name},
            {"oracle_median", v.real_median},
            {"numasim_median", v.model_median},
            {"ratio", json_number(v.ratio)},
            {"within_2x", v.within}};
}

}  // namespace numasim
