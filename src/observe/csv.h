// The CSV tables of a sampled run: a header row, then one row per sample and object, simulated
// time in seconds in the first column. Comment lines ("# ...") before the header carry the
// provenance; most readers skip them (pandas: comment='#', gnuplot, R: comment.char='#').
#pragma once

#include <cstdint>
#include <cstdio>
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

// A table read back (for the JSON output and the HTML report): the header and the cells.
struct CsvTable {
    std::vector<std::string> columns;
    std::vector<std::vector<std::string>> rows;
    int column(std::string_view name) const;  // -1 if absent
};

// Parses CSV text as CsvWriter writes it; comment lines are skipped. Throws InputError naming
// `origin` on a row with the wrong number of cells.
CsvTable parse_csv(std::string_view text, const std::string& origin);

}  // namespace numasim
