// The two header rows mmtests prints above every compare/monitor table: each column (kernel or
// config) name is split at its first '-' into a version row and a remainder row.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace numasim {

struct SplitName {
    std::string version;    // header row 1, e.g. "6.6.0-rc2"
    std::string remainder;  // header row 2, e.g. "sched-numabtrace-v1"
};

// "6.6.0-rc2-sched-numabtrace-v1" -> {"6.6.0-rc2", "sched-numabtrace-v1"};
// "4.19.0-vanilla" -> {"4.19.0", "vanilla"}; a name without '-' goes entirely to row 1.
SplitName split_column_name(std::string_view name);

// Both header lines (each ending in '\n'). `prefix_width` is the width of the row labels
// (stat name + space + operation name); each column's text is right-aligned so that it ends
// where that column's printed cells end (`column_width` = value field + compare field).
std::string render_header_rows(const std::vector<std::string>& columns, size_t prefix_width,
                               size_t column_width);

}  // namespace numasim
