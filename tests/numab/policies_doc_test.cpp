// docs/policies.md against the knob table and the profile files: every knob is listed with its
// default, and the profile table shows what each profile sets.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "numab/profile.h"

namespace numasim {
namespace {

std::vector<std::string> doc_lines() {
    std::ifstream in(std::string(NUMASIM_SOURCE_DIR) + "/docs/policies.md");
    std::vector<std::string> lines;
    for (std::string l; std::getline(in, l);)
        lines.push_back(l);
    return lines;
}

// The cells of a Markdown table row, trimmed, without backquotes.
std::vector<std::string> cells(const std::string& row) {
    std::vector<std::string> out;
    std::stringstream ss(row);
    std::string c;
    std::getline(ss, c, '|');  // before the first bar
    while (std::getline(ss, c, '|')) {
        std::string t;
        for (char ch : c)
            if (ch != '`') t += ch;
        const auto b = t.find_first_not_of(' '), e = t.find_last_not_of(' ');
        out.push_back(b == std::string::npos ? "" : t.substr(b, e - b + 1));
    }
    return out;
}

TEST(PoliciesDoc, ListsEveryKnobWithItsDefault) {
    std::map<std::string, std::string> documented;  // knob -> default column
    for (const auto& l : doc_lines())
        if (l.rfind("| `", 0) == 0) {
            const auto c = cells(l);
            if (c.size() >= 2) documented.emplace(c[0], c[1]);
        }
    const NumaBalancingKnobs defaults;
    for (const KnobInfo& k : knob_table()) {
        SCOPED_TRACE(std::string(k.name));
        ASSERT_TRUE(documented.count(std::string(k.name)));
        EXPECT_EQ(documented[std::string(k.name)], knob_value_text(k, k.get(defaults)));
    }
}

TEST(PoliciesDoc, ProfileTableMatchesTheProfiles) {
    const auto lines = doc_lines();
    size_t i = 0;
    while (i < lines.size() && lines[i].rfind("| knob | v", 0) != 0)
        ++i;
    ASSERT_LT(i, lines.size()) << "no profile table";
    const auto header = cells(lines[i]);
    std::vector<std::string> columns(header.begin() + 1, header.end());
    std::vector<std::string> names = profile_names();
    std::sort(columns.begin(), columns.end());
    ASSERT_EQ(columns, names) << "one column per profile";
    std::map<std::string, NumaBalancingKnobs> profiles;
    for (const auto& n : names)
        profiles[n] = load_profile(n);
    size_t rows = 0;
    for (i += 2; i < lines.size() && lines[i].rfind("| ", 0) == 0; ++i, ++rows) {
        const auto c = cells(lines[i]);
        const KnobInfo* k = find_knob(c.at(0));
        ASSERT_NE(k, nullptr) << c.at(0);
        for (size_t col = 1; col < header.size(); ++col)
            EXPECT_EQ(c.at(col), knob_value_text(*k, k->get(profiles[header[col]])))
                << c[0] << " in " << header[col];
    }
    EXPECT_EQ(rows, knob_table().size()) << "one row per knob";
}

}  // namespace
}  // namespace numasim
