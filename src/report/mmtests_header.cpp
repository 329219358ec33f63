#include "report/mmtests_header.h"

#include <cctype>

namespace numasim {

namespace {

// "-rcN" right after the first '-' stays in the version row (mmtests Compare.pm's "-rc" bodge).
// Unlike mmtests, which skips a fixed 4 characters, all digits are consumed so "-rc10" works.
size_t version_end(std::string_view name, size_t dash) {
    constexpr std::string_view kRc = "-rc";
    if (name.substr(dash, kRc.size()) != kRc) return dash;
    size_t end = dash + kRc.size();
    if (end >= name.size() || !std::isdigit(static_cast<unsigned char>(name[end]))) return dash;
    while (end < name.size() && std::isdigit(static_cast<unsigned char>(name[end])))
        ++end;
    return end;
}

// One header line: every cell is right-aligned to its column end. A cell wider than its column
// may spill left over blank space, but always keeps one blank after the previous cell so that
// long names (e.g. "sched-numabselective-v1") never run together. mmtests' raw printf("%Ns")
// would glue them; the LKML postings show them separated, which is what readers expect.
std::string render_line(const std::vector<std::string>& cells, size_t prefix_width,
                        size_t column_width) {
    std::string line;
    size_t text_end = 0;  // column just after the last printed character (0: nothing yet)
    for (size_t i = 0; i < cells.size(); ++i) {
        const std::string& text = cells[i];
        if (text.empty()) continue;
        const size_t col_end = prefix_width + (i + 1) * column_width;
        size_t start = col_end > text.size() ? col_end - text.size() : 0;
        const size_t min_start = text_end == 0 ? 0 : text_end + 1;
        if (start < min_start) start = min_start;
        line.append(start - line.size(), ' ');
        line += text;
        text_end = line.size();
    }
    return line + "\n";
}

}  // namespace

SplitName split_column_name(std::string_view name) {
    const size_t dash = name.find('-');
    if (dash == std::string_view::npos) return {std::string(name), ""};
    const size_t end = version_end(name, dash);
    SplitName out;
    out.version = std::string(name.substr(0, end));
    out.remainder = end + 1 <= name.size() ? std::string(name.substr(end + 1)) : "";
    return out;
}

std::string render_header_rows(const std::vector<std::string>& columns, size_t prefix_width,
                               size_t column_width) {
    std::vector<std::string> row1;
    std::vector<std::string> row2;
    for (const auto& c : columns) {
        SplitName s = split_column_name(c);
        row1.push_back(std::move(s.version));
        row2.push_back(std::move(s.remainder));
    }
    return render_line(row1, prefix_width, column_width) +
           render_line(row2, prefix_width, column_width);
}

}  // namespace numasim
