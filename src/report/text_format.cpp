#include "report/text_format.h"

#include <fmt/format.h>

#include <cmath>

namespace numasim {

std::string format_fixed(double value, int width, int precision) {
    if (std::isnan(value)) return fmt::format("{:>{}}", "NaN", width);
    if (std::isinf(value)) return fmt::format("{:>{}}", value > 0 ? "Inf" : "-Inf", width);
    return fmt::format("{:>{}.{}f}", value, width, precision);
}

std::string format_general(double value) {
    // fmt's 'g' presentation matches printf's %g (precision 6 by default).
    return fmt::format("{:g}", value);
}

std::string with_thousands(std::int64_t value) {
    const bool negative = value < 0;
    // Work on the magnitude as unsigned so INT64_MIN does not overflow.
    std::uint64_t magnitude =
        negative ? 0 - static_cast<std::uint64_t>(value) : static_cast<std::uint64_t>(value);
    std::string digits = std::to_string(magnitude);
    std::string out;
    out.reserve(digits.size() + digits.size() / 3 + 1);
    for (size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) out.push_back(',');
        out.push_back(digits[i]);
    }
    return negative ? "-" + out : out;
}

std::string pad_right(std::string_view text, size_t width) {
    std::string out(text);
    if (out.size() < width) out.append(width - out.size(), ' ');
    return out;
}

}  // namespace numasim
