// The CSV tables of a sampled run: a header row, then one row per sample and object, simulated
// time in seconds in the first column. Comment lines ("# ...") before the header carry the
// provenance; most readers skip them (pandas: comment='#', gnuplot, R: comment.char='#').
#pragma once

#include <cstdint>
#include <cstdio>
#include <istream>
#include <string>
#include <string_view>
#include <vector>

namespace numasim {

class CsvWriter {
  public:
    CsvWriter(std::FILE* out, const std::vector<std::string>& comments,
              const std::vector<std::string>& columns);
    CsvWriter& text(std::string_view s);  // quoted when it holds a comma, quote or newline
    CsvWriter& num(int64_t v);
    CsvWriter& num(uint64_t v);
    CsvWriter& num(int v) { return num(static_cast<int64_t>(v)); }
    CsvWriter& fixed(double v, int precision);  // "%.*f"
    CsvWriter& empty();                         // a missing value
    void end_row();
    size_t columns() const { return columns_; }

  private:
    void sep();
    std::FILE* out_;
    std::string row_;
    size_t columns_ = 0, in_row_ = 0;
};

// A table read back (for the JSON output) one row at a time, so that memory does not grow with
// the number of samples: CSV text as CsvWriter writes it, comment lines skipped.
class CsvReader {
  public:
    // Reads the header; `origin` names the file in errors.
    CsvReader(std::istream& in, std::string origin);
    const std::vector<std::string>& columns() const { return columns_; }
    // The next row into `cells`; false at the end. Throws InputError naming the origin and the
    // line of a row with the wrong number of cells.
    bool next(std::vector<std::string>& cells);

  private:
    bool record(std::vector<std::string>& cells);
    std::streambuf* in_;
    std::string origin_;
    std::vector<std::string> columns_;
    int line_ = 1;      // of the next character
    int row_line_ = 0;  // where the last record read starts
};

}  // namespace numasim
