// perf bench numa mem: processes x threads over global (MAP_SHARED), per-process and per-thread
// buffers, with numa.c's startup barrier, time/loop limits, perturbation and convergence check.
#include "workload/perf_bench_numa.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <set>

#include "config/limits.h"
#include "config/param_reader.h"
#include "engine/process.h"
#include "kernel/system.h"
#include "workload/common.h"
#include "workload/process_layout.h"
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
// numa.c do_work() with data_rand_walk: words/1024 times, `start = lfsr % words` and the 1024
// u64 words from there are read and written, so a loop touches its buffer in 8 KiB chunks at
// random word offsets (32-bit LFSR), not line by line.
constexpr uint64_t RAND_WALK_CHUNK_BYTES = 1024 * sizeof(uint64_t);
// The LFSR state is a u32, so `lfsr % words` is below 2^32: in a buffer of more than 2^32 words
// (32 GiB) the chunks start in its first 32 GiB only.
constexpr uint64_t RAND_WALK_STARTS_BELOW = (uint64_t{1} << 32) * sizeof(uint64_t);
// Loops are batched into phases of at least this many bytes (a few ms at DO_WORK_RATE_GBS) so
// that a 1 MB default buffer does not cost one phase per 100 us; limits are checked per phase.
constexpr double BATCH_BYTES = 32.0 * MB;
// numa.c checks convergence and perturbation "at most once per second".
constexpr Nanos CHECK_INTERVAL = NSEC_PER_SEC;
// Poll interval of the startup barrier (a condition variable in numa.c).
constexpr Nanos BARRIER_POLL = NSEC_PER_MSEC;

struct ThreadState {
    Task* task = nullptr;
    bool ready = false;
    Nanos t_start = -1, t_end = -1;
    double bytes0 = 0;  // task bytes when the work loop started (init excluded)
    int64_t loops = 0;
};

class PerfBenchNuma : public Workload {
  public:
    explicit PerfBenchNuma(const PerfBenchNumaParams& p) : p_(p) {
        nr_tasks_ = p_.nr_proc * p_.nr_threads;
        threads_.resize(nr_tasks_);
    }

    void setup(System& sys, int index) override {
        sys_ = &sys;
        index_ = index;
        setup_time_ = sys.now;
        procs_.push_back(Process::exec(sys, dynamic_c_program("/usr/bin/perf")));
        Process& pr = *procs_.back();
        if (p_.mb_global > 0) {
            Vma& g = pr.mmap(bytes(p_.mb_global), "global",
                             VM_READ | VM_WRITE | VM_SHARED | thp_flags());
            pr.region(g, 0, g.nr_pages(), "global");
        }
        pr.start(nullptr, "perf", make_main(pr), index, nr_tasks_);
    }

    WorkloadResult result(const System& sys) const override {
        const Nanos now = sys.now;
        double rmin = 1e300, rsum = 0, total = 0, rmax = 0;
        Nanos last_end = start_;
        WorkloadResult r;
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
            TaskRow row;
            if (s.task) row.task = task_figures(sys, *s.task);
            row.extra = {{"runtime_s", rt}, {"work_bytes", by}, {"loops", s.loops}};
            r.tasks.push_back(std::move(row));
        }
        rmax = ns_to_s(last_end - (start_ >= 0 ? start_ : setup_time_));
        PerfBenchNumaRaw raw;
        raw.name = "main,";
        raw.measure_convergence = p_.measure_convergence;
        raw.runtime_sec_max = rmax;
        raw.runtime_sec_min = nr_tasks_ ? rmin : 0.0;
        raw.runtime_sec_avg = nr_tasks_ ? rsum / nr_tasks_ : 0.0;
        raw.bytes = total;
        raw.nr_tasks = nr_tasks_;
        std::vector<Record> checks;
        for (const auto& [t, c] : checks_)
            checks.push_back({{"t_s", t}, {"converged", c}});
        const std::optional<double> latency =
            converged_at_ >= 0 ? std::optional(ns_to_s(converged_at_)) : std::nullopt;
        r.figures = {{"name", raw.name},
                     {"measure_convergence", raw.measure_convergence},
                     {"runtime_sec_max", raw.runtime_sec_max},
                     {"runtime_sec_min", raw.runtime_sec_min},
                     {"runtime_sec_avg", raw.runtime_sec_avg},
                     {"bytes", raw.bytes},
                     {"nr_tasks", nr_tasks_},
                     {"converged", converged_at_ >= 0},
                     {"convergence_latency_s", latency},
                     {"convergence_checks", checks}};
        // mmtests' perfnuma operations (extract-report.pl): convergence time and speeds.
        r.operations = {{"converged", latency ? *latency : rmax, true},
                        {"threadspeed", rsum > 0 ? total / 1e9 / rsum : 0.0, false},
                        {"totalspeed", rmax > 0 ? total / 1e9 / rmax : 0.0, false}};
        r.summary = fmt::format(
            "perf bench numa mem -p {} -t {}: runtime-max {:.3f} s, data-total {:.3f} GB{}\n",
            p_.nr_proc, p_.nr_threads, rmax, total / 1e9,
            latency ? fmt::format(", converged at {:.1f} s", *latency)
                    : std::string(p_.measure_convergence ? ", not converged" : ""));
        r.extra = raw;
        return r;
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
    std::unique_ptr<TaskProgram> make_main(Process& pr) {
        int step = 0;
        return std::make_unique<FnProgram>([this, &pr, step](Task& t, Phase& ph) mutable {
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
                    fork_process(pr, t, p);
                make_wait_phase(ph, 0);
                return true;
            }
            return false;
        });
    }

    // alloc_data()'s madvise: MADV_HUGEPAGE for a positive --thp, MADV_NOHUGEPAGE for a
    // negative one.
    uint32_t thp_flags() const { return p_.thp > 0 ? VM_HUGEPAGE : p_.thp < 0 ? VM_NOHUGEPAGE : 0; }

    void fork_process(Process& perf, Task& parent, int p) {
        procs_.push_back(perf.fork(parent));
        Process& pr = *procs_.back();
        const uint32_t flags = VM_READ | VM_WRITE | thp_flags();
        if (p_.mb_proc > 0) {
            Vma& v = pr.mmap(bytes(p_.mb_proc), "process", flags);
            pr.region(v, 0, v.nr_pages(), "process");
            if (p_.mb_proc_locked > 0)
                pr.region(v, 0, std::max<uint64_t>(1, bytes(p_.mb_proc_locked) / v.pages.size()),
                          "locked");
        }
        for (int th = 0; th < p_.nr_threads && p_.mb_thread > 0; ++th) {
            Vma& v = pr.mmap(bytes(p_.mb_thread), fmt::format("thread{}", th), flags);
            pr.region(v, 0, v.nr_pages(), fmt::format("thread{}", th));
        }
        pr.start_forked(parent, "perf", make_process_main(pr, p), index_, nr_tasks_ + 1 + p);
    }

    // worker_process(): the process buffer, then pthread_create() of its threads and
    // pthread_join().
    std::unique_ptr<TaskProgram> make_process_main(Process& pr, int p) {
        int step = 0;
        return std::make_unique<FnProgram>([this, &pr, p, step](Task& t, Phase& ph) mutable {
            if (step == 0) {
                step = 1;
                if (Region* proc = find_region(*t.mm, "process")) {
                    init_phase(ph, {proc});
                    return true;
                }
            }
            if (step == 1) {
                step = 2;
                if (p_.init_cpu0) {  // mempol_restore() after alloc_data()
                    t.mempolicy = MemPolicy{};
                    t.has_mempolicy = false;
                }
                for (int th = 0; th < p_.nr_threads; ++th) {
                    const int nr = p * p_.nr_threads + th;
                    threads_[nr].task = &pr.pthread_create(t, "perf", make_thread(p, th), nr);
                }
                ph.cpu_time = NSEC_PER_USEC;
                ph.join = true;
                return true;
            }
            return false;
        });
    }

    std::unique_ptr<TaskProgram> make_thread(int p, int th) {
        enum Step { ThreadInit, Barrier, Work };
        Step step = ThreadInit;
        bool perturbed = false;
        return std::make_unique<FnProgram>(
            [this, p, th, step, perturbed](Task& t, Phase& ph) mutable {
                const int nr = p * p_.nr_threads + th;
                ThreadState& st = threads_[nr];
                Region* own = find_region(*t.mm, fmt::format("thread{}", th));
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
                s.pattern = Pattern::Random;
                s.chunk_bytes = RAND_WALK_CHUNK_BYTES;
                s.chunk_starts_below = RAND_WALK_STARTS_BELOW;
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

    PerfBenchNumaParams p_;
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
    std::vector<std::unique_ptr<Process>> procs_;  // perf, then the worker processes
};

const WorkloadRegistrar reg("perf-bench-numa", "perf bench numa mem (tools/perf/bench/numa.c)",
                            [](const TomlTable& t, const Topology&) {
                                PerfBenchNumaParams p;
                                ParamReader r(t);
                                read_perf_bench_numa_params(r, p);
                                return make_perf_bench_numa(p);
                            });

}  // namespace

void read_perf_bench_numa_params(ParamReader& r, PerfBenchNumaParams& p) {
    r.integer("nr_proc", p.nr_proc, 1, kMaxTasks);
    r.integer("nr_threads", p.nr_threads, 1, kMaxTasks);
    if (int64_t{p.nr_proc} * p.nr_threads > kMaxTasks)
        r.fail("nr_threads", fmt::format("{} processes x {} threads is more than {} tasks "
                                         "(docs/scenario.md, \"Limits\")",
                                         p.nr_proc, p.nr_threads, kMaxTasks));
    // A buffer is mapped in whole pages: a figure that rounds to no page would leave nothing
    // to work on (and a loop of zero bytes would never end). The bound is the smallest base page
    // (the machine is not known here); a machine with larger pages rounds the buffer up to one.
    constexpr double kPageMB = kPages4K.size() / MB;
    constexpr double kMaxMB = static_cast<double>(kMaxNodeMemoryBytes) / MB;
    for (auto [key, v] : {std::pair{"mb_global", &p.mb_global},
                          {"mb_proc", &p.mb_proc},
                          {"mb_proc_locked", &p.mb_proc_locked},
                          {"mb_thread", &p.mb_thread}}) {
        r.number(key, *v, 0, kMaxMB);
        if (*v > 0 && *v < kPageMB)
            r.fail(key, fmt::format("must be 0 or at least one page ({} MB), got {}", kPageMB, *v));
    }
    if (p.mb_proc_locked > p.mb_proc)
        r.fail("mb_proc_locked",
               "the locked part is worked on inside the process buffer (mb_proc)");
    r.integer("nr_loops", p.nr_loops, std::numeric_limits<int64_t>::min());
    r.number("nr_secs", p.nr_secs, 0, static_cast<double>(kMaxDurationSeconds));
    if (p.nr_loops < 0 && p.nr_secs == 0) r.fail("nr_secs", "0 with nr_loops < 0 never ends");
    r.flag("zero_memset", p.zero_memset);
    r.flag("bzero", p.bzero);
    r.flag("init_cpu0", p.init_cpu0);
    r.flag("measure_convergence", p.measure_convergence);
    r.flag("show_convergence", p.show_convergence);
    r.flag("data_rand_walk", p.data_rand_walk);
    r.flag("data_reads", p.data_reads);
    r.flag("data_writes", p.data_writes);
    r.flag("data_backwards", p.data_backwards);
    r.integer("thp", p.thp, std::numeric_limits<int>::min());
    r.integer("perturb_secs", p.perturb_secs, 0, kMaxDurationSeconds);
    r.flag("serialize_startup", p.serialize_startup);
    if (p.mb_global + p.mb_proc + p.mb_thread <= 0)
        r.fail_here("no memory to work on: mb_global, mb_proc and mb_thread are all 0");
}

std::unique_ptr<Workload> make_perf_bench_numa(const PerfBenchNumaParams& p) {
    return std::make_unique<PerfBenchNuma>(p);
}

}  // namespace numasim
