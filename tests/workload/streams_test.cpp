#include <gtest/gtest.h>

#include "engine/process.h"
#include "helpers.h"

namespace numasim {
namespace {

InputError parse_error(const std::string& toml) {
    try {
        test::run_workload("tiny-2n", toml, 0);
    } catch (const InputError& e) {
        return e;
    }
    ADD_FAILURE() << "no error for:\n" << toml;
    return InputError("", "", "");
}

const char* const HEAD =
    "[[workload]]\ntype='streams'\n[[workload.process]]\nthreads=1\n"
    "[[workload.process.region]]\nname='a'\nsize='8MiB'\n";

TEST(Streams, UnknownRegionNamesFileAndKey) {
    const auto e = parse_error(std::string(HEAD) +
                               "[[workload.process.thread]]\nphases=[{streams=[{region='b'}], "
                               "rate_gbs=1, work='1MiB'}]\n");
    EXPECT_EQ(e.file(), "test.toml");
    EXPECT_NE(e.where().find("workload[0].process[0].thread[0].phases[0].streams[0].region"),
              std::string::npos)
        << e.where();
    EXPECT_NE(e.problem().find("'b'"), std::string::npos);
}

TEST(Streams, UnknownKeyInPhaseIsRejected) {
    const auto e = parse_error(std::string(HEAD) +
                               "[[workload.process.thread]]\nphases=[{streams=[{region='a'}], "
                               "rate_gbs=1, work='1MiB', wokr=3}]\n");
    EXPECT_NE(e.where().find("phases[0].wokr"), std::string::npos) << e.where();
    EXPECT_EQ(e.problem(), "unknown key");
}

TEST(Streams, BadSizeAndMissingWorkAreErrors) {
    auto e = parse_error(std::string(HEAD) +
                         "[[workload.process.thread]]\nphases=[{streams=[{region='a'}], "
                         "rate_gbs=1, work='lots'}]\n");
    EXPECT_NE(e.where().find("work"), std::string::npos);
    e = parse_error(std::string(HEAD) +
                    "[[workload.process.thread]]\nphases=[{streams=[{region='a'}], rate_gbs=1}]\n");
    EXPECT_NE(e.where().find("phases[0]"), std::string::npos) << e.where();
    e = parse_error(std::string(HEAD) +
                    "[[workload.process.thread]]\ncount=2\nphases=[{sleep=1}]\n");
    EXPECT_NE(e.where().find("threads"), std::string::npos) << e.where();
}

TEST(Streams, FirstTouchNodeAndPerThreadSlices) {
    auto r = test::run_workload(
        "tiny-2n",
        "[[workload]]\ntype='streams'\n[[workload.process]]\nthreads=2\n"
        "[[workload.process.region]]\nname='buf'\nsize='16MiB'\nfirst_touch='node:1'\n"
        "[[workload.process.thread]]\nphases=[{streams=[{region='buf', per_thread=true, "
        "write_fraction=1}], rate_gbs=5, work='16MiB', repeat=2}]\n",
        5);
    Region* b = find_region(*r.sys->mms[0], "buf");
    ASSERT_NE(b, nullptr);
    EXPECT_EQ(b->node_pages[1], b->count);
    ASSERT_NE(find_region(*r.sys->mms[0], "buf#1"), nullptr);
    const WorkloadResult m = r.w->result(*r.sys);
    EXPECT_TRUE(test::figure<bool>(m, "finished"));
    EXPECT_EQ(m.tasks.size(), 2u);
    // 16 MiB first touch + 2 threads x 2 x 16 MiB.
    EXPECT_NEAR(test::figure<double>(m, "bytes"), 5.0 * 16 * 1024 * 1024, 1e6);
}

TEST(Streams, ExampleFileBuildsAndRuns) {
    const TomlTable doc =
        TomlTable::parse_file(std::string(NUMASIM_SOURCE_DIR) + "/examples/streams.toml");
    const TomlTable t = doc.tables("workload").at(0);
    ASSERT_EQ(t.get_string("type"), "streams");
    System sys(load_preset("tiny-2n"), NumaBalancingKnobs{}, 1);
    auto w = find_workload("streams")->factory(t, sys.topo);
    t.finish();
    w->setup(sys, 0);
    Engine eng(sys);
    eng.run(NSEC_PER_SEC / 2);
    const WorkloadResult m = w->result(sys);
    EXPECT_EQ(m.tasks.size(), 6u);
    EXPECT_GT(test::figure<double>(m, "bytes"), 0.0);
}

}  // namespace
}  // namespace numasim
