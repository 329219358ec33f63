// `request-serving`: one process whose worker threads serve requests from an open-loop Poisson
// arrival stream. Each request needs a CPU time drawn from a service-time distribution and reads
// its working set, so where the working set's pages are (first touch, policy, and NUMA
// balancing's migrations) decides through the cost model how long it takes. It reports the
// requests' latency percentiles (arrival to completion: queueing, wake-up, service and what the
// kernel charged the worker meanwhile) and the throughput. docs/workloads/request-serving.md.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <memory>
#include <optional>

#include "config/limits.h"
#include "config/param_reader.h"
#include "cost/constants.h"
#include "engine/process.h"
#include "kernel/latency.h"
#include "kernel/system.h"
#include "program/streams_spec.h"
#include "workload/common.h"
#include "workload/process_layout.h"
#include "workload/registry.h"
#include "workload/request_queue.h"

namespace numasim {

namespace {

// sigma of a lognormal service time at most: at 4 the mean is e^8 (about 3000) times the
// median, and most of it comes from draws rarer than one in a million, which no simulated run
// of seconds samples; the run's measured mean would be far below the `service_time` asked for.
constexpr double kMaxServiceSigma = 4;

struct Params {
    int workers = 0;
    double rate = 0;  // requests per second offered
    uint64_t working_set = 0;
    uint64_t request_bytes = 0;  // bytes of the working set a request of mean service time reads
    ServiceTime service;
    double write_fraction = 0;
    double mlp = 0;
    std::vector<int> affinity;  // empty: every CPU
    std::optional<MemPolicy> policy;
    std::vector<double> percentiles = {50, 99, 99.9};
    Nanos p99_target = 0;  // 0: none
    Nanos warmup = 0;      // requests that arrive this long after the start are not counted
};

Params read_params(const TomlTable& t, const Topology& topo) {
    Params p;
    ParamReader r(t);
    r.integer("workers", p.workers, 1, kMaxTasks);
    r.positive("rate", p.rate);
    r.size("working_set", p.working_set, topo.hw.pages.size());
    r.size("request_bytes", p.request_bytes, static_cast<uint64_t>(cost::CACHE_LINE_BYTES));
    r.duration("service_time", p.service.mean, 1);
    r.choice("service_dist", p.service.dist,
             std::array{std::pair{ServiceDist::Fixed, std::string_view("fixed")},
                        std::pair{ServiceDist::Exponential, std::string_view("exponential")},
                        std::pair{ServiceDist::Lognormal, std::string_view("lognormal")}});
    if (p.service.dist == ServiceDist::Lognormal && !t.has("service_sigma"))
        r.fail("service_sigma",
               "required with service_dist = \"lognormal\": the standard deviation of "
               "ln(service time)");
    if (p.service.dist == ServiceDist::Lognormal)
        r.positive("service_sigma", p.service.sigma, kMaxServiceSigma);
    else if (t.has("service_sigma"))
        r.fail("service_sigma", "applies to service_dist = \"lognormal\" only");
    r.number("write_fraction", p.write_fraction, 0, 1);
    r.number("mlp", p.mlp, 0, kMaxPhaseMlp);
    if (t.has("affinity")) p.affinity = read_affinity(t, topo);
    p.policy = read_policy(t, topo, "policy");
    if (t.has("percentiles")) {
        p.percentiles = t.get_double_array("percentiles");
        if (p.percentiles.empty()) r.fail("percentiles", "empty list");
        for (double pct : p.percentiles)
            if (!(pct >= 0 && pct <= 100))
                r.fail("percentiles", fmt::format("{} is not a percentile (0 to 100)", pct));
    }
    if (t.has("p99_target")) r.duration("p99_target", p.p99_target, 1);
    r.duration("warmup", p.warmup, 0);
    // The requests' phases read at this rate (docs/scenario.md, "Errors and limits").
    if (const double gbs =
            static_cast<double>(p.request_bytes) / static_cast<double>(p.service.mean);
        gbs > kMaxRateGbs)
        r.fail("request_bytes",
               fmt::format("{} bytes in service_time {:g} us is {:g} GB/s, more than {:g} GB/s",
                           p.request_bytes, p.service.mean / 1e3, gbs, kMaxRateGbs));
    const int cpus = p.affinity.empty() ? topo.nr_cpus() : static_cast<int>(p.affinity.size());
    const double sat = saturation_rate(p.workers, cpus, p.service.mean);
    if (p.rate >= sat)
        r.fail("rate", fmt::format("{:g} requests/s is at or beyond the saturation rate {:g}/s "
                                   "(min(workers {}, CPUs {}) / service_time {:g} us): the "
                                   "workers could never serve it",
                                   p.rate, sat, p.workers, cpus, p.service.mean / 1e3));
    return p;
}

double us(Nanos ns) {
    return static_cast<double>(ns) / NSEC_PER_USEC;
}

// "Lat 99.0th-qrtle-request": mmtests' name of a latency percentile (its schbench rows).
std::string percentile_operation(double pct) {
    return fmt::format("Lat {:.1f}th-qrtle-request", pct);
}

class RequestServing : public Workload {
  public:
    RequestServing(const TomlTable& t, const Topology& topo)
        : p_(read_params(t, topo)),
          rate_gbs_(static_cast<double>(p_.request_bytes) / static_cast<double>(p_.service.mean)) {}

    // At most two phases per request (a wait and a batch), and the start-up.
    double phase_starts(double seconds) const override {
        return 2 * p_.rate * seconds + 2.0 * p_.workers + 2;
    }

    void setup(System& sys, int index) override {
        sys_ = &sys;
        index_ = index;
        // The runner detaches the recorder before it asks for the result.
        latency_on_ = sys.latency != nullptr;
        proc_ = Process::exec(sys, dynamic_c_program("/usr/local/bin/request-server"));
        if (!p_.affinity.empty()) proc_->set_exec_affinity(p_.affinity);
        Vma& v = proc_->mmap(p_.working_set, "working_set", VM_READ | VM_WRITE);
        region_ = &proc_->region(v, 0, proc_->mm().pages.pages(p_.working_set), "working_set");
        workers_.resize(static_cast<size_t>(p_.workers));
        proc_->start(nullptr, "server", make_worker(0), index, 0);
    }

    WorkloadResult result(const System& sys) const override {
        WorkloadResult r;
        for (const Task* t : workload_tasks(sys, index_))
            r.tasks.push_back({task_figures(sys, *t), {}});
        std::vector<Nanos> sorted = latencies_;
        std::sort(sorted.begin(), sorted.end());
        const uint64_t n = sorted.size();
        const Nanos from = start_ + p_.warmup;
        const double seconds = started_ && sys.now > from ? ns_to_s(sys.now - from) : 0;
        const double tput = seconds > 0 ? static_cast<double>(n) / seconds : 0;
        auto pct = [&](double p) -> std::optional<double> {
            if (sorted.empty()) return std::nullopt;
            return us(percentile_of_sorted(sorted, p));
        };
        double sum = 0;
        for (Nanos l : sorted)
            sum += static_cast<double>(l);
        const std::optional<double> mean =
            n ? std::optional<double>(sum / static_cast<double>(n) / NSEC_PER_USEC) : std::nullopt;
        const std::optional<double> p99 = pct(99);
        std::optional<double> target, balancing;
        FigureValue within;  // no value without a target or a request
        if (p_.p99_target) {
            target = us(p_.p99_target);
            if (p99) within = *p99 <= *target;
        }
        if (latency_on_ && n) balancing = us(balancing_ns_) / static_cast<double>(n);
        const int cpus = p_.affinity.empty() ? sys.nr_cpus() : static_cast<int>(p_.affinity.size());
        r.figures = {{"workers", p_.workers},
                     {"offered_rate", p_.rate},
                     {"saturation_rate", saturation_rate(p_.workers, cpus, p_.service.mean)},
                     {"requests", n},
                     {"seconds", seconds},
                     {"throughput", tput},
                     {"mean_us", mean}};
        std::string line;
        for (double p : p_.percentiles) {
            const std::string name = fmt::format("p{}_us", p);
            r.figures.push_back({name, pct(p)});
            if (auto v = pct(p)) {
                r.operations.push_back({percentile_operation(p), *v, true});
                line += fmt::format("{}p{} {:.1f} us", line.empty() ? "" : ", ", p, *v);
            }
        }
        r.figures.push_back({"p99_target_us", target});
        r.figures.push_back({"p99_within_target", within});
        r.figures.push_back({"balancing_us_per_request", balancing});
        r.operations.push_back({"tput-requests", tput, false});
        r.summary = fmt::format(
            "request-serving: {} workers, {:g} requests/s offered, {:.1f} served/s ({} requests "
            "in {:.2f} s)\n",
            p_.workers, p_.rate, tput, n, seconds);
        if (n) {
            r.summary += fmt::format("  latency {}, mean {:.1f} us", line, *mean);
            if (target)
                r.summary += fmt::format("; p99 target {:g} us: {}", *target,
                                         *p99 <= *target ? "met" : "exceeded");
            if (balancing)
                r.summary += fmt::format("; balancing {:.2f} us per request", *balancing);
            r.summary += "\n";
        }
        return r;
    }

  private:
    struct Worker {
        std::optional<ArrivalStream> arrivals;
        bool serving = false;  // its phase is a batch of requests
        Nanos batch_start = 0;
        Nanos balancing_at_start = 0;
        std::vector<Nanos> batch_arrivals;
        std::vector<double> cum_bytes;
    };

    // What the latency recorder has charged task p so far (0 without --latency): balancing's
    // own stretches, not the remote-access stall, which is placement's and no charge, nor
    // direct reclaim, which is the allocator's.
    Nanos balancing_of(const Task& p) const {
        if (!sys_->latency) return 0;
        const LatencyHists* h = sys_->latency->of(p.index);
        if (!h) return 0;
        Nanos s = 0;
        for (size_t k = 0; k < kLatencyKinds; ++k)
            if (static_cast<LatencyKind>(k) != LatencyKind::RemoteStall &&
                static_cast<LatencyKind>(k) != LatencyKind::DirectReclaim)
                s += static_cast<Nanos>(h->sum_ns[k]);
        return s;
    }

    // Worker 0 is the main thread: it writes the working set (under the process's policy),
    // starts the arrival streams and creates the other workers; then every worker serves.
    std::unique_ptr<TaskProgram> make_worker(int w) {
        bool first_touch = w == 0;
        return std::make_unique<FnProgram>([this, w, first_touch](Task& t, Phase& ph) mutable {
            if (first_touch) {
                first_touch = false;
                ph.rate_gbs = BZERO_RATE_GBS;
                ph.streams.push_back({.region = region_, .write_fraction = 1.0});
                ph.work_bytes = static_cast<double>(p_.working_set);
                ph.set_mempolicy = p_.policy;
                return true;
            }
            if (!started_) start(t);
            return serve(workers_[static_cast<size_t>(w)], t, ph);
        });
    }

    void start(Task& main) {
        started_ = true;
        start_ = clock_of(main);
        // Each worker has its own queue: a random split of one Poisson stream of `rate` into
        // `workers` Poisson streams of rate / workers.
        const double each = p_.rate / p_.workers;
        for (size_t i = 0; i < workers_.size(); ++i) {
            workers_[i].arrivals.emplace(
                Rng(sys_->seed, fmt::format("workload.{}.request-serving.{}", index_, i)), each,
                start_);
            sys_->events.push(workers_[i].arrivals->next(), EV_SYNC);
        }
        for (int i = 1; i < p_.workers; ++i)
            proc_->pthread_create(main, "server", make_worker(i), i);
    }

    // The time at which p, being advanced by the engine, asks for its next phase: its CPU's
    // clock (task_clock() gives the event the engine advances to, which may be later).
    Nanos clock_of(const Task& p) const { return sys_->rqs[static_cast<size_t>(p.cpu)].clock; }

    bool serve(Worker& wk, Task& t, Phase& ph) {
        const Nanos now = clock_of(t);
        if (wk.serving) finish_batch(wk, t, now);
        ArrivalStream& a = *wk.arrivals;
        if (a.next() > now) {
            // No request waits: the worker sleeps until the next one arrives, woken by its
            // arrival. Each arrival is an event (EV_SYNC), so the engine does not advance the
            // CPUs past an arrival before its worker has seen it: a sleep that ended before the
            // event the CPUs are advanced to could only end there. The engine may have been
            // advancing past it already when the arrival was drawn (its event then came too
            // late); such a request the worker waits for on the CPU (polls) and serves as it
            // arrives, unless another task waits for the CPU: then it sleeps and gives the CPU
            // up, and its wake-up comes at that event.
            if (a.next() > sys_->now || !sys_->rqs[static_cast<size_t>(t.cpu)].queued.empty()) {
                ph.cpu_time = 1;
                ph.sleep_after = a.next() - now - 1;
            } else {
                ph.cpu_time = a.next() - now;
            }
            return true;
        }
        // Every request that has arrived is served back to back in one phase (one request,
        // unless a queue has formed).
        wk.batch_arrivals.clear();
        wk.cum_bytes.clear();
        double bytes = 0;
        while (a.next() <= now) {
            wk.batch_arrivals.push_back(a.take());
            bytes += static_cast<double>(p_.service.draw(a.rng())) * rate_gbs_;
            wk.cum_bytes.push_back(bytes);
        }
        sys_->events.push(a.next(), EV_SYNC);
        ph.streams.push_back(
            {.region = region_, .pattern = Pattern::Random, .write_fraction = p_.write_fraction});
        ph.rate_gbs = rate_gbs_;
        ph.mlp = p_.mlp;
        ph.work_bytes = bytes;
        wk.serving = true;
        wk.batch_start = now;
        wk.balancing_at_start = balancing_of(t);
        return true;
    }

    void finish_batch(Worker& wk, const Task& t, Nanos now) {
        wk.serving = false;
        batch_completions(wk.batch_start, now, wk.cum_bytes, done_);
        const Nanos counted_from = start_ + p_.warmup;
        size_t counted = 0;
        for (size_t i = 0; i < done_.size(); ++i) {
            if (wk.batch_arrivals[i] < counted_from) continue;
            latencies_.push_back(done_[i] - wk.batch_arrivals[i]);
            ++counted;
        }
        // The charges are the batch's; its counted requests take their share by number.
        if (counted)
            balancing_ns_ += (balancing_of(t) - wk.balancing_at_start) *
                             static_cast<Nanos>(counted) / static_cast<Nanos>(done_.size());
    }

    Params p_;
    double rate_gbs_;  // bytes per ns a request reads at local memory
    System* sys_ = nullptr;
    int index_ = 0;
    std::unique_ptr<Process> proc_;
    Region* region_ = nullptr;
    std::vector<Worker> workers_;
    bool started_ = false;
    Nanos start_ = 0;               // the arrival streams' origin: the working set is written
    std::vector<Nanos> latencies_;  // every completed request's, in completion order
    std::vector<Nanos> done_;       // scratch: a batch's completion times
    Nanos balancing_ns_ = 0;        // the latency recorder's charges inside counted requests
    bool latency_on_ = false;
};

const WorkloadRegistrar reg(
    "request-serving",
    "worker threads serving an open-loop Poisson request stream (request latency)",
    [](const TomlTable& t, const Topology& m) { return std::make_unique<RequestServing>(t, m); });

}  // namespace

}  // namespace numasim
