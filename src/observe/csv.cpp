#include "observe/csv.h"

#include <fmt/format.h>

#include <iterator>
#include <string>

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

CsvReader::CsvReader(std::istream& in, std::string origin)
    : in_(in.rdbuf()), origin_(std::move(origin)) {
    record(columns_);
}

bool CsvReader::record(std::vector<std::string>& cells) {
    using Traits = std::char_traits<char>;
    for (int c; (c = in_->sgetc()) == '#';) {
        while ((c = in_->sbumpc()) != Traits::eof() && c != '\n') {
        }
        ++line_;
    }
    if (in_->sgetc() == Traits::eof()) return false;
    row_line_ = line_;
    cells.assign(1, std::string());
    bool quoted = false;
    for (int c; (c = in_->sbumpc()) != Traits::eof();) {
        if (quoted) {
            if (c == '"' && in_->sgetc() == '"') {
                cells.back() += '"';
                in_->sbumpc();
            } else if (c == '"') {
                quoted = false;
            } else {
                line_ += c == '\n';
                cells.back() += static_cast<char>(c);
            }
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            cells.emplace_back();
        } else if (c == '\n') {
            ++line_;
            break;
        } else {
            cells.back() += static_cast<char>(c);
        }
    }
    return true;
}

bool CsvReader::next(std::vector<std::string>& cells) {
    if (!record(cells)) return false;
    if (cells.size() != columns_.size())
        throw InputError(
            origin_, fmt::format("line {}", row_line_),
            fmt::format("{} cells where the header has {}", cells.size(), columns_.size()));
    return true;
}

}  // namespace numasim
