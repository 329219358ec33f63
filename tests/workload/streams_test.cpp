#include <gtest/gtest.h>

#include <algorithm>

#include "engine/process.h"
#include "helpers.h"
#include "workload/common.h"

namespace numasim {
namespace {

const char* const HEAD =
    "[[workload]]\ntype='streams'\n[[workload.process]]\nthreads=1\n"
    "[[workload.process.region]]\nname='a'\nsize='8MiB'\n";

TEST(Streams, UnknownRegionNamesFileAndKey) {
    const auto e =
        test::parse_error(std::string(HEAD) +
                          "[[workload.process.thread]]\nphases=[{streams=[{region='b'}], "
                          "rate_gbs=1, work='1MiB'}]\n");
    EXPECT_EQ(e.file(), "test.toml");
    EXPECT_NE(e.where().find("workload[0].process[0].thread[0].phases[0].streams[0].region"),
              std::string::npos)
        << e.where();
    EXPECT_NE(e.problem().find("'b'"), std::string::npos);
}

TEST(Streams, UnknownKeyInPhaseIsRejected) {
    const auto e =
        test::parse_error(std::string(HEAD) +
                          "[[workload.process.thread]]\nphases=[{streams=[{region='a'}], "
                          "rate_gbs=1, work='1MiB', wokr=3}]\n");
    EXPECT_NE(e.where().find("phases[0].wokr"), std::string::npos) << e.where();
    EXPECT_EQ(e.problem(), "unknown key");
}

TEST(Streams, BadSizeAndMissingWorkAreErrors) {
    auto e = test::parse_error(std::string(HEAD) +
                               "[[workload.process.thread]]\nphases=[{streams=[{region='a'}], "
                               "rate_gbs=1, work='lots'}]\n");
    EXPECT_NE(e.where().find("work"), std::string::npos);
    e = test::parse_error(
        std::string(HEAD) +
        "[[workload.process.thread]]\nphases=[{streams=[{region='a'}], rate_gbs=1}]\n");
    EXPECT_NE(e.where().find("phases[0]"), std::string::npos) << e.where();
    e = test::parse_error(std::string(HEAD) +
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
    EXPECT_EQ(b->pages_on(1), b->count);
    ASSERT_NE(find_region(*r.sys->mms[0], "buf#1"), nullptr);
    const WorkloadResult m = r.w->result(*r.sys);
    EXPECT_TRUE(test::figure<bool>(m, "finished"));
    EXPECT_EQ(m.tasks.size(), 2u);
    // 16 MiB first touch + 2 threads x 2 x 16 MiB.
    EXPECT_NEAR(test::figure<double>(m, "bytes"), 5.0 * 16 * 1024 * 1024, 1e6);
}

// [workload.process.main]: a main thread apart from the workers first-touches the buffer bound
// to node 1 (CPUs and memory), creates the two workers, sleeps in 1 s steps and then in
// pthread_join() until they are done, and exits last. The scanner sees the process's real VMAs.
TEST(Streams, MainThreadFirstTouchesThenJoins) {
    auto r = test::run_workload(
        "tiny-2n",
        "[[workload]]\ntype='streams'\n[[workload.process]]\nname='tl'\nimage='static'\n"
        "threads=2\n[[workload.process.region]]\nname='buf'\nsize='64MiB'\n"
        "[workload.process.main]\nbefore=[{affinity='node:1', policy='bind', nodes=[1], "
        "streams=[{region='buf', write_fraction=1}], rate_gbs=10, work='64MiB'}, "
        "{affinity='all', policy='default'}]\nafter=[{sleep='1s', repeat=2}]\n"
        "[[workload.process.thread]]\nphases=[{streams=[{region='buf', per_thread=true, "
        "write_fraction=1}], rate_gbs=5, cpu_time='3s'}]\n",
        8);
    const auto tasks = workload_tasks(*r.sys, 0);
    ASSERT_EQ(tasks.size(), 3u);
    const Task* main = nullptr;
    Nanos last_worker = 0;
    for (const Task* t : tasks) {
        if (t->pid == t->tgid)
            main = t;
        else
            last_worker = std::max(last_worker, t->exit_time);
    }
    ASSERT_NE(main, nullptr);
    EXPECT_GE(main->exit_time, last_worker);
    EXPECT_GT(last_worker, 3 * NSEC_PER_SEC);
    EXPECT_LT(main->utime, 100 * NSEC_PER_MSEC);  // the first touch, then sleeping
    // The workers wrote nothing new: every page was first touched on node 1.
    Region* b = find_region(*r.sys->mms[0], "buf");
    EXPECT_EQ(b->present, b->count);
    EXPECT_EQ(r.sys->counters[Vm::numa_hit], r.sys->counters[Vm::numa_local]);
    // task_numa_work met the program's text (shared_ro), [vvar] (unsuitable) and the thread
    // stacks' guard pages (inaccessible).
    const auto& skip = r.sys->counters.sched_skip_vma_numa;
    EXPECT_GT(skip[static_cast<size_t>(SkipVmaReason::SharedRo)], 0u);
    EXPECT_GT(skip[static_cast<size_t>(SkipVmaReason::Unsuitable)], 0u);
    EXPECT_GT(skip[static_cast<size_t>(SkipVmaReason::Inaccessible)], 0u);
}

TEST(Streams, MainThreadPhasesCannotUseSlices) {
    const auto e = test::parse_error(std::string(HEAD) +
                                     "[workload.process.main]\nbefore=[{streams=[{region='a', "
                                     "per_thread=true}], rate_gbs=1, work='1MiB'}]\n"
                                     "[[workload.process.thread]]\nphases=[{sleep=1}]\n");
    EXPECT_NE(e.where().find("workload[0].process[0].main"), std::string::npos) << e.where();
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
