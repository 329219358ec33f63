// `streams`: a workload described entirely in the scenario file - processes, their memory
// regions and, per thread, a list of phases of access streams. docs/scenario-workloads.md.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>

#include "config/input_error.h"
#include "config/limits.h"
#include "config/param_reader.h"
#include "config/toml_reader.h"
#include "engine/process.h"
#include "kernel/system.h"
#include "workload/common.h"
#include "workload/process_layout.h"
#include "workload/registry.h"

namespace numasim {

namespace {

enum class Kind { Private, Shared, File };
enum class FirstTouch { None, Node, Thread };

struct RegionSpec {
    std::string name;
    uint64_t size = 0;
    Kind kind = Kind::Private;
    bool thp = false;
    std::optional<MemPolicy> policy;
    FirstTouch first_touch = FirstTouch::None;
    int first_touch_node = 0;
    bool sliced = false;  // some stream uses per-thread slices of it
};

struct StreamSpec {
    int region = 0;
    AccessStream proto;  // everything but the region
    bool per_thread = false;
};

struct PhaseSpec {
    std::vector<StreamSpec> streams;
    double rate_gbs = 0;
    double work = 0;
    Nanos cpu_time = 0, sleep = 0;
    int64_t repeat = 1;
    std::optional<std::vector<int>> affinity;  // empty vector: all CPUs
    std::optional<MemPolicy> mempolicy;
    double ops_per_byte = 0, mlp = 0;
    bool exec = false;  // execve() at phase start: placed again by sched_exec()
};

struct ThreadSpec {
    std::vector<PhaseSpec> phases;
    bool loop = false;
};

struct ProcessSpec {
    std::string name;
    int count = 1;
    bool static_binary = false;  // gcc -static: no ld.so and shared libraries
    std::vector<RegionSpec> regions;
    std::vector<ThreadSpec> threads;  // one per thread
    // [workload.process.main]: a main thread apart from `threads`, which writes the first_touch
    // regions, runs `before`, creates the threads, runs `after`, then joins them.
    bool join = false;
    std::vector<PhaseSpec> before, after;
};

// image = "dynamic" (a PIE linked against glibc) or "static" (gcc -static).
constexpr std::array<std::pair<bool, std::string_view>, 2> kImages = {
    {{false, "dynamic"}, {true, "static"}}};

// A phase's rate: ten times the bandwidth of a whole HBM3 stack (~800 GB/s); more is a typo,
// and near-infinite rates make a phase's bytes per nanosecond overflow.
constexpr double kMaxRateGbs = 10000;

// The N of "node:N": a decimal node number, or -1 if `s` is anything else ("abc", "1x", "").
int parse_node(std::string_view s) {
    int n = -1;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
    return ec == std::errc() && end == s.data() + s.size() ? n : -1;
}

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
    return topo.nodes[n].cpus;
}

std::optional<MemPolicy> read_policy(const TomlTable& t, const Topology& topo, const char* key) {
    if (!t.has(key)) return std::nullopt;
    MpolMode m;
    if (!parse_mpol_mode(t.get_string(key), m))
        t.fail(key, "unknown policy (default, bind, interleave, preferred, local)");
    MemPolicy p = make_policy(m, 0);
    if (m == MpolMode::Bind || m == MpolMode::Interleave || m == MpolMode::Preferred) {
        if (!t.has("nodes")) t.fail(key, fmt::format("policy '{}' needs `nodes`", to_string(m)));
        for (int64_t n : t.get_int_array("nodes")) {
            if (n < 0 || n >= topo.nr_nodes())
                t.fail("nodes", fmt::format("node {} does not exist", n));
            p.nodes |= node_bit(static_cast<int>(n));
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
        r.kind = Kind::Private;
    else if (k == "shared")
        r.kind = Kind::Shared;
    else if (k == "file")
        r.kind = Kind::File;
    else
        t.fail("kind", "unknown kind '" + k + "' (private, shared, file)");
    params.flag("thp", r.thp);
    if (r.thp && r.kind == Kind::File) t.fail("thp", "THP applies to anonymous memory only");
    if (r.size > topo.total_mem_bytes())
        t.fail("size", fmt::format("{:.1f} GiB but the machine has {:.1f} GiB of memory",
                                   r.size / 1073741824.0, topo.total_mem_bytes() / 1073741824.0));
    r.policy = read_policy(t, topo, "policy");
    if (r.policy && r.policy->mode == MpolMode::Bind) {
        uint64_t bound = 0;
        for (int n = 0; n < topo.nr_nodes(); ++n)
            if (r.policy->nodes & node_bit(n)) bound += topo.nodes[n].mem_bytes;
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

class Streams : public Workload {
  public:
    Streams(const TomlTable& t, const Topology& topo) {
        name_ = t.get_string("name", "streams");
        const auto procs = t.tables("process");
        if (procs.empty())
            t.fail_here("a streams workload needs at least one [[workload.process]]");
        for (size_t i = 0; i < procs.size(); ++i)
            specs_.push_back(read_process(procs[i], topo, static_cast<int>(i)));
    }

    void setup(System& sys, int index) override {
        sys_ = &sys;
        index_ = index;
        int ti = 0;
        for (size_t pi = 0; pi < specs_.size(); ++pi) {
            const ProcessSpec& ps = specs_[pi];
            std::vector<std::shared_ptr<MemObject>> objects(ps.regions.size());
            for (int inst = 0; inst < ps.count; ++inst) {
                const std::string comm =
                    ps.count > 1 ? fmt::format("{}.{}", ps.name, inst) : ps.name;
                const std::string path = "/usr/local/bin/" + ps.name;
                procs_.push_back(Process::exec(
                    sys, ps.static_binary ? static_c_program(path) : dynamic_c_program(path)));
                Process& pr = *procs_.back();
                for (size_t r = 0; r < ps.regions.size(); ++r)
                    map_region(pr, ps, ps.regions[r], objects[r]);
                const int nthreads = static_cast<int>(ps.threads.size());
                if (ps.join) {
                    pr.start(nullptr, comm, make_main(pr, ps, ti, comm), index, ti + nthreads);
                    ti += nthreads + 1;
                    continue;
                }
                const bool init = std::any_of(
                    ps.regions.begin(), ps.regions.end(),
                    [](const RegionSpec& r) { return r.first_touch != FirstTouch::None; });
                Task& leader =
                    pr.start(nullptr, comm, make_program(pr, ps, 0, init, ti, comm), index, ti);
                if (!init) spawn(pr, leader, ps, 1, ti, comm);
                ti += nthreads;
            }
        }
    }

    WorkloadResult result(const System& sys) const override {
        const auto tasks = workload_tasks(sys, index_);
        const RunTimes rt = run_times(sys, tasks);
        WorkloadResult r;
        double ops = 0, bytes = 0;
        for (const Task* t : tasks) {
            r.tasks.push_back({task_figures(sys, *t), {}});
            ops += t->total_ops;
            bytes += t->total_bytes;
        }
        const double elapsed = ns_to_s(rt.end - rt.start);
        r.figures = {{"name", name_},       {"finished", rt.finished}, {"elapsed_s", elapsed},
                     {"user_s", rt.user_s}, {"system_s", rt.sys_s},    {"ops", ops},
                     {"bytes", bytes}};
        r.summary =
            fmt::format("streams {}: {} tasks, elapsed {:.2f} s, {:.3f} GB moved, {:.0f} ops\n",
                        name_, tasks.size(), elapsed, bytes / 1e9, ops);
        return r;
    }

  private:
    void map_region(Process& pr, const ProcessSpec& ps, const RegionSpec& r,
                    std::shared_ptr<MemObject>& obj) {
        // Shared and file regions are the same pages in every instance of the process.
        uint32_t flags = VM_READ | VM_WRITE;
        if (r.kind == Kind::Shared) flags |= VM_SHARED;
        if (r.kind == Kind::File) flags |= VM_FILE;
        if (r.thp) flags |= VM_HUGEPAGE;
        const uint64_t pages = (r.size + PAGE_SIZE - 1) / PAGE_SIZE;
        if (r.kind != Kind::Private && !obj)
            obj = std::make_shared<MemObject>(pages, r.kind == Kind::File);
        Vma& v = pr.mmap(r.size, r.name, flags, r.kind == Kind::Private ? nullptr : obj);
        v.policy = r.policy;
        pr.region(v, 0, pages, r.name);
        const uint64_t n = ps.threads.size(), slice = std::max<uint64_t>(1, pages / n);
        if (r.sliced)
            for (uint64_t i = 0; i < n; ++i)
                pr.region(v, std::min(i * slice, pages - slice), slice,
                          fmt::format("{}#{}", r.name, i));
    }

    // pthread_create() of threads [from, n) of the process by `creator`.
    void spawn(Process& pr, Task& creator, const ProcessSpec& ps, size_t from, int first_ti,
               const std::string& comm) {
        for (size_t i = from; i < ps.threads.size(); ++i)
            pr.pthread_create(creator, comm,
                              make_program(pr, ps, static_cast<int>(i), false, first_ti, comm),
                              first_ti + static_cast<int>(i));
    }

    // The first-touch phase of region r (bound to its node for "node:N").
    static void first_touch_phase(Phase& ph, const RegionSpec& r, Mm& mm) {
        ph.rate_gbs = BZERO_RATE_GBS;
        ph.streams.push_back({.region = find_region(mm, r.name), .write_fraction = 1.0});
        ph.work_bytes = static_cast<double>(r.size);
        ph.set_mempolicy = r.first_touch == FirstTouch::Node
                               ? make_policy(MpolMode::Bind, node_bit(r.first_touch_node))
                               : MemPolicy{};
    }

    // [workload.process.main]: first_touch regions, `before`, pthread_create() of every
    // thread, `after`, pthread_join().
    std::unique_ptr<TaskProgram> make_main(Process& pr, const ProcessSpec& ps, int first_ti,
                                           const std::string& comm) {
        enum Stage { Touch, Before, Spawn, After, Join, Done };
        Stage stage = Touch;
        size_t i = 0;
        int64_t rep = 0;
        bool restore = false;
        return std::make_unique<FnProgram>(
            [this, &pr, &ps, first_ti, comm, stage, i, rep, restore](Task& t, Phase& ph) mutable {
                // The next phase of `list` (honouring `repeat`), or false when it is done.
                auto next = [&](const std::vector<PhaseSpec>& list) {
                    if (i >= list.size()) return false;
                    fill(ph, list[i], *t.mm, ps, 0);
                    if (++rep >= list[i].repeat) {
                        rep = 0;
                        ++i;
                    }
                    return true;
                };
                for (;;) {
                    switch (stage) {
                        case Touch:
                            while (i < ps.regions.size()) {
                                const RegionSpec& r = ps.regions[i++];
                                if (r.first_touch == FirstTouch::None) continue;
                                first_touch_phase(ph, r, *t.mm);
                                restore = true;
                                return true;
                            }
                            stage = Before;
                            i = 0;
                            break;
                        case Before:
                            if (next(ps.before)) {
                                if (restore && !ph.set_mempolicy) ph.set_mempolicy = MemPolicy{};
                                restore = false;
                                return true;
                            }
                            stage = Spawn;
                            break;
                        case Spawn:
                            // Threads inherit the creator's policy: a first-touch binding ends
                            // here.
                            if (restore) {
                                t.mempolicy = MemPolicy{};
                                t.has_mempolicy = false;
                            }
                            spawn(pr, t, ps, 0, first_ti, comm);
                            stage = After;
                            i = 0;
                            break;
                        case After:
                            if (next(ps.after)) return true;
                            stage = Join;
                            break;
                        case Join:
                            stage = Done;
                            ph.cpu_time = NSEC_PER_USEC;
                            ph.join = true;
                            return true;
                        case Done:
                            return false;
                    }
                }
            });
    }

    static void fill(Phase& ph, const PhaseSpec& s, Mm& mm, const ProcessSpec& ps, int thread) {
        for (const StreamSpec& ss : s.streams) {
            AccessStream a = ss.proto;
            const std::string& rn = ps.regions[ss.region].name;
            a.region = find_region(mm, ss.per_thread ? fmt::format("{}#{}", rn, thread) : rn);
            ph.streams.push_back(a);
        }
        ph.rate_gbs = s.rate_gbs > 0 ? s.rate_gbs : 1.0;
        ph.work_bytes = s.work;
        ph.cpu_time = s.cpu_time;
        if (s.streams.empty() && s.cpu_time <= 0) ph.cpu_time = NSEC_PER_USEC;  // a pure sleep
        ph.sleep_after = s.sleep;
        if (s.affinity) {
            if (s.affinity->empty())
                ph.clear_affinity = true;
            else
                ph.set_affinity = *s.affinity;
        }
        ph.set_mempolicy = s.mempolicy;
        ph.exec = s.exec;
        ph.ops_per_byte = s.ops_per_byte;
        ph.mlp = s.mlp;
    }

    // Thread 0 of a process with first_touch regions writes them first (bound to the node for
    // "node:N"), then starts the other threads; every thread then runs its phase list.
    std::unique_ptr<TaskProgram> make_program(Process& pr, const ProcessSpec& ps, int thread,
                                              bool init, int first_ti, const std::string& comm) {
        size_t init_next = init ? 0 : ps.regions.size();
        bool restore = false;
        size_t phase = 0;
        int64_t rep = 0;
        return std::make_unique<FnProgram>([this, &pr, &ps, thread, init, first_ti, comm, init_next,
                                            restore, phase, rep](Task& t, Phase& ph) mutable {
            while (init_next < ps.regions.size()) {
                const RegionSpec& r = ps.regions[init_next++];
                if (r.first_touch == FirstTouch::None) continue;
                first_touch_phase(ph, r, *t.mm);
                restore = true;
                return true;
            }
            if (init) {
                init = false;
                // The binding ends before the threads are created (they inherit the policy).
                if (restore) {
                    t.mempolicy = MemPolicy{};
                    t.has_mempolicy = false;
                }
                spawn(pr, t, ps, 1, first_ti, comm);
            }
            const ThreadSpec& ts = ps.threads[thread];
            if (phase >= ts.phases.size()) {
                if (!ts.loop) return false;
                phase = 0;
            }
            fill(ph, ts.phases[phase], *t.mm, ps, thread);
            if (restore && !ph.set_mempolicy) ph.set_mempolicy = MemPolicy{};
            restore = false;
            if (++rep >= ts.phases[phase].repeat) {
                rep = 0;
                ++phase;
            }
            return true;
        });
    }

    std::string name_;
    std::vector<ProcessSpec> specs_;
    System* sys_ = nullptr;
    int index_ = 0;
    std::vector<std::unique_ptr<Process>> procs_;
};

const WorkloadRegistrar reg(
    "streams", "generic workload described in the scenario (processes, regions, phases)",
    [](const TomlTable& t, const Topology& m) { return std::make_unique<Streams>(t, m); });

}  // namespace

}  // namespace numasim
