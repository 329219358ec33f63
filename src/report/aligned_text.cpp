#include "report/aligned_text.h"

#include <algorithm>

#include "report/text_format.h"

namespace numasim {

std::string render_aligned(const TextTable& table, size_t gap) {
    std::vector<size_t> widths(table.header.size(), 0);
    auto widen = [&widths](const std::vector<std::string>& cells) {
        if (cells.size() > widths.size()) widths.resize(cells.size(), 0);
        for (size_t i = 0; i < cells.size(); ++i)
            widths[i] = std::max(widths[i], cells[i].size());
    };
    widen(table.header);
    for (const auto& r : table.rows)
        widen(r);

    auto line = [&](const std::vector<std::string>& cells) {
        std::string out;
        for (size_t i = 0; i < cells.size(); ++i) {
            // No trailing blanks: the last cell is not padded.
            out += i + 1 < cells.size() ? pad_right(cells[i], widths[i] + gap) : cells[i];
        }
        return out + "\n";
    };
    std::string out = line(table.header);
    for (const auto& r : table.rows)
        out += line(r);
    return out;
}

}  // namespace numasim
