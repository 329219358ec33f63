#include <gtest/gtest.h>

#include "helpers.h"

namespace numasim {
namespace {

// Every example scenario of these workloads builds on its machine (setup only, no run).
TEST(WorkloadExamples, Build) {
    for (const char* f : {"autonumabench-numa01", "cowsum", "specjbb2005-per-socket",
                          "perf-bench-numa", "streams"}) {
        SCOPED_TRACE(f);
        const TomlTable doc =
            TomlTable::parse_file(std::string(NUMASIM_SOURCE_DIR) + "/examples/" + f + ".toml");
        const TomlTable sc = *doc.table("scenario");
        const Topology m = load_preset(sc.get_string("machine"));
        const TomlTable t = doc.tables("workload").at(0);
        const WorkloadInfo* info = find_workload(t.get_string("type"));
        ASSERT_NE(info, nullptr);
        auto w = info->factory(t, m);
        EXPECT_NO_THROW(t.finish());
    }
}

}  // namespace
}  // namespace numasim
