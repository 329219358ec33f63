#include "program/streams_spec.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

#include "config/input_error.h"
#include "config/param_reader.h"
#include "config/toml_reader.h"
#include "machine/topology.h"
#include "mm/page.h"

namespace numasim {

namespace {

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
    if (s.rfind("node:", 0) == 0) n = std::atoi(s.c_str() + 5);
    if (n < 0 || n >= topo.nr_nodes() || s.size() <= 5)
        t.fail("affinity", "expected a CPU list, \"node:N\" with an existing node, or \"all\"");
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
            p.nodes |= uint64_t{1} << n;
        }
        if (!p.nodes) t.fail("nodes", "empty node list");
    }
    return p;
}

RegionSpec read_region(const TomlTable& t, const Topology& topo) {
    RegionSpec r;
    r.name = t.get_string("name");
    r.size = t.get_size("size");
    ParamReader params(t);
    params.size("size", r.size, PAGE_SIZE);
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
    r.policy = read_policy(t, topo, "policy");
    const std::string ft = t.get_string("first_touch", "none");
    if (ft == "none") {
        r.first_touch = FirstTouch::None;
    } else if (ft == "thread") {
        r.first_touch = FirstTouch::Thread;
    } else if (ft.rfind("node:", 0) == 0 && ft.size() > 5) {
        r.first_touch = FirstTouch::Node;
        r.first_touch_node = std::atoi(ft.c_str() + 5);
        if (r.first_touch_node < 0 || r.first_touch_node >= topo.nr_nodes())
            t.fail("first_touch", "node does not exist");
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
    r.positive("share", s.proto.share);
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
        r.positive("rate_gbs", p.rate_gbs);
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
    r.number("ops_per_byte", p.ops_per_byte, 0);
    r.number("mlp", p.mlp, 0);
    r.flag("exec", p.exec);
    t.finish();
    return p;
}

ProcessSpec read_process(const TomlTable& t, const Topology& topo, int idx) {
    ProcessSpec ps;
    ps.name = t.get_string("name", fmt::format("proc{}", idx));
    ParamReader params(t);
    params.integer("count", ps.count, 1);
    for (const TomlTable& r : t.tables("region")) {
        ps.regions.push_back(read_region(r, topo));
        for (size_t i = 0; i + 1 < ps.regions.size(); ++i)
            if (ps.regions[i].name == ps.regions.back().name)
                r.fail("name", "duplicate region name '" + ps.regions.back().name + "'");
    }
    const auto tts = t.tables("thread");
    if (tts.empty()) t.fail_here("a process needs at least one [[...thread]] table");
    const bool has_threads = t.has("threads");
    int64_t nthreads = 1;
    params.integer("threads", nthreads, 1);
    for (const TomlTable& tt : tts) {
        ThreadSpec ts;
        ParamReader thread(tt);
        // One template without `count` describes every thread of the process.
        int64_t count = tts.size() == 1 && has_threads ? nthreads : 1;
        thread.integer("count", count, 1);
        thread.flag("loop", ts.loop);
        for (const TomlTable& ph : tt.tables("phases"))
            ts.phases.push_back(read_phase(ph, ps.regions, topo));
        if (ts.phases.empty()) tt.fail("phases", "a thread needs at least one phase");
        tt.finish();
        for (int64_t i = 0; i < count; ++i)
            ps.threads.push_back(ts);
    }
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

bool StreamsSpec::finite() const {
    for (const ProcessSpec& p : processes)
        for (const ThreadSpec& t : p.threads)
            if (t.loop) return false;
    return true;
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

PageSlice thread_slice(uint64_t pages, uint64_t threads, uint64_t thread) {
    const uint64_t slice = std::max<uint64_t>(1, pages / threads);
    return {std::min(thread * slice, pages - slice), slice};
}

}  // namespace numasim
