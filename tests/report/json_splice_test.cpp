// A document written with splices has the bytes of dump(2) of the document that holds the
// spliced values.
#include "report/json_splice.h"
#include "support/stdio_text.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

namespace numasim {
namespace {

using json = nlohmann::json;

std::string written(const json& doc, const std::vector<JsonSplice>& splices) {
    return test::stdio_text([&](std::FILE* f) { write_json(f, doc, splices); });
}

// A splice that writes `value` as json_text does.
JsonSplice splice(const json::json_pointer& at, json value) {
    return {at, [value](std::FILE* out, int indent) {
                const std::string s = json_text(value, indent);
                std::fwrite(s.data(), 1, s.size(), out);
            }};
}

TEST(JsonSplice, SplicedValuesLandWhereDumpPutsThem) {
    const json table = {{"columns", {"time_s", "pid"}},
                        {"rows", {{0.5, 1}, {1.0, nullptr}}},
                        {"empty", json::array()}};
    json full = {{"a", 1},
                 {"list", {1, "two\nlines", json::object(), {{"x/y~z", table}}}},
                 {"samples", table},
                 {"z", {{"nested", {{"deeper", table}}}, {"plain", "é \"q\""}}}};
    json placeholders = full;
    const json::json_pointer root;
    const std::vector<json::json_pointer> at = {root / "samples", root / "list" / 3 / "x/y~z",
                                                root / "z" / "nested" / "deeper"};
    std::vector<JsonSplice> splices;
    for (const auto& p : at) {
        placeholders[p] = nullptr;
        splices.push_back(splice(p, full[p]));
    }
    EXPECT_EQ(written(placeholders, splices), full.dump(2) + "\n");
    // Without splices: dump(2) itself.
    EXPECT_EQ(written(full, {}), full.dump(2) + "\n");
}

TEST(JsonSplice, TheWholeDocumentCanBeSpliced) {
    const json v = {{"k", {1, 2}}};
    EXPECT_EQ(written(nullptr, {splice(json::json_pointer(), v)}), v.dump(2) + "\n");
}

TEST(JsonSplice, TextIndentsEveryLineAfterTheFirst) {
    EXPECT_EQ(json_text({1, 2}, 4), "[\n      1,\n      2\n    ]");
    EXPECT_EQ(json_text("a", 4), "\"a\"");
}

}  // namespace
}  // namespace numasim
