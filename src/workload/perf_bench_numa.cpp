// perf bench numa mem: processes x threads over global (MAP_SHARED), per-process and per-thread
// buffers, with numa.c's startup barrier, time/loop limits, perturbation and convergence check.
#include "workload/perf_bench_numa.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <set>

#include "config/toml_reader.h"
#include "engine/process.h"
#include "engine/system.h"
#include "workload/common.h"
#include "workload/registry.h"

namespace numasim {

bool perf_numa_converged(const std::vector<std::vector<int>>& thread_nodes, int nr_nodes) {
    int nodes_min = nr_nodes + 1, nodes_max = 0, process_groups = 0;
    std::vector<std::set<int>> procs_on_node(nr_nodes);
    for (size_t p = 0; p < thread_nodes.size(); ++p) {
        std::set<int> nodes;
        for (int n : thread_nodes[p]) {
            if (n < 0 || n >= nr_nodes) return false;  // curr_cpu still -1
            nodes.insert(n);
            procs_on_node[n].insert(static_cast<int>(p));
        }
        const int k = static_cast<int>(nodes.size());
        if (k == 0) return false;
        nodes_min = std::min(nodes_min, k);
        nodes_max = std::max(nodes_max, k);
    }
    for (const auto& s : procs_on_node)
        process_groups += static_cast<int>(s.size());
    const bool strong = nodes_min == 1 && nodes_max == 1;
    return strong && process_groups == static_cast<int>(thread_nodes.size());
}

namespace {

// numa.c: "g->p.bytes_global = g->p.mb_global * 1024L*1024L" (and the same for -P/-L/-T).
constexpr double MB = 1024.0 * 1024.0;
// do_work()'s loop (load, add into `val`, store per u64 word; or bzero with -Z) streams far
// more than one core's outstanding-miss limit allows on every preset, so it runs at the same
// single-thread memory-bound rate as bzero; the cost model applies the machine's cap.
constexpr double DO_WORK_RATE_GBS = BZERO_RATE_GBS;
// Loops are batched into phases of at least this many bytes (a few ms at DO_WORK_RATE_GBS) so
// that a 1 MB default buffer does not cost one phase per 100 us; limits are checked per phase.
constexpr double BATCH_BYTES = 32.0 * MB;
// numa.c checks convergence and perturbation "at most once per second".
constexpr Nanos CHECK_INTERVAL = NSEC_PER_SEC;
// Poll interval of the startup barrier (a condition variable in numa.c).
constexpr Nanos BARRIER_POLL = NSEC_PER_MSEC;

struct Params {
    int nr_proc = 1, nr_threads = 1;
    double mb_global = 1, mb_proc = 0, mb_proc_locked = 0, mb_thread = 0;
    int64_t nr_loops = -1;
    double nr_secs = 5;
    bool zero_memset = false, bzero = false, init_cpu0 = false;
    bool measure_convergence = false, show_convergence = false;
    bool data_rand_walk = true, data_reads = true, data_writes = true, data_backwards = true;
    int thp = 0;
    int perturb_secs = 0;
    bool serialize_startup = true;
};

Params read_params(const TomlTable& t) {
    Params p;
    p.nr_proc = static_cast<int>(t.get_int("nr_proc", 1));
    p.nr_threads = static_cast<int>(t.get_int("nr_threads", 1));
    if (p.nr_proc < 1) t.fail("nr_proc", "must be at least 1");
    if (p.nr_threads < 1) t.fail("nr_threads", "must be at least 1");
    auto mb = [&](const char* k, double d) {
        const double v = t.get_double(k, d);
        if (v < 0) t.fail(k, "cannot be negative");
        return v;
    };
    p.mb_global = mb("mb_global", 1);
    p.mb_proc = mb("mb_proc", 0);
    p.mb_proc_locked = mb("mb_proc_locked", 0);
    p.mb_thread = mb("mb_thread", 0);
    if (p.mb_proc_locked > p.mb_proc)
        t.fail("mb_proc_locked",
               "the locked part is worked on inside the process buffer (mb_proc)");
    p.nr_loops = t.get_int("nr_loops", -1);
    p.nr_secs = t.get_double("nr_secs", 5);
    if (p.nr_secs < 0) t.fail("nr_secs", "cannot be negative");
    if (p.nr_loops < 0 && p.nr_secs == 0) t.fail("nr_secs", "0 with nr_loops < 0 never ends");
    p.zero_memset = t.get_bool("zero_memset", false);
    p.bzero = t.get_bool("bzero", false);
    p.init_cpu0 = t.get_bool("init_cpu0", false);
    p.measure_convergence = t.get_bool("measure_convergence", false);
    p.show_convergence = t.get_bool("show_convergence", false);
    p.data_rand_walk = t.get_bool("data_rand_walk", true);
    p.data_reads = t.get_bool("data_reads", true);
    p.data_writes = t.get_bool("data_writes", true);
    p.data_backwards = t.get_bool("data_backwards", true);
    p.thp = static_cast<int>(t.get_int("thp", 0));
    p.perturb_secs = static_cast<int>(t.get_int("perturb_secs", 0));
    if (p.perturb_secs < 0) t.fail("perturb_secs", "cannot be negative");
    p.serialize_startup = t.get_bool("serialize_startup", true);
    if (p.mb_global + p.mb_proc + p.mb_thread <= 0)
        t.fail_here("no memory to work on: mb_global, mb_proc and mb_thread are all 0");
    return p;
}

struct ThreadState {
    Task* task = nullptr;
    bool ready = false;
    Nanos t_start = -1, t_end = -1;
    double bytes0 = 0;  // task bytes when the work loop started (init excluded)
    int64_t loops = 0;
};

class PerfBenchNuma : public Workload {
  public:
    PerfBenchNuma(const TomlTable& t, const Topology&) : p_(read_params(t)) {
        nr_tasks_ = p_.nr_proc * p_.nr_threads;
        threads_.resize(nr_tasks_);
    }

    void setup(System& sys, int index) override {
        sys_ = &sys;
        index_ = index;
        setup_time_ = sys.now;
        Mm& mm = mm_create(sys);
        if (p_.mb_global > 0) {
            Vma& g = map_anon(sys, mm, bytes(p_.mb_global), "global", p_.thp > 0, true);
            add_region(sys, g, 0, g.nr_pages(), "global");
        }
        main_prog_ = make_main();
        create_process(sys, mm, nullptr, "perf", main_prog_.get(), index, nr_tasks_);
    }

    nlohmann::json metrics(const System& sys, Nanos) const override {
        const Nanos now = sys.now;
        double rmin = 1e300, rsum = 0, total = 0, rmax = 0;
        Nanos last_end = start_;
        nlohmann::json per = nlohmann::json::array();
        for (int i = 0; i < nr_tasks_; ++i) {
            const ThreadState& s = threads_[i];
            const Nanos b = s.t_start < 0 ? now : s.t_start;
            const Nanos e = s.t_end >= 0 ? s.t_end : now;
            const double rt = ns_to_s(std::max<Nanos>(0, e - b));
            const double by = s.task ? s.task->total_bytes - s.bytes0 : 0;
            rmin = std::min(rmin, rt);
            rsum += rt;
            total += by;
            last_end = std::max(last_end, e);
            nlohmann::json j = s.task ? task_json(sys, *s.task) : nlohmann::json::object();
            j["runtime_s"] = rt;
            j["work_bytes"] = by;
            j["loops"] = s.loops;
            per.push_back(j);
        }
        rmax = ns_to_s(last_end - (start_ >= 0 ? start_ : setup_time_));
        nlohmann::json checks = nlohmann::json::array();
        for (const auto& [t, c] : checks_)
            checks.push_back({{"t_s", t}, {"converged", c}});
        return {{"name", "main,"},
                {"measure_convergence", p_.measure_convergence},
                {"runtime_sec_max", rmax},
                {"runtime_sec_min", nr_tasks_ ? rmin : 0.0},
                {"runtime_sec_avg", nr_tasks_ ? rsum / nr_tasks_ : 0.0},
                {"bytes", total},
                {"nr_tasks", nr_tasks_},
                {"converged", converged_at_ >= 0},
                {"convergence_latency_s",
                 converged_at_ >= 0 ? nlohmann::json(ns_to_s(converged_at_)) : nlohmann::json()},
                {"convergence_checks", checks},
                // mmtests' perfnuma operations (extract-report.pl): convergence time and speeds.
                {"operations",
                 {compare_operation("converged", converged_at_ >= 0 ? ns_to_s(converged_at_) : rmax,
                                    true),
                  compare_operation("threadspeed", rsum > 0 ? total / 1e9 / rsum : 0.0, false),
                  compare_operation("totalspeed", rmax > 0 ? total / 1e9 / rmax : 0.0, false)}},
                {"tasks", per}};
    }

    std::string summary(const System& sys, Nanos elapsed) const override {
        const auto m = metrics(sys, elapsed);
        return fmt::format(
            "perf bench numa mem -p {} -t {}: runtime-max {:.3f} s, data-total {:.3f} GB{}\n",
            p_.nr_proc, p_.nr_threads, m["runtime_sec_max"].get<double>(),
            m["bytes"].get<double>() / 1e9,
            converged_at_ >= 0 ? fmt::format(", converged at {:.1f} s", ns_to_s(converged_at_))
                               : std::string(p_.measure_convergence ? ", not converged" : ""));
    }

  private:
    static uint64_t bytes(double mb) { return static_cast<uint64_t>(std::llround(mb * MB)); }

    // An allocation as numa.c's alloc_data() does it: every byte written once (bzero with -z,
    // random contents otherwise), on CPU#0's node with -0.
    void init_phase(Phase& ph, std::initializer_list<Region*> regions) const {
        ph.rate_gbs = BZERO_RATE_GBS;
        double total = 0;
        for (Region* r : regions)
            total += static_cast<double>(r->bytes());
        for (Region* r : regions)
            ph.streams.push_back({.region = r,
                                  .share = static_cast<double>(r->bytes()) / total,
                                  .write_fraction = 1.0});
        ph.work_bytes = total;
        if (p_.init_cpu0)
            ph.set_mempolicy = make_policy(MpolMode::Bind, node_bit(sys_->cpu_to_node(0)));
    }

    // The perf process: allocate the global buffer, fork the worker processes, wait.
    std::unique_ptr<TaskProgram> make_main() {
        int step = 0;
        return std::make_unique<FnProgram>([this, step](Task& t, Phase& ph) mutable {
            Region* g = find_region(*t.mm, "global");
            if (step == 0 && g) {
                step = 1;
                init_phase(ph, {g});
                return true;
            }
            if (step <= 1) {
                step = 2;
                if (!p_.serialize_startup) start_ = task_clock(*sys_, t);
                if (p_.init_cpu0) ph.set_mempolicy = MemPolicy{};
                for (int p = 0; p < p_.nr_proc; ++p)
                    fork_process(t, p);
                make_wait_phase(ph, 0);
                return true;
            }
            return false;
        });
    }

    void fork_process(Task& parent, int p) {
        Mm& mm = dup_mm(*sys_, *parent.mm);
        const bool thp = p_.thp > 0;
        if (p_.mb_proc > 0) {
            Vma& v = map_anon(*sys_, mm, bytes(p_.mb_proc), "process", thp);
            add_region(*sys_, v, 0, v.nr_pages(), "process");
            if (p_.mb_proc_locked > 0)
                add_region(*sys_, v, 0, std::max<uint64_t>(1, bytes(p_.mb_proc_locked) / PAGE_SIZE),
                           "locked");
        }
        for (int th = 0; th < p_.nr_threads && p_.mb_thread > 0; ++th) {
            Vma& v = map_anon(*sys_, mm, bytes(p_.mb_thread), fmt::format("thread{}", th), thp);
            add_region(*sys_, v, 0, v.nr_pages(), fmt::format("thread{}", th));
        }
        progs_.push_back(make_thread(p, 0));
        threads_[p * p_.nr_threads].task = &create_process(
            *sys_, mm, &parent, "perf", progs_.back().get(), index_, p * p_.nr_threads);
    }

    void spawn_threads(Task& leader, int p) {
        for (int th = 1; th < p_.nr_threads; ++th) {
            const int nr = p * p_.nr_threads + th;
            progs_.push_back(make_thread(p, th));
            threads_[nr].task = &create_thread(*sys_, leader, "perf", progs_.back().get(), nr);
        }
    }

    std::unique_ptr<TaskProgram> make_thread(int p, int th) {
        enum Step { ProcInit, Spawn, ThreadInit, Barrier, Work };
        Step step = th == 0 ? ProcInit : ThreadInit;
        bool perturbed = false;
        return std::make_unique<FnProgram>(
            [this, p, th, step, perturbed](Task& t, Phase& ph) mutable {
                const int nr = p * p_.nr_threads + th;
                ThreadState& st = threads_[nr];
                Region* proc = find_region(*t.mm, "process");
                Region* own = find_region(*t.mm, fmt::format("thread{}", th));
                if (step == ProcInit) {  // worker_process(): the process buffer, before threads
                    step = Spawn;
                    if (proc) {
                        init_phase(ph, {proc});
                        return true;
                    }
                }
                if (step == Spawn) {
                    step = ThreadInit;
                    spawn_threads(t, p);
                }
                if (step == ThreadInit) {  // worker_thread(): its private buffer
                    step = Barrier;
                    if (own) {
                        init_phase(ph, {own});
                        return true;
                    }
                }
                const Nanos now = task_clock(*sys_, t);
                if (step == Barrier) {
                    if (p_.init_cpu0) ph.set_mempolicy = MemPolicy{};
                    st.ready = true;
                    if (p_.serialize_startup && start_ < 0) {
                        if (!all_ready()) {
                            make_wait_phase(ph, BARRIER_POLL);
                            return true;
                        }
                        start_ = now;
                    }
                    step = Work;
                    st.t_start = now;
                    st.bytes0 = t.total_bytes;
                    last_check_ = now;
                    last_perturb_ = now;
                }
                // Work loop: stop on -m convergence, -l loops or -s seconds.
                const bool loops_done = p_.nr_loops >= 0 && st.loops >= p_.nr_loops;
                const bool time_up = p_.nr_secs > 0 && now - st.t_start >= secs_ns(p_.nr_secs);
                if (stop_work_ || loops_done || time_up) {
                    st.t_end = now;
                    return false;
                }
                if (nr == nr_tasks_ - 1 && now - last_check_ >= CHECK_INTERVAL) {
                    last_check_ = now;
                    check_convergence(now - st.t_start);
                }
                if (perturbed) {
                    perturbed = false;
                    ph.clear_affinity = true;  // bind_to_cpumask(orig_mask)
                } else if (nr == 0 && p_.perturb_secs > 0 &&
                           now - last_perturb_ >= p_.perturb_secs * NSEC_PER_SEC) {
                    // Move thread 0/0 to the other half of the CPUs, then restore its mask.
                    last_perturb_ = now;
                    perturbed = true;
                    const int ncpu = sys_->nr_cpus();
                    ph.set_affinity = std::vector<int>{t.cpu < ncpu / 2 ? ncpu - 1 : 0};
                    make_wait_phase(ph, 0);
                    return true;
                }
                work_phase(ph, t, nr, th, st);
                return true;
            });
    }

    static Nanos secs_ns(double s) { return static_cast<Nanos>(s * NSEC_PER_SEC); }

    bool all_ready() const {
        for (const ThreadState& s : threads_)
            if (!s.ready) return false;
        return true;
    }

    void work_phase(Phase& ph, Task& t, int nr, int th, ThreadState& st) const {
        Region* g = find_region(*t.mm, "global");
        Region* proc = find_region(*t.mm, "process");
        Region* locked = find_region(*t.mm, "locked");
        Region* own = find_region(*t.mm, fmt::format("thread{}", th));
        const int proc_nr = nr / p_.nr_threads;
        double per_loop = 0;
        struct Part {
            Region* r;
            double bytes;
            int nr, nr_max;
        };
        std::vector<Part> parts;
        if (g) parts.push_back({g, static_cast<double>(g->bytes()), proc_nr, p_.nr_proc});
        if (proc) parts.push_back({proc, static_cast<double>(proc->bytes()), th, p_.nr_threads});
        if (locked)
            parts.push_back({locked, static_cast<double>(locked->bytes()), th, p_.nr_threads});
        if (own) parts.push_back({own, static_cast<double>(own->bytes()), 0, 1});
        for (const Part& x : parts)
            per_loop += x.bytes;
        // -Z without -r is a bzero; otherwise each word is read and/or written.
        const bool bz = p_.bzero && !p_.data_rand_walk;
        const double wf = bz || p_.data_writes ? 1.0 : 0.0;
        for (const Part& x : parts) {
            AccessStream s{.region = x.r, .share = x.bytes / per_loop, .write_fraction = wf};
            if (p_.data_rand_walk && !bz) {
                s.pattern = Pattern::Random;  // 32-bit LFSR over 8 KiB chunks
            } else {
                // Forward pass from nr * (words / nr_max).
                s.start_at_thread_offset = true;
                s.start_page =
                    x.r->count * static_cast<uint64_t>(x.nr) / static_cast<uint64_t>(x.nr_max);
            }
            ph.streams.push_back(s);
        }
        int64_t k = std::max<int64_t>(1, static_cast<int64_t>(std::ceil(BATCH_BYTES / per_loop)));
        if (p_.nr_loops >= 0) k = std::min(k, p_.nr_loops - st.loops);
        st.loops += k;
        ph.rate_gbs = DO_WORK_RATE_GBS;
        ph.work_bytes = per_loop * static_cast<double>(k);
    }

    void check_convergence(Nanos runtime) {
        if (!p_.show_convergence && !p_.measure_convergence) return;
        std::vector<std::vector<int>> nodes(p_.nr_proc);
        for (int i = 0; i < nr_tasks_; ++i) {
            const Task* t = threads_[i].task;
            nodes[i / p_.nr_threads].push_back(t && !t->exiting() ? sys_->cpu_to_node(t->cpu) : -1);
        }
        const bool c = perf_numa_converged(nodes, sys_->nr_nodes());
        checks_.push_back({ns_to_s(runtime), c});
        if (c && converged_at_ < 0) {
            converged_at_ = runtime;
            if (p_.measure_convergence) stop_work_ = true;
        } else if (!c) {
            converged_at_ = -1;  // "de-converged"
        }
    }

    Params p_;
    int nr_tasks_ = 1;
    System* sys_ = nullptr;
    int index_ = 0;
    Nanos setup_time_ = 0;
    Nanos start_ = -1;  // the startup barrier's release (numa.c's `start` timestamp)
    Nanos last_check_ = 0, last_perturb_ = 0;
    bool stop_work_ = false;
    Nanos converged_at_ = -1;
    std::vector<std::pair<double, bool>> checks_;
    std::vector<ThreadState> threads_;
    std::unique_ptr<TaskProgram> main_prog_;
    std::vector<std::unique_ptr<TaskProgram>> progs_;
};

const WorkloadRegistrar reg("perf-bench-numa", "perf bench numa mem (tools/perf/bench/numa.c)",
                            [](const TomlTable& t, const Topology& m) {
                                return std::make_unique<PerfBenchNuma>(t, m);
                            });

}  // namespace

}  // namespace numasim
