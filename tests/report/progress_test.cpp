#include "report/progress.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace numasim {
namespace {

struct Fake {
    double now = 0;
    std::string out;
};

TEST(Progress, FormatLine) {
    EXPECT_EQ(ProgressReporter::format_line(0, 10, 0), "runs 0/10, ETA --");
    // 3 runs in 30 s -> 10 s per run, 7 left -> 70 s.
    EXPECT_EQ(ProgressReporter::format_line(3, 10, 30), "runs 3/10, ETA 1m10s");
    EXPECT_EQ(ProgressReporter::format_line(10, 10, 99), "runs 10/10, ETA 0s");
    EXPECT_EQ(ProgressReporter::format_duration(3725), "1h02m05s");
    EXPECT_EQ(ProgressReporter::format_duration(5), "5s");
}

TEST(Progress, DrawsInPlaceAndRateLimits) {
    Fake f;
    {
        ProgressReporter p(
            4, [&f] { return f.now; }, [&f](std::string_view s) { f.out += s; }, true);
        f.now = 1;
        p.advance();  // first draw
        f.now = 1.05;
        p.advance();  // within 0.1 s: skipped
        f.now = 2;
        p.advance();
        f.now = 4;
        p.advance();  // last run always drawn
    }                 // destructor ends the line
    EXPECT_EQ(f.out,
              "\rruns 1/4, ETA 3s"
              "\rruns 3/4, ETA 1s"
              "\rruns 4/4, ETA 0s"
              "\rruns 4/4, ETA 0s\n");
}

TEST(Progress, SilentWhenNotATerminal) {
    Fake f;
    {
        ProgressReporter p(
            2, [&f] { return f.now; }, [&f](std::string_view s) { f.out += s; }, false);
        p.advance(2);
        EXPECT_EQ(p.done(), 2u);
    }
    EXPECT_TRUE(f.out.empty());
}

TEST(Progress, ThreadSafeCounting) {
    std::string out;
    ProgressReporter p(
        4000, [] { return 0.0; }, [&out](std::string_view s) { out += s; }, true);
    std::vector<std::thread> workers;
    for (int t = 0; t < 4; ++t) {
        workers.emplace_back([&p] {
            for (int i = 0; i < 1000; ++i)
                p.advance();
        });
    }
    for (auto& w : workers)
        w.join();
    EXPECT_EQ(p.done(), 4000u);
    p.finish();
    EXPECT_NE(out.find("runs 4000/4000"), std::string::npos);
}

}  // namespace
}  // namespace numasim
