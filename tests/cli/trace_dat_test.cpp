// --trace-format trace-dat end to end: `trace-cmd report` reads the file numasim writes and
// prints, event for event, what numasim's own ftrace text of the same run holds (skipped where
// trace-cmd is not installed; scripts/setup.sh installs it).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "numasim_process.h"

namespace numasim::test {
namespace {

namespace fs = std::filesystem;

// A directory of its own for each test (runs of the suite may overlap).
class TraceDat : public ::testing::Test {
  protected:
    void SetUp() override {
        std::string tmpl = (fs::temp_directory_path() / "numasim-trace-dat-XXXXXX").string();
        ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
        dir_ = tmpl;
    }
    void TearDown() override { fs::remove_all(dir_); }
    std::string path(const std::string& name) const { return (dir_ / name).string(); }
    fs::path dir_;
};

bool have_trace_cmd() {
    return shell("command -v trace-cmd").status == 0;
}

// One event as a trace viewer shows it: the time to the microsecond, the CPU, the task the
// event fired under, the event and its fields.
struct Line {
    std::string ts, cpu, comm, pid, event, fields;
    bool operator==(const Line&) const = default;
};

std::ostream& operator<<(std::ostream& os, const Line& l) {
    return os << l.comm << "-" << l.pid << " [" << l.cpu << "] " << l.ts << ": " << l.event << ": "
              << l.fields;
}

// The event lines of `text` that `re` matches (groups: comm, pid, cpu, ts, event, fields),
// ordered by time and CPU: trace-cmd merges the per-CPU buffers, and two CPUs' events at one
// time may come in either order; each CPU's own events keep theirs.
std::vector<Line> event_lines(const std::string& text, const std::regex& re) {
    std::vector<Line> v;
    std::istringstream in(text);
    std::smatch m;
    for (std::string l; std::getline(in, l);) {
        while (!l.empty() && l.back() == ' ')
            l.pop_back();
        if (std::regex_match(l, m, re)) v.push_back({m[4], m[3], m[1], m[2], m[5], m[6]});
    }
    std::stable_sort(v.begin(), v.end(), [](const Line& a, const Line& b) {
        return std::tie(a.ts, a.cpu) < std::tie(b.ts, b.cpu);
    });
    return v;
}

const std::regex kFtraceLine(
    R"(^ *(.+)-(\d+) +\[(\d{3})\] [^ ]{5} +(\d+\.\d{6}): ([a-z_]+): (.*)$)");
const std::regex kReportLine(R"(^ *(.+)-(\d+) +\[(\d{3})\] +(\d+\.\d{6}): ([a-z_]+): +(.*)$)");

// Runs `numasim run ARGS` twice, into ftrace text and into trace.dat, and checks that
// `trace-cmd report` prints the events of the text, one for one; returns the events seen.
std::set<std::string> report_matches_text(const fs::path& dir, const std::string& args) {
    const std::string txt = (dir / "t.txt").string(), dat = (dir / "t.dat").string();
    Output o = run_numasim("run " + args + " --trace " + txt);
    EXPECT_EQ(o.status, 0) << o.out;
    o = run_numasim("run " + args + " --trace-format trace-dat --trace " + dat);
    EXPECT_EQ(o.status, 0) << o.out;
    EXPECT_EQ(read_text(dat).substr(0, 12), std::string("\x17\x08\x44tracing6\0", 12));
    if (!have_trace_cmd()) return {};

    // -N: without libtraceevent's plugins, which print sched_switch and sched_wakeup their own
    // way; every event then prints through the print fmt of its format file.
    const Output report = shell("trace-cmd report -N -i " + dat);
    EXPECT_EQ(report.status, 0) << report.out.substr(0, 2000);
    EXPECT_EQ(report.out.find("FAILED TO PARSE"), std::string::npos);
    EXPECT_EQ(report.out.find("[UNKNOWN"), std::string::npos);

    const std::vector<Line> ours = event_lines(read_text(txt), kFtraceLine);
    const std::vector<Line> theirs = event_lines(report.out, kReportLine);
    EXPECT_EQ(theirs.size(), ours.size());
    std::set<std::string> events;
    for (size_t i = 0; i < std::min(ours.size(), theirs.size()); ++i) {
        EXPECT_EQ(theirs[i], ours[i]) << "event " << i;
        if (theirs[i] != ours[i]) break;
        events.insert(ours[i].event);
    }
    return events;
}

// The scheduler's events, NUMA moves and swaps among them, on a two-socket machine (this seed
// swaps nine times within 10 s; seed 4, which swapped four times, swaps none since walks end at
// costly hinting faults).
TEST_F(TraceDat, TraceCmdReportPrintsTheSchedEventsOfTheFtraceText) {
    const std::set<std::string> events = report_matches_text(
        dir_,
        "experiments/smallimp-haswell.toml --duration 10s --iterations 1 --seed 5 "
        "--param workload.ramp_up=2s --trace-events sched:*");
    if (!have_trace_cmd()) GTEST_SKIP() << "trace-cmd is not installed";
    for (const char* e : {"sched_switch", "sched_wakeup", "sched_migrate_task",
                          "sched_process_fork", "sched_move_numa", "sched_swap_numa"})
        EXPECT_TRUE(events.count(e)) << e;
    // The provenance, where `trace-cmd report --uname` finds it.
    const Output uname = shell("trace-cmd report --uname -i " + path("t.dat"));
    EXPECT_NE(uname.out.find("scenario_sha256: "), std::string::npos) << uname.out;
    EXPECT_NE(uname.out.find("machine: haswell-2s\n"), std::string::npos) << uname.out;
}

// Every event of a short run, exits, page migrations and skipped VMAs among them.
TEST_F(TraceDat, TraceCmdReportPrintsAllEventsOfTheFtraceText) {
    const std::set<std::string> events =
        report_matches_text(dir_, "examples/streams.toml --duration 2s");
    if (!have_trace_cmd()) GTEST_SKIP() << "trace-cmd is not installed";
    for (const char* e :
         {"sched_switch", "sched_wakeup", "sched_migrate_task", "sched_process_fork",
          "sched_process_exit", "mm_migrate_pages", "sched_skip_vma_numa"})
        EXPECT_TRUE(events.count(e)) << e;
}

TEST_F(TraceDat, EventSelectionApplies) {
    const Output o = run_numasim(
        "run examples/streams.toml --duration 2s --trace-format trace-dat "
        "--trace-events sched_wakeup,migrate:* --trace " +
        path("t.dat"));
    ASSERT_EQ(o.status, 0) << o.out;
    if (!have_trace_cmd()) GTEST_SKIP() << "trace-cmd is not installed";
    const Output report = shell("trace-cmd report -N -i " + path("t.dat"));
    ASSERT_EQ(report.status, 0) << report.out.substr(0, 2000);
    std::set<std::string> events;
    for (const Line& l : event_lines(report.out, kReportLine))
        events.insert(l.event);
    EXPECT_EQ(events, (std::set<std::string>{"sched_wakeup", "mm_migrate_pages"}));
    // Only the selected events' format files are in the file.
    const Output formats = shell("trace-cmd dump --events -i " + path("t.dat"));
    EXPECT_EQ(formats.out.find("name: sched_switch"), std::string::npos) << formats.out;
    EXPECT_NE(formats.out.find("name: sched_wakeup"), std::string::npos) << formats.out;
}

TEST_F(TraceDat, OneFilePerIterationByteIdenticalForAnyJobs) {
    // The same command line but for -j (the provenance records the command line).
    for (const char* jobs : {"1", "2"}) {
        const Output o = run_numasim(
            "run examples/knobs.toml --duration 2s --iterations 2 --trace-format trace-dat -j " +
            std::string(jobs) + " --trace " + path("t.dat"));
        ASSERT_EQ(o.status, 0) << o.out;
        EXPECT_FALSE(fs::exists(path("t.dat")));
        for (const char* f : {"t-1.dat", "t-2.dat"})
            fs::rename(path(f), path(std::string(f) + ".j" + jobs));
    }
    for (const char* f : {"t-1.dat", "t-2.dat"}) {
        const std::string one = read_text(path(std::string(f) + ".j1"));
        EXPECT_GT(one.size(), 4096u) << f;
        EXPECT_TRUE(one == read_text(path(std::string(f) + ".j2"))) << f;
    }
    EXPECT_TRUE(read_text(path("t-1.dat.j1")) != read_text(path("t-2.dat.j1")))
        << "the iterations have seeds of their own";
}

}  // namespace
}  // namespace numasim::test
