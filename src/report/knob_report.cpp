#include "report/knob_report.h"

#include "report/aligned_text.h"

namespace numasim {

std::string knobs_text(const NumaBalancingKnobs& k, const KnobOrigins& origins) {
    TextTable t{{"KNOB", "VALUE", "SET BY", "VALID"}, {}};
    const auto& table = knob_table();
    for (size_t i = 0; i < table.size(); ++i)
        t.rows.push_back({std::string(table[i].name), knob_value_text(table[i], table[i].get(k)),
                          origins.at(i), knob_valid_values(table[i])});
    return render_aligned(t);
}

}  // namespace numasim
