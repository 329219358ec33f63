#include "report/samples_json.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "config/input_error.h"
#include "observe/csv.h"
#include "observe/numa_sampler.h"
#include "report/json_splice.h"

namespace numasim {

namespace {

// A cell as the JSON value it stands for, appended to `out` as dump() writes it.
void append_cell(std::string& out, const std::string& c) {
    if (c.empty()) {
        out += "null";
        return;
    }
    int64_t i = 0;
    auto [p, ec] = std::from_chars(c.data(), c.data() + c.size(), i);
    if (ec == std::errc() && p == c.data() + c.size()) {
        fmt::format_to(std::back_inserter(out), "{}", i);  // as nlohmann writes an integer
        return;
    }
    double d = 0;
    auto [p2, ec2] = std::from_chars(c.data(), c.data() + c.size(), d);
    out += ec2 == std::errc() && p2 == c.data() + c.size() ? nlohmann::json(d).dump()
                                                           : nlohmann::json(c).dump();
}

// One table as {"columns": [...], "rows": [...]} at `indent`, a row at a time.
void write_table(std::FILE* out, const std::string& path, int indent) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path, "", "cannot open sample table");
    CsvReader csv(in, path);
    const std::string pad(static_cast<size_t>(indent), ' ');
    const std::string key_pad = pad + std::string(kJsonIndent, ' ');
    const std::string row_pad = key_pad + std::string(kJsonIndent, ' ');
    const std::string cell_pad = row_pad + std::string(kJsonIndent, ' ');
    std::string text = "{\n" + key_pad + "\"columns\": ";
    text += json_text(csv.columns(), indent + kJsonIndent);
    text += ",\n" + key_pad + "\"rows\": ";
    std::vector<std::string> cells;
    bool first = true;
    while (csv.next(cells)) {
        text += first ? "[\n" : ",\n";
        first = false;
        text += row_pad + "[\n";
        for (size_t k = 0; k < cells.size(); ++k) {
            text += cell_pad;
            append_cell(text, cells[k]);
            text += k + 1 < cells.size() ? ",\n" : "\n";
        }
        text += row_pad + "]";
        std::fwrite(text.data(), 1, text.size(), out);
        text.clear();
    }
    text += first ? "[]" : "\n" + key_pad + "]";
    text += "\n" + pad + "}";
    std::fwrite(text.data(), 1, text.size(), out);
}

}  // namespace

void write_samples_json(std::FILE* out, const std::string& dir, int indent) {
    // Keys in name order, as a nlohmann::json object holds them.
    std::vector<std::string> names;
    for (std::string_view name : sample_table_names())
        names.emplace_back(name.substr(0, name.size() - 4));  // without ".csv"
    // tiers.csv is there on a machine with more than one memory tier only.
    if (std::filesystem::exists(dir + "/" + std::string(kTiersTable)))
        names.emplace_back(kTiersTable.substr(0, kTiersTable.size() - 4));
    std::sort(names.begin(), names.end());
    const std::string pad(static_cast<size_t>(indent + kJsonIndent), ' ');
    std::fputs("{\n", out);
    for (size_t i = 0; i < names.size(); ++i) {
        std::fputs((pad + nlohmann::json(names[i]).dump() + ": ").c_str(), out);
        write_table(out, dir + "/" + names[i] + ".csv", indent + kJsonIndent);
        std::fputs(i + 1 < names.size() ? ",\n" : "\n", out);
    }
    std::fputs((std::string(static_cast<size_t>(indent), ' ') + "}").c_str(), out);
}

nlohmann::json provenance_json(const Provenance& p) {
    nlohmann::json j = nlohmann::json::object();
    for (const auto& [k, v] : p)
        j[k] = v;
    return j;
}

}  // namespace numasim
