#include "numab/knobs.h"

#include <fmt/format.h>

namespace numasim {

const std::vector<KnobInfo>& knob_table() {
    static const std::vector<KnobInfo> table = {
#define NUMASIM_KNOB_ROW(type, name, def, domain, kernel, description)         \
    {#name,                                                                    \
     domain,                                                                   \
     kernel,                                                                   \
     description,                                                              \
     [](const NumaBalancingKnobs& k) { return static_cast<int64_t>(k.name); }, \
     [](NumaBalancingKnobs& k, int64_t v) { k.name = static_cast<type>(v); }},
        NUMASIM_KNOBS(NUMASIM_KNOB_ROW)
#undef NUMASIM_KNOB_ROW
    };
    return table;
}

const KnobInfo* find_knob(std::string_view name) {
    for (const KnobInfo& k : knob_table())
        if (k.name == name) return &k;
    return nullptr;
}

std::string knob_value_text(const KnobInfo& k, int64_t value) {
    switch (k.domain.kind) {
        case KnobDomain::Bool:
            return value ? "true" : "false";
        case KnobDomain::Enum:
            return value >= 0 && value < static_cast<int64_t>(k.domain.names.size())
                       ? std::string(k.domain.names[value])
                       : "?";
        default:
            return std::to_string(value);
    }
}

std::string knob_valid_values(const KnobInfo& k) {
    switch (k.domain.kind) {
        case KnobDomain::Bool:
            return "true or false";
        case KnobDomain::Enum:
            return fmt::format("{}", fmt::join(k.domain.names, ", "));
        case KnobDomain::OneOf:
            return fmt::format("{}", fmt::join(k.domain.one_of, " or "));
        default:
            return fmt::format("{}-{}", k.domain.lo, k.domain.hi);
    }
}

bool knob_value_valid(const KnobInfo& k, int64_t value) {
    if (k.domain.kind == KnobDomain::OneOf) {
        for (int64_t v : k.domain.one_of)
            if (v == value) return true;
        return false;
    }
    return value >= k.domain.lo && value <= k.domain.hi;
}

}  // namespace numasim
