#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "helpers.h"

namespace numasim {
namespace {

// Every example scenario on a preset builds its workloads on its machine (setup only, no run).
TEST(WorkloadExamples, Build) {
    int built = 0;
    for (const auto& e :
         std::filesystem::directory_iterator(std::string(NUMASIM_SOURCE_DIR) + "/examples")) {
        if (e.path().extension() != ".toml") continue;
        SCOPED_TRACE(e.path().string());
        const TomlTable doc = TomlTable::parse_file(e.path().string());
        const TomlTable sc = *doc.table("scenario");
        const std::string machine = sc.get_string("machine");
        const auto presets = preset_names();
        if (std::find(presets.begin(), presets.end(), machine) == presets.end()) continue;
        ++built;
        const Topology m = load_preset(machine);
        for (const TomlTable& t : doc.tables("workload")) {
            const WorkloadInfo* info = find_workload(t.get_string("type"));
            ASSERT_NE(info, nullptr);
            auto w = info->factory(t, m);
            EXPECT_NO_THROW(t.finish());
        }
    }
    EXPECT_GT(built, 0);
}

}  // namespace
}  // namespace numasim
