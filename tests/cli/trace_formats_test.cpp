// --trace-format=perfetto checked against the Trace Event Format (the "JSON Object Format" of
// Google's Trace Event Format document, which ui.perfetto.dev and chrome://tracing read), and
// the ftrace text against the layout kernel tools parse.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <string>

#include "numasim_process.h"

namespace numasim::test {
namespace {

namespace fs = std::filesystem;

std::string temp(const std::string& name) {
    return scratch_path(name);
}

// One event of the format: the fields every phase needs and the ones its own phase needs.
void check_event(const nlohmann::json& e, std::set<std::string>& phases) {
    ASSERT_TRUE(e.is_object());
    ASSERT_TRUE(e.contains("ph") && e["ph"].is_string()) << e;
    const std::string ph = e["ph"];
    phases.insert(ph);
    ASSERT_TRUE(e.contains("name") && e["name"].is_string()) << e;
    ASSERT_TRUE(e.contains("pid") && e["pid"].is_number_integer()) << e;
    if (e.contains("args")) {
        ASSERT_TRUE(e["args"].is_object()) << e;
    }
    if (ph == "M") {
        const std::set<std::string> meta = {"process_name", "process_sort_index", "thread_name",
                                            "thread_sort_index", "process_labels"};
        EXPECT_TRUE(meta.count(e["name"])) << e;
        EXPECT_TRUE(e.contains("args")) << e;
        return;
    }
    ASSERT_TRUE(e.contains("ts") && e["ts"].is_number()) << e;
    EXPECT_GE(e["ts"].get<double>(), 0.0);
    if (ph == "X") {
        ASSERT_TRUE(e.contains("dur") && e["dur"].is_number()) << e;
        EXPECT_GE(e["dur"].get<double>(), 0.0) << e;
        EXPECT_TRUE(e.contains("tid") && e["tid"].is_number_integer()) << e;
    } else if (ph == "i" || ph == "I") {
        ASSERT_TRUE(e.contains("s")) << e;
        EXPECT_TRUE(e["s"] == "t" || e["s"] == "p" || e["s"] == "g") << e;
    } else if (ph == "C") {
        ASSERT_TRUE(e.contains("args")) << e;
        for (const auto& [k, v] : e["args"].items())
            EXPECT_TRUE(v.is_number()) << k;
    } else {
        ADD_FAILURE() << "unexpected phase " << ph;
    }
}

TEST(Perfetto, FileFollowsTheTraceEventFormat) {
    const std::string path = temp("numasim_trace.json");
    const Output o = run_numasim(
        "run examples/knobs.toml --duration 4s --trace-format=perfetto "
        "--trace " +
        path);
    ASSERT_EQ(o.status, 0) << o.out;
    const auto j = nlohmann::json::parse(read_text(path));
    ASSERT_TRUE(j.is_object());
    ASSERT_TRUE(j["traceEvents"].is_array());
    EXPECT_EQ(j["displayTimeUnit"], "ns");
    EXPECT_TRUE(j["otherData"].contains("scenario_sha256"));
    std::set<std::string> phases;
    std::map<int, std::vector<std::pair<double, double>>> slices;  // per CPU track
    std::set<std::string> instants, counters;
    std::set<int> named_threads;
    for (const auto& e : j["traceEvents"]) {
        check_event(e, phases);
        if (::testing::Test::HasFatalFailure()) return;
        const std::string ph = e["ph"];
        if (ph == "M" && e["name"] == "thread_name") named_threads.insert(e["tid"].get<int>());
        if (ph == "X")
            slices[e["tid"].get<int>()].emplace_back(
                e["ts"].get<double>(), e["ts"].get<double>() + e["dur"].get<double>());
        if (ph == "i") instants.insert(e["name"].get<std::string>());
        if (ph == "C") counters.insert(e["name"].get<std::string>());
    }
    EXPECT_EQ(phases, (std::set<std::string>{"M", "X", "i", "C"}));
    // Per-CPU tracks: one named thread per CPU of tiny-4n, slices on them that never overlap.
    EXPECT_EQ(named_threads.size(), 4u);
    for (auto& [tid, v] : slices) {
        EXPECT_TRUE(named_threads.count(tid)) << tid;
        std::sort(v.begin(), v.end());
        for (size_t k = 1; k < v.size(); ++k)
            EXPECT_LE(v[k - 1].second, v[k].first + 1e-9) << "CPU track " << tid;
    }
    EXPECT_TRUE(instants.count("mm_migrate_pages"));
    EXPECT_TRUE(counters.count("numa_hint_faults"));
    EXPECT_TRUE(counters.count("node0 MemFree kB"));
}

TEST(Perfetto, EventSelectionApplies) {
    const std::string path = temp("numasim_trace_sel.json");
    const Output o = run_numasim(
        "run examples/knobs.toml --duration 3s --trace-format perfetto "
        "--trace-events sched:* --trace " +
        path);
    ASSERT_EQ(o.status, 0) << o.out;
    const auto j = nlohmann::json::parse(read_text(path));
    for (const auto& e : j["traceEvents"])
        EXPECT_NE(e["name"], "mm_migrate_pages");
}

TEST(FtraceText, EveryLineParsesAsTraceOutput) {
    const std::string path = temp("numasim_trace.txt");
    const Output o = run_numasim("run examples/knobs.toml --duration 3s --trace " + path);
    ASSERT_EQ(o.status, 0) << o.out;
    const std::string text = read_text(path);
    // The regular expression of trace-cmd's and perf's text parsers, in essence: task-pid,
    // [cpu], five flag characters, secs.usecs, event name, fields.
    const std::regex line(
        R"(^ *(.{1,16})-(\d+) +\[(\d{3})\] ([.dNnhHsSbB0-9]{5}) +(\d+)\.(\d{6}): ([a-z_]+): (.*)$)");
    std::istringstream in(text);
    std::string l;
    std::set<std::string> events;
    uint64_t entries = 0;
    double last = 0;
    std::smatch m;
    while (std::getline(in, l)) {
        if (l.starts_with("#")) continue;  // header, provenance, the final numa_maps
        ASSERT_TRUE(std::regex_match(l, m, line)) << l;
        events.insert(m[7]);
        const double t = std::stod(m[5].str() + "." + m[6].str());
        EXPECT_GE(t, last) << l;
        last = t;
        ++entries;
    }
    std::smatch h;
    ASSERT_TRUE(std::regex_search(text, h, std::regex(R"(entries-written: (\d+)/(\d+) +#P:4)")));
    EXPECT_EQ(std::stoull(h[1]), entries);
    for (const char* e : {"sched_switch", "sched_process_fork", "mm_migrate_pages"})
        EXPECT_TRUE(events.count(e)) << e;
}

TEST(FtraceText, OneFilePerIteration) {
    const fs::path dir = scratch_path("numasim_trace_iter");
    fs::create_directories(dir);
    const Output o = run_numasim("run examples/knobs.toml --duration 2s --iterations 2 --trace " +
                                 (dir / "t.txt").string());
    ASSERT_EQ(o.status, 0) << o.out;
    EXPECT_FALSE(fs::exists(dir / "t.txt"));
    for (const char* f : {"t-1.txt", "t-2.txt"}) {
        const std::string text = read_text((dir / f).string());
        EXPECT_EQ(text.rfind("# tracer: nop\n", 0), 0u) << f;
    }
    EXPECT_NE(read_text((dir / "t-1.txt").string()).find("# seed: "), std::string::npos);
}

}  // namespace
}  // namespace numasim::test
