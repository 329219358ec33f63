// Small printf-compatible number formatting helpers shared by the report tables.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace numasim {

// printf("%<width>.<precision>f", v), except that NaN/Inf print as Perl does ("NaN", "Inf",
// "-Inf"), because the mmtests tables we imitate are produced by Perl.
std::string format_fixed(double value, int width, int precision);

// printf("%g", v): six significant digits, trailing zeros stripped (the specjbb posting).
std::string format_general(double value);

// Integer with ',' thousands separators, as `perf stat` prints counts: 13,818,546.
std::string with_thousands(std::int64_t value);

// Left-align `text` in `width` columns (no truncation).
std::string pad_right(std::string_view text, size_t width);

}  // namespace numasim
