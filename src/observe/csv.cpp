#include "observe/csv.h"

#include <fmt/format.h>

#include <iterator>

#include "config/input_error.h"

namespace numasim {

CsvWriter::CsvWriter(std::FILE* out, const std::vector<std::string>& comments,
                     const std::vector<std::string>& columns)
    : out_(out), columns_(columns.size()) {
    for (const std::string& c : comments)
        row_ += "# " + c + "\n";
    for (const std::string& c : columns)
        text(c);
    end_row();
}

void CsvWriter::sep() {
    if (in_row_++) row_ += ',';
}

CsvWriter& CsvWriter::text(std::string_view s) {
    sep();
    if (s.find_first_of(",\"\n") == std::string_view::npos) {
        row_ += s;
        return *this;
    }
    row_ += '"';
    for (const char c : s) {
        if (c == '"') row_ += '"';
        row_ += c;
    }
    row_ += '"';
    return *this;
}

CsvWriter& CsvWriter::num(int64_t v) {
    sep();
    fmt::format_to(std::back_inserter(row_), "{}", v);
    return *this;
}

CsvWriter& CsvWriter::num(uint64_t v) {
    sep();
    fmt::format_to(std::back_inserter(row_), "{}", v);
    return *this;
}

CsvWriter& CsvWriter::fixed(double v, int precision) {
    sep();
    fmt::format_to(std::back_inserter(row_), "{:.{}f}", v, precision);
    return *this;
}

CsvWriter& CsvWriter::empty() {
    sep();
    return *this;
}

void CsvWriter::end_row() {
    row_ += '\n';
    std::fwrite(row_.data(), 1, row_.size(), out_);
    row_.clear();
    in_row_ = 0;
}

int CsvTable::column(std::string_view name) const {
    for (size_t i = 0; i < columns.size(); ++i)
        if (columns[i] == name) return static_cast<int>(i);
    return -1;
}

namespace {

std::vector<std::string> split_row(std::string_view text, size_t& pos) {
    std::vector<std::string> cells(1);
    bool quoted = false;
    for (; pos < text.size(); ++pos) {
        const char c = text[pos];
        if (quoted) {
            if (c == '"' && pos + 1 < text.size() && text[pos + 1] == '"') {
                cells.back() += '"';
                ++pos;
            } else if (c == '"') {
                quoted = false;
            } else {
                cells.back() += c;
            }
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            cells.emplace_back();
        } else if (c == '\n') {
            ++pos;
            break;
        } else {
            cells.back() += c;
        }
    }
    return cells;
}

}  // namespace

CsvTable parse_csv(std::string_view text, const std::string& origin) {
    CsvTable t;
    size_t pos = 0;
    int line = 0;
    bool header = true;
    while (pos < text.size()) {
        ++line;
        if (text[pos] == '#') {
            const size_t nl = text.find('\n', pos);
            pos = nl == std::string_view::npos ? text.size() : nl + 1;
            continue;
        }
        std::vector<std::string> cells = split_row(text, pos);
        if (header) {
            t.columns = std::move(cells);
            header = false;
            continue;
        }
        if (cells.size() != t.columns.size())
            throw InputError(
                origin, fmt::format("line {}", line),
                fmt::format("{} cells where the header has {}", cells.size(), t.columns.size()));
        t.rows.push_back(std::move(cells));
    }
    return t;
}

}  // namespace numasim
