// `streams`: a workload described entirely in the scenario file - processes, their memory
// regions and, per thread, a list of phases of access streams. The description is read once
// (program/streams_spec.h); the oracle's guest runs the same one on a real kernel
// (guest/streams.cpp). docs/scenario-workloads.md.
#include <fmt/format.h>

#include <algorithm>
#include <memory>

#include "engine/process.h"
#include "kernel/system.h"
#include "program/streams_spec.h"
#include "workload/common.h"
#include "workload/process_layout.h"
#include "workload/registry.h"

namespace numasim {

namespace {

class Streams : public Workload {
  public:
    Streams(const TomlTable& t, const Topology& topo) : spec_(read_streams_spec(t, topo)) {}

    double phase_starts(double seconds) const override { return spec_.phase_starts(seconds); }

    void setup(System& sys, int index) override {
        sys_ = &sys;
        index_ = index;
        int ti = 0;
        for (size_t pi = 0; pi < spec_.processes.size(); ++pi) {
            const ProcessSpec& ps = spec_.processes[pi];
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
                const bool init = ps.has_first_touch();
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
        r.figures = {{"name", spec_.name},  {"finished", rt.finished}, {"elapsed_s", elapsed},
                     {"user_s", rt.user_s}, {"system_s", rt.sys_s},    {"ops", ops},
                     {"bytes", bytes}};
        r.summary =
            fmt::format("streams {}: {} tasks, elapsed {:.2f} s, {:.3f} GB moved, {:.0f} ops\n",
                        spec_.name, tasks.size(), elapsed, bytes / 1e9, ops);
        return r;
    }

  private:
    void map_region(Process& pr, const ProcessSpec& ps, const RegionSpec& r,
                    std::shared_ptr<MemObject>& obj) {
        // Shared and file regions are the same pages in every instance of the process.
        uint32_t flags = VM_READ | VM_WRITE;
        if (r.kind == RegionKind::Shared) flags |= VM_SHARED;
        if (r.kind == RegionKind::File) flags |= VM_FILE;
        if (r.thp) flags |= VM_HUGEPAGE;
        const uint64_t pages = pr.mm().pages.pages(r.size);
        if (r.kind != RegionKind::Private && !obj)
            obj = std::make_shared<MemObject>(pages, r.kind == RegionKind::File);
        Vma& v = pr.mmap(r.size, r.name, flags, r.kind == RegionKind::Private ? nullptr : obj);
        v.policy = r.policy;
        pr.region(v, 0, pages, r.name);
        const uint64_t n = ps.threads.size();
        if (r.sliced)
            for (uint64_t i = 0; i < n; ++i) {
                const PageSlice s = thread_slice(pages, n, i);
                pr.region(v, s.first, s.count, fmt::format("{}#{}", r.name, i));
            }
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

    StreamsSpec spec_;
    System* sys_ = nullptr;
    int index_ = 0;
    std::vector<std::unique_ptr<Process>> procs_;
};

const WorkloadRegistrar reg(
    "streams", "generic workload described in the scenario (processes, regions, phases)",
    [](const TomlTable& t, const Topology& m) { return std::make_unique<Streams>(t, m); });

}  // namespace

}  // namespace numasim
