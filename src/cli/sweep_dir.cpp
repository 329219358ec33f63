#include "cli/sweep_dir.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "cli/output_file.h"
#include "config/input_error.h"
#include "report/sweep_report.h"

namespace numasim {

namespace fs = std::filesystem;

namespace {

std::string read_text(const fs::path& p) {
    std::ifstream f(p, std::ios::binary);
    if (!f) throw InputError(p.string(), "", "cannot read");
    std::ostringstream s;
    s << f.rdbuf();
    return s.str();
}

void write_file(const fs::path& p, const std::string& text) {
    write_output_file("-o", p.string(), text, {});
}

// A case file is numasim's own output, but gather and compare --from read whatever a directory
// holds: one that does not hold what a sweep writes is bad input, named, not an internal error.
constexpr const char* kNotACaseFile = "does not hold what `numasim sweep` writes: ";

// The case documents cut down to what the CSV and the tables read.
std::vector<nlohmann::json> documents(const CaseFiles& files) {
    std::vector<nlohmann::json> docs;
    for (const auto& [index, text] : files.texts) {
        nlohmann::json doc = nlohmann::json::parse(text);
        try {
            slim_case_document(doc);
        } catch (const nlohmann::json::exception& e) {
            throw InputError(files.origins.at(index), "", kNotACaseFile + std::string(e.what()));
        }
        docs.push_back(std::move(doc));
    }
    return docs;
}

// `make(header, docs)`, with a case file that lacks what it reads blamed on its directory (the
// CSV and the tables read every case at once).
template <typename F>
std::string from_cases(const CaseFiles& files, const std::vector<nlohmann::json>& docs, F make) {
    try {
        return make(files.header, docs);
    } catch (const nlohmann::json::exception& e) {
        const std::string dir =
            fs::path(files.origins.begin()->second).parent_path().parent_path().string();
        throw InputError(dir, "cases", "a case file " + (kNotACaseFile + std::string(e.what())));
    }
}

}  // namespace

void read_case_files(const std::string& dir, CaseFiles& into, const nlohmann::json* header) {
    const fs::path cases = fs::path(dir) / "cases";
    std::error_code ec;
    if (!fs::is_directory(cases, ec)) return;
    std::vector<fs::path> paths;
    for (const auto& e : fs::directory_iterator(cases))
        if (e.path().extension() == ".json") paths.push_back(e.path());
    std::sort(paths.begin(), paths.end());
    for (const auto& p : paths) {
        std::string text = read_text(p);
        const SweepCaseFile f = parse_case_file(text, p.string());
        const nlohmann::json& expected = header ? *header : into.header;
        if (!expected.is_null() && f.header != expected)
            throw InputError(p.string(), "sweep",
                             header
                                 ? "a case of another sweep (the spec or the options differ)"
                                 : "a case of another sweep than " + into.origins.begin()->second);
        if (into.header.is_null()) into.header = f.header;
        if (auto it = into.texts.find(f.index); it != into.texts.end()) {
            if (it->second != text)
                throw InputError(
                    p.string(), "case",
                    fmt::format("case {} differs from {}", f.index, into.origins.at(f.index)));
            continue;
        }
        into.texts.emplace(f.index, std::move(text));
        into.origins.emplace(f.index, p.string());
    }
}

void write_case_file(const std::string& dir, const std::string& name, const std::string& text) {
    write_file(fs::path(dir) / "cases" / name, text);
}

void remove_partial_files(const std::string& dir) {
    for (const fs::path& d : {fs::path(dir), fs::path(dir) / "cases"}) {
        std::error_code ec;
        if (!fs::is_directory(d, ec)) continue;
        for (const auto& e : fs::directory_iterator(d))
            if (is_output_temp_name(e.path().filename().string())) fs::remove(e.path(), ec);
    }
}

bool complete(const CaseFiles& files, std::string* missing) {
    if (files.header.is_null()) {
        if (missing) *missing = "no case files";
        return false;
    }
    const size_t total = files.header.at("cases").get<size_t>();
    std::vector<std::string> gaps;
    size_t absent = 0;
    for (size_t i = 0; i < total; ++i)
        if (!files.texts.count(i) && ++absent <= 5) gaps.push_back(std::to_string(i));
    if (missing && absent)
        *missing = fmt::format("{} of {} cases missing ({}{})", absent, total,
                               fmt::join(gaps, ", "), absent > gaps.size() ? ", ..." : "");
    return absent == 0;
}

SweepOutputs sweep_outputs(const CaseFiles& files) {
    const auto docs = documents(files);
    return {from_cases(files, docs, sweep_csv), from_cases(files, docs, sweep_tables)};
}

void write_sweep_outputs(const std::string& dir, const SweepOutputs& outputs) {
    write_file(fs::path(dir) / "sweep.csv", outputs.csv);
    write_file(fs::path(dir) / "compare.txt", outputs.tables);
}

}  // namespace numasim
