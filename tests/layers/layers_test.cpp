// The layers of docs/model.md, as the includes really are: every #include "dir/..." in src/
// points to the file's own layer or one below it.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <string>

namespace {

// Bottom to top. The kernel is one layer of several folders (docs/model.md says why). The
// program descriptions sit on the kernel's types, beside the engine; the workload models and the
// oracle's guest runner both stand on them, and the oracle's host side knows the guest's
// protocol.
const std::map<std::string, int> kLayer = {
    {"sim", 0},     {"config", 1},     {"machine", 2},  {"replay", 2}, {"kernel", 3},
    {"mm", 3},      {"sched", 3},      {"numab", 3},    {"cost", 3},   {"engine", 4},
    {"program", 4}, {"policy", 4},     {"workload", 5}, {"guest", 5},  {"observe", 5},
    {"oracle", 6},  {"experiment", 7}, {"report", 8},   {"cli", 9},
};

TEST(Layers, IncludesPointDown) {
    const std::filesystem::path src = std::filesystem::path(NUMASIM_SOURCE_DIR) / "src";
    const std::regex include(R"re(^\s*#include\s+"([a-z_]+)/)re");
    int files = 0;
    for (const auto& e : std::filesystem::recursive_directory_iterator(src)) {
        const auto ext = e.path().extension();
        if (ext != ".h" && ext != ".cpp") continue;
        const std::string dir = std::filesystem::relative(e.path(), src).begin()->string();
        ASSERT_TRUE(kLayer.count(dir)) << "a folder without a layer: " << dir;
        ++files;
        std::ifstream in(e.path());
        int line_no = 0;
        for (std::string line; std::getline(in, line);) {
            ++line_no;
            std::smatch m;
            if (!std::regex_search(line, m, include)) continue;
            const std::string to = m[1];
            ASSERT_TRUE(kLayer.count(to)) << e.path() << ":" << line_no << " includes " << to;
            EXPECT_LE(kLayer.at(to), kLayer.at(dir))
                << e.path().string() << ":" << line_no << " (" << dir << ") includes " << to;
        }
    }
    EXPECT_GT(files, 100);
}

}  // namespace
