// A JSON document written exactly as nlohmann's dump(2) writes it, except that some of its values
// come from a callback that writes them straight to the file: the sample tables of a long run
// are copied from their CSV files row by row instead of being held in memory (docs/reports.md).
#pragma once

#include <cstdio>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace numasim {

// The layout of result.json and of every --json output: nlohmann's dump(2).
inline constexpr int kJsonIndent = 2;

struct JsonSplice {
    // A value of the document (a placeholder such as null, which keeps its key's place).
    nlohmann::json::json_pointer at;
    // Writes the value in place of the placeholder; `indent` is the indentation (in spaces) of
    // the line it starts on, which its later lines build on as dump(2) does.
    std::function<void(std::FILE* out, int indent)> write;
};

// `v` as dump(2) writes it as a member of a document, on a line indented by `indent` spaces.
std::string json_text(const nlohmann::json& v, int indent);

// `doc` followed by a line break, with each splice's value written in place of the value at its
// pointer.
void write_json(std::FILE* out, const nlohmann::json& doc, const std::vector<JsonSplice>& splices);

}  // namespace numasim
