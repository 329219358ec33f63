#include "report/samples_json.h"

#include <charconv>
#include <fstream>
#include <sstream>

#include "config/input_error.h"
#include "observe/numa_sampler.h"

namespace numasim {

namespace {

nlohmann::json cell_json(const std::string& c) {
    if (c.empty()) return nullptr;
    int64_t i = 0;
    auto [p, ec] = std::from_chars(c.data(), c.data() + c.size(), i);
    if (ec == std::errc() && p == c.data() + c.size()) return i;
    double d = 0;
    auto [p2, ec2] = std::from_chars(c.data(), c.data() + c.size(), d);
    if (ec2 == std::errc() && p2 == c.data() + c.size()) return d;
    return c;
}

}  // namespace

nlohmann::json csv_table_json(const CsvTable& t) {
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& r : t.rows) {
        nlohmann::json row = nlohmann::json::array();
        for (const auto& c : r)
            row.push_back(cell_json(c));
        rows.push_back(std::move(row));
    }
    return {{"columns", t.columns}, {"rows", std::move(rows)}};
}

nlohmann::json samples_json(const std::string& dir) {
    nlohmann::json j = nlohmann::json::object();
    for (std::string_view name : sample_table_names()) {
        const std::string path = dir + "/" + std::string(name);
        std::ifstream in(path, std::ios::binary);
        if (!in) throw InputError(path, "", "cannot open sample table");
        std::ostringstream ss;
        ss << in.rdbuf();
        std::string key(name.substr(0, name.size() - 4));  // without ".csv"
        j[key] = csv_table_json(parse_csv(ss.str(), path));
    }
    return j;
}

nlohmann::json provenance_json(const Provenance& p) {
    nlohmann::json j = nlohmann::json::object();
    for (const auto& [k, v] : p)
        j[k] = v;
    return j;
}

}  // namespace numasim
