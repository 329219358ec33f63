// schbench, the scheduler community's wakeup-latency benchmark (Chris Mason; schbench.c at
// github.com/masoncl/schbench 24e32b8, 2025-12-23), in its default mode as mmtests runs it
// (shellpack_src/src/schbench/schbench-bench: -m MESSENGERS -t WORKERS -r RUNTIME). Message
// threads post work to worker threads over futexes; a worker records the time from its wakeup to
// running (wakeup latency), then does a request: usleep(-s), then -n multiplications of matrices
// sized from -F (request latency), and posts its message thread again. See
// docs/workloads/schbench.md.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <vector>

#include "config/limits.h"
#include "config/param_reader.h"
#include "engine/process.h"
#include "kernel/system.h"
#include "machine/topology.h"
#include "mm/vma.h"
#include "workload/common.h"
#include "workload/process_layout.h"
#include "workload/registry.h"
#include "workload/schbench_stats.h"

namespace numasim {

namespace {

// CPU time of one iteration of do_some_math()'s inner loop (m3[i][j] += m1[i][k] * m2[k][j]):
// schbench's README calibration run, "-F 256 -n 5 --calibrate", reports a p50 request latency of
// 16864 us, which in calibration mode is the matrix work alone: 5 x 104^3 = 5,624,320 iterations
// (a 104 x 104 matrix from 256 KB), 3.0 ns each.
constexpr double MATH_NS_PER_ITERATION = 16864e3 / (5.0 * 104 * 104 * 104);
// Each iteration loads and stores m3[i][j] (m3 is reached through a pointer that may alias m1
// and m2, so the compiler keeps it in memory). m1 and m2 are never written: their reads hit the
// shared zero page, which has no placement, so the model's memory traffic is m3's 8 bytes.
constexpr double M3_BYTES_PER_ITERATION = 8;

// The defaults of schbench.c: one message thread, 30 s, 256 KB footprint, 5 operations,
// 100 us sleep, no warmup.
constexpr int DEFAULT_MESSAGE_THREADS = 1;
constexpr Nanos DEFAULT_RUNTIME = 30 * NSEC_PER_SEC;
constexpr int64_t DEFAULT_FOOTPRINT_KB = 256;
constexpr int64_t DEFAULT_OPERATIONS = 5;
constexpr int64_t DEFAULT_SLEEP_USEC = 100;
// run_rps_thread(): a worker with more than this many requests pending since it last looked is
// skipped ("at some point, there's just too much, don't queue more").
constexpr int RPS_BATCH = 128;

struct SchbenchParams {
    int message_threads = DEFAULT_MESSAGE_THREADS;      // -m
    int threads = 0;                                    // -t: 0 = ceil(CPUs / message threads)
    Nanos runtime = DEFAULT_RUNTIME;                    // -r
    Nanos warmuptime = 0;                               // -w
    int64_t cache_footprint_kb = DEFAULT_FOOTPRINT_KB;  // -F
    int64_t operations = DEFAULT_OPERATIONS;            // -n
    int64_t sleep_usec = DEFAULT_SLEEP_USEC;            // -s
    int64_t rps = 0;  // -R: requests per second in all (0: the default mode)
};

SchbenchParams read_params(const TomlTable& t, const Topology& m) {
    SchbenchParams p;
    ParamReader r(t);
    r.integer("message_threads", p.message_threads, 1, kMaxTasks);
    if (r.has("threads")) r.integer("threads", p.threads, 1, kMaxTasks);
    r.duration("runtime", p.runtime, 1, kMaxDurationSeconds * NSEC_PER_SEC);
    r.duration("warmuptime", p.warmuptime, 0, kMaxDurationSeconds * NSEC_PER_SEC);
    r.integer("cache_footprint_kb", p.cache_footprint_kb, 1, int64_t{1} << 30);
    r.integer("operations", p.operations, 0, int64_t{1} << 20);
    r.integer("sleep_usec", p.sleep_usec, 0, kMaxDurationSeconds * int64_t{1000000});
    r.integer("rps", p.rps, 0, std::numeric_limits<int32_t>::max());
    if (!r.has("threads"))  // main(): worker_threads = ceil(num_cpus / message_threads)
        p.threads = (m.nr_cpus() + p.message_threads - 1) / p.message_threads;
    // The main thread, the message threads and their workers.
    if (1 + int64_t{p.message_threads} * (p.threads + 1) > kMaxTasks)
        r.fail_here(
            fmt::format("message_threads x (threads + 1) + 1 tasks is more than {}", kMaxTasks));
    // parse_options(): runs shorter than 30 s have no warmup.
    if (p.runtime < 30 * NSEC_PER_SEC) p.warmuptime = 0;
    return p;
}

class Schbench : public Workload {
  public:
    Schbench(const TomlTable& t, const Topology& m) : p_(read_params(t, m)) {
        // matrix_size = sqrt(cache_footprint_kb * 1024 / 3 / sizeof(unsigned long))
        msize_ = static_cast<uint64_t>(
            std::sqrt(static_cast<double>(p_.cache_footprint_kb * 1024 / 3 / 8)));
        const double iters = static_cast<double>(p_.operations) * static_cast<double>(msize_) *
                             static_cast<double>(msize_) * static_cast<double>(msize_);
        work_bytes_ = iters * M3_BYTES_PER_ITERATION;
    }

    // Per worker and request: three phases (post and wait, wake and usleep, the math); each
    // takes at least its 1 us burst, the sleep and the math.
    double phase_starts(double seconds) const override {
        const double cycle_ns = 2.0 * NSEC_PER_USEC + static_cast<double>(p_.sleep_usec) * 1e3 +
                                work_bytes_ / (M3_BYTES_PER_ITERATION / MATH_NS_PER_ITERATION);
        const double workers = static_cast<double>(p_.message_threads) * p_.threads;
        // The message threads start at most one phase per worker cycle as well.
        return 2.0 * 3.0 * workers * seconds * NSEC_PER_SEC / cycle_ns;
    }

    void setup(System& sys, int index) override {
        sys_ = &sys;
        index_ = index;
        proc_ = Process::exec(sys, dynamic_c_program("/usr/local/bin/schbench"));
        const int nw = p_.message_threads * p_.threads;
        workers_.resize(static_cast<size_t>(nw));
        waiting_.resize(static_cast<size_t>(p_.message_threads));
        rps_cursor_.resize(static_cast<size_t>(p_.message_threads), 0);
        msgs_.resize(static_cast<size_t>(p_.message_threads), nullptr);
        // message_thread(): malloc(3 * sizeof(unsigned long) * msize^2) per worker, untouched
        // until the worker's first request writes m3 (the last third).
        const uint64_t bytes = 3 * 8 * msize_ * msize_;
        for (int w = 0; w < nw; ++w) {
            Vma& v = proc_->mmap(bytes, fmt::format("matrix-{}", w), VM_READ | VM_WRITE);
            const uint64_t first = (2 * 8 * msize_ * msize_) >> v.pages.shift;
            workers_[w].m3 =
                &proc_->region(v, first, v.nr_pages() - first, fmt::format("m3-{}", w));
        }
        proc_->start(nullptr, "schbench", make_main(), index, 0);
    }

    WorkloadResult result(const System& sys) const override {
        WorkloadResult r;
        uint64_t loops = 0;
        for (const Task* t : workload_tasks(sys, index_)) {
            Record extra;
            if (const int w = worker_of(*t); w >= 0) {
                loops += workers_[static_cast<size_t>(w)].loops;
                extra = {{"requests", workers_[static_cast<size_t>(w)].loops}};
            }
            r.tasks.push_back({task_figures(sys, *t), std::move(extra)});
        }
        const SchbenchStats rps = rps_stats();
        const double runtime_s = ns_to_s(p_.runtime);
        const double avg_rps = static_cast<double>(loops) / runtime_s;
        r.figures = {{"message_threads", p_.message_threads},
                     {"threads", p_.threads},
                     {"runtime_s", runtime_s},
                     {"requests", loops},
                     {"average_rps", avg_rps}};
        add_figures(r.figures, "wakeup_latency", wakeup_);
        add_figures(r.figures, "request_latency", request_);
        add_figures(r.figures, "rps", rps);
        add_operations(r.operations, "Wakeup", wakeup_, SCHBENCH_PLIST_FOR_LAT, true);
        add_operations(r.operations, "Request", request_, SCHBENCH_PLIST_FOR_LAT, true);
        add_operations(r.operations, "RPS", rps, SCHBENCH_PLIST_FOR_RPS, false);
        // The final report of main(), in its order (schbench prints it on stderr).
        const auto secs = static_cast<uint64_t>(p_.runtime / NSEC_PER_SEC);
        r.summary = wakeup_.show("Wakeup Latencies", "usec", secs, SCHBENCH_PLIST_FOR_LAT,
                                 SCHBENCH_PLIST_99) +
                    request_.show("Request Latencies", "usec", secs, SCHBENCH_PLIST_FOR_LAT,
                                  SCHBENCH_PLIST_99) +
                    rps.show("RPS", "requests", secs, SCHBENCH_PLIST_FOR_RPS, SCHBENCH_PLIST_50) +
                    fmt::format("average rps: {:.2f}\n", avg_rps);
        return r;
    }

  private:
    struct Worker {
        Task* task = nullptr;
        Region* m3 = nullptr;
        Nanos wake_time = -1;   // set by the message thread before it wakes the worker
        Nanos work_start = -1;  // the request's start (before its usleep)
        uint64_t loops = 0;     // requests done (loop_count)
        int pending = 0;        // -R: requests posted since it last looked (td->pending)
        int queued = 0;         // -R: requests on its list
        int todo = 0;           // requests it took from the list and has not finished
    };
    // What a worker's next phase does: msg_and_wait(), return from its wait, the math, and the
    // end of a request.
    enum class Step { MsgAndWait, Woken, Work, Done };

    int worker_of(const Task& t) const {
        for (size_t w = 0; w < workers_.size(); ++w)
            if (workers_[w].task == &t) return static_cast<int>(w);
        return -1;
    }

    static void add_figures(Record& rec, const std::string& label, const SchbenchStats& s) {
        // write_json_stats(): LABEL_pctP for every percentile, LABEL_min, LABEL_max.
        for (const SchbenchPercentile& p : s.percentiles())
            rec.push_back({fmt::format("{}_pct{:.1f}", label, p.p), p.value});
        rec.push_back({label + "_min", s.min()});
        rec.push_back({label + "_max", s.max()});
    }

    // mmtests' names (ExtractSchbench.pm, gormanm/mmtests fa495493..83f28228, which reads the
    // schbench that prints Wakeup, Request and RPS blocks): METRIC-Pth-WORKERS, P without a
    // trailing ".0", and METRIC-max-WORKERS. mmtests drops a percentile line with no samples of
    // its own from its per-interval data; with one final report per run every row is kept, so
    // that each iteration has each row.
    void add_operations(std::vector<Operation>& ops, const std::string& metric,
                        const SchbenchStats& s, unsigned mask, bool lower) const {
        const std::vector<SchbenchPercentile> ps = s.percentiles();
        for (size_t i = 0; i < ps.size(); ++i) {
            if (!(mask & (1u << i)) || s.nr_samples() == 0) continue;
            std::string q = fmt::format("{:.1f}", ps[i].p);
            if (q.ends_with(".0")) q.resize(q.size() - 2);
            ops.push_back({fmt::format("{}-{}th-{}", metric, q, p_.threads),
                           static_cast<double>(ps[i].value), lower});
        }
        if (s.nr_samples() > 0)
            ops.push_back({fmt::format("{}-max-{}", metric, p_.threads),
                           static_cast<double>(s.max()), lower});
    }

    // sleep_for_runtime() adds the requests of each second to the RPS statistics; the model
    // adds each whole second after the warmup.
    SchbenchStats rps_stats() const {
        SchbenchStats s;
        for (size_t k = 0; k < per_second_.size(); ++k)
            if (static_cast<Nanos>(k) * NSEC_PER_SEC >= p_.warmuptime)
                s.add(static_cast<uint32_t>(per_second_[k]));
        return s;
    }

    // The time on the CPU the task runs on, where its program is at: the engine advances each CPU
    // to an event on its own (task_clock() gives the event's time).
    Nanos local_clock(const Task& t) const { return sys_->rqs[t.cpu].clock; }

    bool measuring(Nanos now) const { return now >= start_ + p_.warmuptime && now < end_; }

    // main(): starts the message threads, sleeps for the runtime, then posts each message thread
    // so that it sees `stopping`, and joins them.
    std::unique_ptr<TaskProgram> make_main() {
        int step = 0;
        return std::make_unique<FnProgram>([this, step](Task& t, Phase& ph) mutable {
            if (step == 0) {
                step = 1;
                start_ = task_clock(*sys_, t);
                end_ = start_ + p_.runtime;
                per_second_.assign(static_cast<size_t>(p_.runtime / NSEC_PER_SEC), 0);
                for (int m = 0; m < p_.message_threads; ++m)
                    msgs_[static_cast<size_t>(m)] = &proc_->pthread_create(
                        t, "schbench-msg", make_msg(m), 1 + m * (p_.threads + 1));
                make_wait_phase(ph, p_.runtime);
                return true;
            }
            if (step == 1) {
                step = 2;
                stopping_ = true;  // sleep_for_runtime(): stopping = 1
                ph.cpu_time = NSEC_PER_USEC;
                ph.futex_wake = msgs_;
                ph.exact_end = true;
                ph.join = true;
                return true;
            }
            return false;
        });
    }

    // message_thread(): starts its workers, then run_msg_thread(): wakes every worker that has
    // posted (xlist_wake_all(), one time stamp for the whole list) and waits to be posted again.
    std::unique_ptr<TaskProgram> make_msg(int m) {
        bool started = false, stopped = false;
        return std::make_unique<FnProgram>([this, m, started, stopped](Task& t, Phase& ph) mutable {
            if (!started) {
                started = true;
                for (int i = 0; i < p_.threads; ++i) {
                    const int w = m * p_.threads + i;
                    workers_[static_cast<size_t>(w)].task = &proc_->pthread_create(
                        t, "schbench-worker", make_worker(m, w), 1 + m * (p_.threads + 1) + 1 + i);
                }
            }
            if (stopped) return false;
            const Nanos now = local_clock(t);
            ph.cpu_time = NSEC_PER_USEC;
            ph.exact_end = true;
            if (stopping_) {
                // stopping: post every worker so that each sees it, then exit.
                stopped = true;
                for (int i = 0; i < p_.threads; ++i)
                    ph.futex_wake.push_back(workers_[static_cast<size_t>(m * p_.threads + i)].task);
                return true;
            }
            if (p_.rps > 0) {
                post_requests(m, now, ph);
                return true;
            }
            for (const int w : waiting_[static_cast<size_t>(m)]) {
                workers_[static_cast<size_t>(w)].wake_time = now;
                ph.futex_wake.push_back(workers_[static_cast<size_t>(w)].task);
            }
            waiting_[static_cast<size_t>(m)].clear();
            ph.futex_wait = true;
            return true;
        });
    }

    // run_rps_thread(), one second of it: -R / -m requests, round robin over the workers, each
    // posted with a time stamp and a futex wake, then a sleep for the rest of the second.
    void post_requests(int m, Nanos now, Phase& ph) {
        const int64_t per_msg = p_.rps / p_.message_threads;  // requests_per_sec /= -m
        std::vector<char> woken(static_cast<size_t>(p_.threads), 0);
        int full = 0;  // workers past RPS_BATCH: once all are, the rest of the second is skipped
        for (int k = 0; k < p_.threads; ++k)
            if (workers_[static_cast<size_t>(m * p_.threads + k)].pending > RPS_BATCH) ++full;
        for (int64_t i = 0; i < per_msg && full < p_.threads; ++i) {
            const int k = static_cast<int>(rps_cursor_[static_cast<size_t>(m)]++ % p_.threads);
            Worker& wk = workers_[static_cast<size_t>(m * p_.threads + k)];
            if (wk.pending > RPS_BATCH) continue;
            if (++wk.pending > RPS_BATCH) ++full;
            ++wk.queued;
            wk.wake_time = now;
            if (!woken[static_cast<size_t>(k)]) {
                woken[static_cast<size_t>(k)] = 1;
                ph.futex_wake.push_back(wk.task);
            }
        }
        ph.sleep_after = NSEC_PER_SEC - ph.cpu_time;
    }

    // worker_thread(): msg_and_wait(), then the wakeup latency, then its request (the default
    // mode) or the requests on its list (-R): each a usleep() and do_work(), timed as the request
    // latency.
    std::unique_ptr<TaskProgram> make_worker(int m, int w) {
        Step step = Step::MsgAndWait;
        return std::make_unique<FnProgram>([this, m, w, step](Task& t, Phase& ph) mutable {
            Worker& me = workers_[static_cast<size_t>(w)];
            const Nanos now = local_clock(t);
            if (stopping_) return false;
            ph.exact_end = true;
            switch (step) {
                case Step::MsgAndWait:
                    step = msg_and_wait(m, w, now, ph);
                    return true;
                case Step::Woken: {
                    // From the message thread's time stamp, or from the wakeup if this CPU's
                    // clock was past it when the wakeup was delivered (docs/workloads/schbench.md).
                    const Nanos from = std::max(me.wake_time, t.last_wakeup);
                    const auto us = static_cast<uint64_t>(std::max<Nanos>(0, now - from) / 1000);
                    if (us > 0 && measuring(now)) wakeup_.add(static_cast<uint32_t>(us));
                    if (p_.rps > 0) {  // back to msg_and_wait(), which takes the list
                        step = msg_and_wait(m, w, now, ph);
                    } else {
                        me.todo = 1;
                        step = start_request(me, now, ph);
                    }
                    return true;
                }
                case Step::Work:
                    // do_work(): the matrix math on the worker's own matrices.
                    ph.streams.push_back({.region = me.m3, .write_fraction = 0.5});
                    ph.rate_gbs = M3_BYTES_PER_ITERATION / MATH_NS_PER_ITERATION;
                    ph.work_bytes = work_bytes_;
                    step = Step::Done;
                    return true;
                case Step::Done:
                    finish_request(me, now);
                    step = --me.todo > 0 ? start_request(me, now, ph) : msg_and_wait(m, w, now, ph);
                    return true;
            }
            return false;
        });
    }

    // msg_and_wait(): the futex set to blocked, then, with -R, the requests on the worker's list
    // if there are any; else (default mode) onto the message thread's list, a post to it, and a
    // wait.
    Step msg_and_wait(int m, int w, Nanos now, Phase& ph) {
        Worker& me = workers_[static_cast<size_t>(w)];
        if (p_.rps > 0) {
            me.pending = 0;
            if (me.queued > 0) {
                me.todo = me.queued;
                me.queued = 0;
                return start_request(me, now, ph);
            }
        } else {
            waiting_[static_cast<size_t>(m)].push_back(w);
            ph.futex_wake = {msgs_[static_cast<size_t>(m)]};
        }
        ph.futex_wait = true;
        ph.cpu_time = NSEC_PER_USEC;
        return Step::Woken;
    }

    // A request's start (gettimeofday(&work_start)) and its usleep(): the model's wait phase, a
    // 1 us burst then the sleep.
    Step start_request(Worker& me, Nanos now, Phase& ph) const {
        me.work_start = now;
        ph.cpu_time = NSEC_PER_USEC;
        ph.sleep_after = static_cast<Nanos>(p_.sleep_usec) * NSEC_PER_USEC;
        return work_bytes_ > 0 ? Step::Work : Step::Done;  // -n 0: no math
    }

    void finish_request(Worker& me, Nanos now) {
        ++me.loops;
        if (!measuring(now)) return;
        if (const Nanos us = (now - me.work_start) / 1000; us > 0)
            request_.add(static_cast<uint32_t>(us));
        const auto k = static_cast<size_t>((now - start_) / NSEC_PER_SEC);
        if (k < per_second_.size()) ++per_second_[k];
    }

    SchbenchParams p_;
    uint64_t msize_ = 0;
    double work_bytes_ = 0;
    System* sys_ = nullptr;
    int index_ = 0;
    Nanos start_ = 0, end_ = 0;
    bool stopping_ = false;  // set by the main thread when the runtime is up
    std::unique_ptr<Process> proc_;
    std::vector<Worker> workers_;
    std::vector<Task*> msgs_;
    std::vector<std::vector<int>> waiting_;  // per message thread: its list of posted workers
    std::vector<uint64_t> rps_cursor_;       // -R, per message thread: cur_tid
    std::vector<uint64_t> per_second_;       // requests completed in each second of the run
    SchbenchStats wakeup_, request_;
};

const WorkloadRegistrar reg("schbench", "Chris Mason's scheduler wakeup-latency benchmark",
                            [](const TomlTable& t, const Topology& m) {
                                return std::make_unique<Schbench>(t, m);
                            });

}  // namespace

}  // namespace numasim
