#include "program/streams_spec.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>

#include "config/input_error.h"
#include "config/limits.h"
#include "config/param_reader.h"
#include "config/toml_reader.h"
#include "machine/topology.h"
#include "program/fits_machine.h"

namespace numasim {

namespace {

// image = "dynamic" (a PIE linked against glibc) or "static" (gcc -static).
constexpr std::array<std::pair<bool, std::string_view>, 2> kImages = {
    {{false, "dynamic"}, {true, "static"}}};

// A stream's share is a relative weight; a million to one is far past what any two streams of
// one phase differ by, and keeps the phase's total finite (two shares of 1e308 summed to
// infinity, and every share then normalised to zero while the phase still moved bytes).
constexpr double kMaxStreamShare = 1e6;
// Operations a phase counts per byte it moves: a million is a loop doing a million operations
// per byte, far past any benchmark's (specjbb counts a transaction per ~100 KB); without a bound,
// bytes times a huge ratio printed `inf ops`.
constexpr double kMaxOpsPerByte = 1e6;

// The N of "node:N": a decimal node number, or -1 if `s` is anything else ("abc", "1x", "").
int parse_node(std::string_view s) {
    int n = -1;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
    return ec == std::errc() && end == s.data() + s.size() ? n : -1;
}

}  // namespace

// "node:N" -> node N's CPUs; [1, 2] -> those CPUs; "all" -> every CPU (empty list).
std::vector<int> read_affinity(const TomlTable& t, const Topology& topo) {
    std::string s;
    try {
        s = t.get_string("affinity");
    } catch (const InputError&) {
        std::vector<int> out;
        for (int64_t c : t.get_int_array("affinity")) {
            if (c < 0 || c >= topo.nr_cpus())
                t.fail("affinity", fmt::format("CPU {} does not exist", c));
            out.push_back(static_cast<int>(c));
        }
        if (out.empty()) t.fail("affinity", "empty CPU list");
        return out;
    }
    if (s == "all") return {};
    int n = -1;
    if (s.rfind("node:", 0) == 0) n = parse_node(s.substr(5));
    if (n < 0 || n >= topo.nr_nodes())
        t.fail("affinity", "expected a CPU list, \"node:N\" with an existing node, or \"all\"");
    // An empty mask would read as "all"; sched_setaffinity() refuses it with EINVAL.
    if (topo.nodes[n].cpus.empty())
        t.fail("affinity", fmt::format("node {} has no CPUs (a memory-only node)", n));
    return topo.nodes[n].cpus;
}

std::optional<MemPolicy> read_policy(const TomlTable& t, const Topology& topo, const char* key) {
    if (!t.has(key)) return std::nullopt;
    MpolMode m;
    if (!parse_mpol_mode(t.get_string(key), m))
        t.fail(key, "unknown policy (default, bind, interleave, preferred, local)");
    MemPolicy p{.mode = m, .nodes = 0, .flags = 0};
    if (m == MpolMode::Bind || m == MpolMode::Interleave || m == MpolMode::Preferred) {
        if (!t.has("nodes")) t.fail(key, fmt::format("policy '{}' needs `nodes`", to_string(m)));
        for (int64_t n : t.get_int_array("nodes")) {
            if (n < 0 || n >= topo.nr_nodes())
                t.fail("nodes", fmt::format("node {} does not exist", n));
            if (n >= kMaxPolicyNodes)
                t.fail("nodes", fmt::format("node {}: memory policies take nodes 0..{} (the "
                                            "model's node mask is 64 bits)",
                                            n, kMaxPolicyNodes - 1));
            p.nodes |= uint64_t{1} << n;
        }
        if (!p.nodes) t.fail("nodes", "empty node list");
    }
    return p;
}

namespace {

RegionSpec read_region(const TomlTable& t, const Topology& topo) {
    RegionSpec r;
    r.name = t.get_string("name");
    r.size = t.get_size("size");
    ParamReader params(t);
    params.size("size", r.size, topo.hw.pages.size());
    const std::string k = t.get_string("kind", "private");
    if (k == "private")
        r.kind = RegionKind::Private;
    else if (k == "shared")
        r.kind = RegionKind::Shared;
    else if (k == "file")
        r.kind = RegionKind::File;
    else
        t.fail("kind", "unknown kind '" + k + "' (private, shared, file)");
    params.flag("thp", r.thp);
    if (r.thp && r.kind == RegionKind::File) t.fail("thp", "THP applies to anonymous memory only");
    check_fits_machine(params, "size", r.size, topo);
    r.policy = read_policy(t, topo, "policy");
    if (r.policy && r.policy->mode == MpolMode::Bind) {
        uint64_t bound = 0;
        for (int n = 0; n < topo.nr_nodes(); ++n)
            if (r.policy->has_node(n)) bound += topo.nodes[n].mem_bytes;
        if (r.size > bound)
            t.fail("size", fmt::format("{:.1f} GiB bound to nodes with {:.1f} GiB of memory",
                                       r.size / 1073741824.0, bound / 1073741824.0));
    }
    const std::string ft = t.get_string("first_touch", "none");
    if (ft == "none") {
        r.first_touch = FirstTouch::None;
    } else if (ft == "thread") {
        r.first_touch = FirstTouch::Thread;
    } else if (ft.rfind("node:", 0) == 0) {
        r.first_touch = FirstTouch::Node;
        r.first_touch_node = parse_node(ft.substr(5));
        if (r.first_touch_node < 0 || r.first_touch_node >= topo.nr_nodes())
            t.fail("first_touch", fmt::format("'{}': no such node (the machine has nodes 0..{})",
                                              ft, topo.nr_nodes() - 1));
        if (r.first_touch_node >= kMaxPolicyNodes)
            t.fail("first_touch", fmt::format("'{}': first touch binds to nodes 0..{} only (the "
                                              "model's node mask is 64 bits)",
                                              ft, kMaxPolicyNodes - 1));
    } else {
        t.fail("first_touch", "expected \"none\", \"thread\" or \"node:N\"");
    }
    t.finish();
    return r;
}

StreamSpec read_stream(const TomlTable& t, std::vector<RegionSpec>& regions) {
    StreamSpec s;
    const std::string name = t.get_string("region");
    auto it = std::find_if(regions.begin(), regions.end(),
                           [&](const RegionSpec& r) { return r.name == name; });
    if (it == regions.end()) t.fail("region", "no region named '" + name + "' in this process");
    s.region = static_cast<int>(it - regions.begin());
    const std::string pat = t.get_string("pattern", "sweep");
    if (pat == "sweep")
        s.proto.pattern = Pattern::Sweep;
    else if (pat == "random")
        s.proto.pattern = Pattern::Random;
    else if (pat == "hotset")
        s.proto.pattern = Pattern::HotSet;
    else
        t.fail("pattern", "unknown pattern '" + pat + "' (sweep, random, hotset)");
    ParamReader r(t);
    r.positive("share", s.proto.share, kMaxStreamShare);
    r.number("write_fraction", s.proto.write_fraction, 0, 1);
    r.number("hot_fraction", s.proto.hot_fraction, 0, 1);
    r.number("hot_share", s.proto.hot_share, 0, 1);
    r.flag("per_thread", s.per_thread);
    if (s.per_thread) it->sliced = true;
    t.finish();
    return s;
}

PhaseSpec read_phase(const TomlTable& t, std::vector<RegionSpec>& regions, const Topology& topo) {
    PhaseSpec p;
    for (const TomlTable& s : t.tables("streams"))
        p.streams.push_back(read_stream(s, regions));
    double total = 0;
    for (const StreamSpec& s : p.streams)
        total += s.proto.share;
    for (StreamSpec& s : p.streams)
        s.proto.share /= total;  // shares are relative weights
    if (t.has("work")) p.work = static_cast<double>(t.get_size("work"));
    p.cpu_time = t.get_duration_ns("cpu_time", 0);
    p.sleep = t.get_duration_ns("sleep", 0);
    ParamReader r(t);
    if (!p.streams.empty()) {
        p.rate_gbs = t.get_double("rate_gbs");
        r.positive("rate_gbs", p.rate_gbs, kMaxRateGbs);
        if (p.work <= 0 && p.cpu_time <= 0)
            t.fail_here("a phase with streams needs `work` (bytes) or `cpu_time`");
    } else if (p.work > 0) {
        t.fail("work", "a phase without streams moves no bytes; use cpu_time or sleep");
    }
    if (p.streams.empty() && p.cpu_time <= 0 && p.sleep <= 0 && !t.has("affinity") &&
        !t.has("policy") && !t.has("exec"))
        t.fail_here("empty phase: give streams, cpu_time or sleep");
    r.integer("repeat", p.repeat, 1);
    if (t.has("affinity")) p.affinity = read_affinity(t, topo);
    p.mempolicy = read_policy(t, topo, "policy");
    r.number("ops_per_byte", p.ops_per_byte, 0, kMaxOpsPerByte);
    r.number("mlp", p.mlp, 0, kMaxPhaseMlp);
    r.flag("exec", p.exec);
    t.finish();
    return p;
}

ProcessSpec read_process(const TomlTable& t, const Topology& topo, int idx) {
    ProcessSpec ps;
    ps.name = t.get_string("name", fmt::format("proc{}", idx));
    ParamReader params(t);
    params.integer("count", ps.count, 1, kMaxTasks);
    for (const TomlTable& r : t.tables("region")) {
        ps.regions.push_back(read_region(r, topo));
        for (size_t i = 0; i + 1 < ps.regions.size(); ++i)
            if (ps.regions[i].name == ps.regions.back().name)
                r.fail("name", "duplicate region name '" + ps.regions.back().name + "'");
    }
    params.choice("image", ps.static_binary, kImages);
    if (auto m = t.table("main")) {
        ps.join = true;
        for (const TomlTable& ph : m->tables("before"))
            ps.before.push_back(read_phase(ph, ps.regions, topo));
        for (const TomlTable& ph : m->tables("after"))
            ps.after.push_back(read_phase(ph, ps.regions, topo));
        for (const auto& v : {ps.before, ps.after})
            for (const PhaseSpec& p : v)
                for (const StreamSpec& st : p.streams)
                    if (st.per_thread) m->fail_here("the main thread has no per_thread slice");
        m->finish();
    }
    const auto tts = t.tables("thread");
    if (tts.empty()) t.fail_here("a process needs at least one [[...thread]] table");
    const bool has_threads = t.has("threads");
    int64_t nthreads = 1;
    params.integer("threads", nthreads, 1, kMaxTasks);
    for (const TomlTable& tt : tts) {
        ThreadSpec ts;
        ParamReader thread(tt);
        // One template without `count` describes every thread of the process.
        int64_t count = tts.size() == 1 && has_threads ? nthreads : 1;
        thread.integer("count", count, 1, kMaxTasks);
        if (static_cast<int64_t>(ps.threads.size()) + count > kMaxTasks)
            tt.fail("count", fmt::format("the process would have more than {} threads", kMaxTasks));
        thread.flag("loop", ts.loop);
        for (const TomlTable& ph : tt.tables("phases"))
            ts.phases.push_back(read_phase(ph, ps.regions, topo));
        if (ts.phases.empty()) tt.fail("phases", "a thread needs at least one phase");
        tt.finish();
        for (int64_t i = 0; i < count; ++i)
            ps.threads.push_back(ts);
    }
    if (int64_t{ps.count} * static_cast<int64_t>(ps.threads.size()) > kMaxTasks)
        t.fail("count", fmt::format("{} instances x {} threads is more than {} tasks", ps.count,
                                    ps.threads.size(), kMaxTasks));
    if (has_threads && static_cast<int64_t>(ps.threads.size()) != nthreads)
        t.fail("threads", fmt::format("is {} but the thread tables describe {} threads", nthreads,
                                      ps.threads.size()));
    t.finish();
    return ps;
}

}  // namespace

bool ProcessSpec::has_first_touch() const {
    return std::any_of(regions.begin(), regions.end(),
                       [](const RegionSpec& r) { return r.first_touch != FirstTouch::None; });
}

StreamsSpec read_streams_spec(const TomlTable& t, const Topology& topo) {
    StreamsSpec s;
    s.name = t.get_string("name", "streams");
    const auto procs = t.tables("process");
    if (procs.empty()) t.fail_here("a streams workload needs at least one [[workload.process]]");
    for (size_t i = 0; i < procs.size(); ++i)
        s.processes.push_back(read_process(procs[i], topo, static_cast<int>(i)));
    return s;
}

namespace {

// The least simulated time a phase can last: its CPU time, its sleep, and its bytes at the
// highest rate a phase may ask for (1 GB/s is a byte per nanosecond).
double min_phase_ns(const PhaseSpec& p) {
    return static_cast<double>(p.cpu_time + p.sleep) + p.work / kMaxRateGbs;
}

// The most phases one thread running `phases` can start in `seconds`: every start it has, or as
// many as fit when each lasts its least; a looping list has no end of its own.
double phase_starts(const std::vector<PhaseSpec>& phases, bool loop, double seconds) {
    double starts = 0, ns = 0;
    for (const PhaseSpec& p : phases) {
        starts += static_cast<double>(p.repeat);
        ns += static_cast<double>(p.repeat) * min_phase_ns(p);
    }
    const double fit = ns > 0 ? starts * seconds * 1e9 / ns : HUGE_VAL;
    return loop ? fit : std::min(starts, fit);
}

}  // namespace

double StreamsSpec::phase_starts(double seconds) const {
    double total = 0;
    for (const ProcessSpec& ps : processes) {
        double one = numasim::phase_starts(ps.before, false, seconds) +
                     numasim::phase_starts(ps.after, false, seconds);
        for (const ThreadSpec& ts : ps.threads)
            one += numasim::phase_starts(ts.phases, ts.loop, seconds);
        total += one * ps.count;
    }
    return total;
}

PageSlice thread_slice(uint64_t pages, uint64_t threads, uint64_t thread) {
    const uint64_t slice = std::max<uint64_t>(1, pages / threads);
    return {std::min(thread * slice, pages - slice), slice};
}

}  // namespace numasim
