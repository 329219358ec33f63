// `pmbench`: Jisoo Yang's paging/memory benchmark (pmbench.c, pattern.c, access.c), the
// benchmark the memory-tiering patch series report. One process maps `mapsize`; `jobs` threads
// each draw page numbers from the access pattern over the first `setsize` of it and touch one
// 32-bit word of each page (a read or a write by `ratio`), timing every access with RDTSCP.
// Each thread first times a million pattern draws, then (unless `cold`) warms up, meets the
// others at a barrier, and runs for `duration` seconds. The pattern's page distribution becomes
// access rates over ranges of the set (workload/pmbench_pattern.h). It reports what pmbench
// prints per thread: the net average page latency and the measurement details.
// docs/workloads/pmbench.md.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <memory>
#include <optional>

#include "config/limits.h"
#include "config/param_reader.h"
#include "cost/constants.h"
#include "engine/process.h"
#include "kernel/system.h"
#include "program/fits_machine.h"
#include "program/streams_spec.h"
#include "workload/common.h"
#include "workload/pmbench_pattern.h"
#include "workload/process_layout.h"
#include "workload/registry.h"

namespace numasim {

namespace {

// pmbench's only page size (main() refuses to run on any other).
constexpr uint64_t kPmbenchPageBytes = 4096;
constexpr uint64_t kMiB = uint64_t{1} << 20;
// Draws timed before the warm-up (iter_patternlap in main_bm_thread()).
constexpr double kPatternLapDraws = 1e6;
// The phases of the timed loop: the model looks at the clock this often (pmbench every 10000
// accesses, a few milliseconds).
constexpr Nanos kTimeCheck = 10 * NSEC_PER_MSEC;
// How often a job at the barrier looks whether the others have arrived.
constexpr Nanos kBarrierPoll = 100 * NSEC_PER_USEC;
// sys_delay() only spins for delays above this many cycles (main_bm_thread()).
constexpr int kMinDelayCycles = 10;

// CPU cycles per access besides the memory access itself, from Agner Fog's "Instruction tables"
// (Skylake-X, the core of Cascade Lake and of the later Xeons within a few cycles):
// RDTSCP, reciprocal throughput 32 cycles; each access sits between two of them (the stopwatch
// in access.c), and the second waits for the load before it, so accesses never overlap (MLP 1).
constexpr double kRdtscpCycles = 32;
// record_histogram(): an ilog2 (BSR, 3 cycles), two shifts and an increment of a cached counter.
constexpr double kRecordCycles = 10;
// Drawing one page number (the pattern module's get_next()), from the same tables:
//   linear: an add and a compare.
//   uniform: a 64-bit LCG step (IMUL 3 + ADD 1) and a 64-bit modulo (DIV r64, 35-88 cycles:
//            the low end for a divisor below 2^32).
//   normal: Marsaglia's polar Box-Muller, per pair of values: 1.27 tries (4/pi) of two LCG
//           steps, two int-to-double conversions (CVTSI2SD 4) and two divisions (DIVSD 14);
//           then log() (~40 in glibc), SQRTSD (16) and DIVSD (14): about 136, 68 per value.
//   normal_ih: 12 LCG steps and 12 32-bit modulos (IDIV r32, 26).
//   pareto/zipf: an LCG step, a 64-bit modulo, a DIVSD and pow() (~70 in glibc).
constexpr double kLinearDrawCycles = 2;
constexpr double kUniformDrawCycles = 4 + 35;
constexpr double kNormalDrawCycles = 68;
constexpr double kNormalIhDrawCycles = 12 * (4 + 26);
constexpr double kParetoDrawCycles = 4 + 35 + 14 + 70;
// `initialize` (-i): main() fills the whole map from an LCG, one byte store per 32-bit word;
// the LCG's multiply-add chain (IMUL 3 + ADD 1) bounds it at 4 bytes per 4 cycles.
constexpr double kInitBytesPerCycle = 1.0;

double draw_cycles(PmbenchPattern p) {
    switch (p) {
        case PmbenchPattern::Linear:
            return kLinearDrawCycles;
        case PmbenchPattern::Uniform:
            return kUniformDrawCycles;
        case PmbenchPattern::Normal:
            return kNormalDrawCycles;
        case PmbenchPattern::NormalIh:
            return kNormalIhDrawCycles;
        case PmbenchPattern::Pareto:
        case PmbenchPattern::Zipf:
            return kParetoDrawCycles;
    }
    return kUniformDrawCycles;
}

const char* pattern_name(PmbenchPattern p) {
    switch (p) {
        case PmbenchPattern::Linear:
            return "linear";
        case PmbenchPattern::Uniform:
            return "uniform";
        case PmbenchPattern::Normal:
            return "normal";
        case PmbenchPattern::NormalIh:
            return "normal_ih";
        case PmbenchPattern::Pareto:
            return "pareto";
        case PmbenchPattern::Zipf:
            return "zipf";
    }
    return "uniform";
}

// pmbench's options under their long names (--mapsize, --setsize, ...), defaults as
// set_default_params().
struct Params {
    int64_t duration = 120;  // the DURATION argument, seconds
    uint64_t mapsize = 256 * kMiB;
    uint64_t setsize = 128 * kMiB;
    PmbenchPattern pattern = PmbenchPattern::Uniform;
    double shape = 1.00001;
    int ratio = 50;
    int jobs = 1;
    bool cold = false;
    bool initialize = false;
    int delay = 0;  // cycles between accesses
    // numactl around pmbench: --cpunodebind/--physcpubind (empty: every CPU) and the memory
    // policy (--membind, --preferred, --interleave).
    std::vector<int> affinity;
    std::optional<MemPolicy> policy;
    // `sleep N; pmbench ...`: the time before main() starts (the address space exists from 0).
    Nanos start_after = 0;
};

// A size in whole MiB (pmbench's unit).
void mib_size(ParamReader& r, std::string_view key, uint64_t& v) {
    r.size(key, v, kMiB);
    if (v % kMiB) r.fail(key, fmt::format("must be a whole number of MiB, got {} bytes", v));
}

Params read_params(const TomlTable& t, const Topology& topo) {
    Params p;
    ParamReader r(t);
    r.integer("duration", p.duration, 1, kMaxDurationSeconds);
    mib_size(r, "mapsize", p.mapsize);
    mib_size(r, "setsize", p.setsize);
    if (p.setsize > p.mapsize)
        r.fail("setsize", fmt::format("{} MiB is more than mapsize, {} MiB", p.setsize / kMiB,
                                      p.mapsize / kMiB));
    check_fits_machine(r, "mapsize", p.mapsize, topo);
    r.choice("pattern", p.pattern,
             std::array{std::pair{PmbenchPattern::Linear, std::string_view("linear")},
                        std::pair{PmbenchPattern::Uniform, std::string_view("uniform")},
                        std::pair{PmbenchPattern::Normal, std::string_view("normal")},
                        std::pair{PmbenchPattern::NormalIh, std::string_view("normal_ih")},
                        std::pair{PmbenchPattern::Pareto, std::string_view("pareto")},
                        std::pair{PmbenchPattern::Zipf, std::string_view("zipf")}});
    switch (p.pattern) {
        case PmbenchPattern::Linear:  // the stride in pages, (int)shape
        case PmbenchPattern::Normal:  // the standard deviation in pages, (int)shape
            r.number("shape", p.shape, 1);
            break;
        case PmbenchPattern::Pareto:  // alpha
        case PmbenchPattern::Zipf:
            r.positive("shape", p.shape);
            break;
        case PmbenchPattern::Uniform:
        case PmbenchPattern::NormalIh:
            if (t.has("shape"))
                r.fail("shape",
                       fmt::format("the {} pattern takes no shape", pattern_name(p.pattern)));
            break;
    }
    r.integer("ratio", p.ratio, 0, 100);
    r.integer("jobs", p.jobs, 1, kMaxTasks - 1);
    r.flag("cold", p.cold);
    r.flag("initialize", p.initialize);
    r.integer("delay", p.delay, 0);
    if (t.has("affinity")) p.affinity = read_affinity(t, topo);
    p.policy = read_policy(t, topo, "policy");
    r.duration("start_after", p.start_after, 0, kMaxDurationSeconds * NSEC_PER_SEC);
    if (topo.hw.pages.size() != kPmbenchPageBytes)
        r.fail_here(fmt::format("pmbench runs on 4 KiB pages only; machine {} has {} KiB pages",
                                topo.name, topo.hw.pages.kib()));
    return p;
}

class Pmbench : public Workload {
  public:
    Pmbench(const TomlTable& t, const Topology& topo)
        : p_(read_params(t, topo)),
          set_pages_(p_.setsize / kPmbenchPageBytes),
          ranges_(pmbench_ranges(p_.pattern, set_pages_, p_.shape)) {}

    double phase_starts(double seconds) const override {
        return p_.jobs * (seconds / ns_to_s(kTimeCheck) + seconds / ns_to_s(kBarrierPoll) + 8) + 8;
    }

    void setup(System& sys, int index) override {
        sys_ = &sys;
        index_ = index;
        const double ghz = sys.topo.hw.cpu_ghz;
        draw_ns_ = draw_cycles(p_.pattern) / ghz;
        const double delay = p_.delay > kMinDelayCycles ? p_.delay : 0;
        // One cache line per access, at local latency plus the CPU work around it.
        const double local = sys.topo.hw.latency(10);
        const double line = cost::CACHE_LINE_BYTES;
        warm_rate_ = line / (local + (2 * kRdtscpCycles + draw_cycles(p_.pattern)) / ghz);
        bench_rate_ =
            line /
            (local + (2 * kRdtscpCycles + kRecordCycles + draw_cycles(p_.pattern) + delay) / ghz);
        proc_ = Process::exec(sys, dynamic_c_program("/usr/local/bin/pmbench"));
        if (!p_.affinity.empty()) proc_->set_exec_affinity(p_.affinity);
        const uint32_t prot = p_.ratio < 100 ? VM_READ | VM_WRITE : VM_READ;
        Vma& v = proc_->mmap(p_.mapsize, "map", prot);
        map_ = &proc_->region(v, 0, p_.mapsize / kPmbenchPageBytes, "map");
        const double wf = 1 - pmbench_read_fraction(p_.ratio);
        double total = 0;
        for (const PmbenchRange& rg : ranges_)
            total += rg.mass;
        for (size_t i = 0; i < ranges_.size(); ++i) {
            const PmbenchRange& rg = ranges_[i];
            Region& reg = proc_->region(v, rg.first, rg.count, fmt::format("set[{}]", i));
            streams_.push_back(
                {.region = &reg,
                 .pattern = p_.pattern == PmbenchPattern::Linear ? Pattern::Sweep : Pattern::Random,
                 .share = rg.mass / total,
                 .write_fraction = wf});
        }
        threads_.resize(static_cast<size_t>(p_.jobs));
        proc_->start(nullptr, "pmbench", make_main(), index, 0);
    }

    WorkloadResult result(const System& sys) const override {
        WorkloadResult r;
        const auto tasks = workload_tasks(sys, index_);
        const double ghz = sys.topo.hw.cpu_ghz;
        auto clks = [&](double us) { return static_cast<int64_t>(us * 1e3 * ghz); };
        double accesses = 0, net_sum = 0, seconds = 0;
        int measured = 0;
        std::string lines;
        for (const Task* t : tasks) {
            if (t->thread_index == 0) {
                r.tasks.push_back({task_figures(sys, *t), {}});
                continue;
            }
            const Thread& th = threads_[static_cast<size_t>(t->thread_index - 1)];
            const Nanos end = th.finished ? th.bench_end : sys.now;
            const double n = th.started ? t->total_ops : 0;
            const double el =
                th.started && end > th.bench_start ? static_cast<double>(end - th.bench_start) : 0;
            const std::optional<double> bench_us =
                n > 0 ? std::optional<double>(el / n / 1e3) : std::nullopt;
            const double gen_us = draw_ns_ / 1e3;
            const std::optional<double> net_us =
                bench_us ? std::optional<double>(*bench_us - gen_us) : std::nullopt;
            const double warm_n = th.warm_end ? static_cast<double>(warmup_accesses()) : 0;
            const std::optional<double> warm_us =
                warm_n > 0 ? std::optional<double>(
                                 static_cast<double>(th.warm_end - th.warm_start) / warm_n / 1e3)
                           : std::nullopt;
            r.tasks.push_back({task_figures(sys, *t),
                               {{"net_latency_us", net_us},
                                {"bench_latency_us", bench_us},
                                {"bench_samples", n},
                                {"warmup_latency_us", warm_us},
                                {"warmup_samples", warm_n}}});
            lines += fmt::format("Thread {}/{}:\n", t->thread_index, p_.jobs);
            if (net_us) {
                accesses += n;
                net_sum += *net_us;
                seconds = std::max(seconds, el / 1e9);
                ++measured;
                lines +=
                    fmt::format("Net average page latency (Arith. mean): {:.4f} us ({} clks)\n",
                                *net_us, clks(*net_us));
                lines += "--- Measurement details ---\n";
                lines +=
                    fmt::format("  Page latency during benchmark (inc. gen): {:.4f} us ({} clks)\n",
                                *bench_us, clks(*bench_us));
                lines += fmt::format("    Total samples count: {:.0f}\n", n);
            } else {
                lines +=
                    "Net average page latency (Arith. mean): - (the benchmark did not start)\n";
                lines += "--- Measurement details ---\n";
            }
            lines +=
                fmt::format("  Pattern generation overhead per drawing : {:.4f} us ({} clks)\n",
                            gen_us, clks(gen_us));
            lines += fmt::format("    Total samples count: {:.0f}\n", kPatternLapDraws);
            if (p_.cold) continue;
            if (warm_us) {
                lines +=
                    fmt::format("  Page latency during warmup              : {:.4f} us ({} clks)\n",
                                *warm_us, clks(*warm_us));
                lines += fmt::format("    Total samples count: {:.0f}\n", warm_n);
            }
        }
        const std::optional<double> net =
            measured ? std::optional<double>(net_sum / measured) : std::nullopt;
        const double tput = seconds > 0 ? accesses / seconds : 0;
        r.figures = {{"pattern", pattern_name(p_.pattern)},
                     {"shape", p_.shape},
                     {"mapsize_mib", p_.mapsize / kMiB},
                     {"setsize_mib", p_.setsize / kMiB},
                     {"ratio", p_.ratio},
                     {"jobs", p_.jobs},
                     {"ranges", ranges_.size()},
                     {"net_latency_us", net},
                     {"accesses", accesses},
                     {"accesses_per_s", tput}};
        if (net) r.operations.push_back({"lat-net-us", *net, true});
        if (tput > 0) r.operations.push_back({"tput-accesses", tput, false});
        r.summary =
            fmt::format("pmbench: {} over {} MiB of a {} MiB map, {}% reads, {} jobs, {} s{}\n",
                        pattern_name(p_.pattern), p_.setsize / kMiB, p_.mapsize / kMiB, p_.ratio,
                        p_.jobs, p_.duration, p_.cold ? ", cold" : "");
        r.summary += "----------- Average access latency ------------\n" + lines;
        r.summary +=
            "----------------- Statistics ------------------\n"
            "(the latency histogram is not modelled: docs/workloads/pmbench.md)\n";
        return r;
    }

  private:
    struct Thread {
        Nanos warm_start = 0, warm_end = 0;
        Nanos bench_start = 0, bench_end = 0;
        bool started = false, finished = false;
    };

    uint64_t warmup_accesses() const { return pmbench_warmup_accesses(p_.pattern, set_pages_); }

    // The time at which p, being advanced by the engine, asks for its next phase.
    Nanos clock_of(const Task& p) const { return sys_->rqs[static_cast<size_t>(p.cpu)].clock; }

    void access_phase(Phase& ph, double rate) const {
        ph.streams = streams_;
        ph.rate_gbs = rate;
        ph.mlp = 1;
    }

    // main() under numactl: the policy (inherited by the jobs), the map's fill (`initialize`),
    // the jobs, then pthread_join().
    std::unique_ptr<TaskProgram> make_main() {
        enum Stage { Sleep, Policy, Init, Spawn, Done };
        Stage stage = Sleep;
        return std::make_unique<FnProgram>([this, stage](Task& t, Phase& ph) mutable {
            switch (stage) {
                case Sleep:
                    stage = Policy;
                    if (p_.start_after > 0) {
                        make_wait_phase(ph, p_.start_after);
                        return true;
                    }
                    [[fallthrough]];
                case Policy:
                    stage = Init;
                    if (p_.policy) {
                        ph.set_mempolicy = p_.policy;
                        ph.cpu_time = NSEC_PER_USEC;
                        return true;
                    }
                    [[fallthrough]];
                case Init:
                    stage = Spawn;
                    if (p_.initialize) {
                        ph.streams.push_back({.region = map_, .write_fraction = 1.0});
                        ph.rate_gbs = kInitBytesPerCycle * sys_->topo.hw.cpu_ghz;
                        ph.work_bytes = static_cast<double>(p_.mapsize);
                        return true;
                    }
                    [[fallthrough]];
                case Spawn:
                    stage = Done;
                    for (int i = 1; i <= p_.jobs; ++i)
                        proc_->pthread_create(t, "pmbench", make_job(i), i);
                    ph.cpu_time = NSEC_PER_USEC;
                    ph.join = true;
                    return true;
                case Done:
                    return false;
            }
            return false;
        });
    }

    // main_bm_thread(): the timed draws, the warm-up, the barrier, the timed loop.
    std::unique_ptr<TaskProgram> make_job(int n) {
        enum Stage { Draws, Warmup, Barrier, Bench };
        Stage stage = Draws;
        bool arrived = false;
        return std::make_unique<FnProgram>([this, n, stage, arrived](Task& t, Phase& ph) mutable {
            Thread& th = threads_[static_cast<size_t>(n - 1)];
            const Nanos now = clock_of(t);
            switch (stage) {
                case Draws:
                    stage = p_.cold ? Barrier : Warmup;
                    ph.cpu_time =
                        std::max<Nanos>(1, static_cast<Nanos>(kPatternLapDraws * draw_ns_));
                    return true;
                case Warmup:
                    stage = Barrier;
                    th.warm_start = now;
                    access_phase(ph, warm_rate_);
                    ph.work_bytes = static_cast<double>(warmup_accesses()) * cost::CACHE_LINE_BYTES;
                    return true;
                case Barrier:
                    // pthread_barrier_wait(): the jobs wait until every one has warmed up,
                    // looking every kBarrierPoll (a futex wake would come microseconds after
                    // the last arrival; the model's jobs may be advanced out of time order).
                    if (!arrived) {
                        arrived = true;
                        ++arrived_;
                        if (!p_.cold) th.warm_end = now;
                    }
                    if (arrived_ < p_.jobs) {
                        make_wait_phase(ph, kBarrierPoll);
                        return true;
                    }
                    stage = Bench;
                    [[fallthrough]];
                case Bench:
                    if (!th.started) {
                        th.started = true;
                        th.bench_start = now;
                    }
                    if (now >= th.bench_start + p_.duration * NSEC_PER_SEC) {
                        th.finished = true;
                        th.bench_end = now;
                        return false;
                    }
                    access_phase(ph, bench_rate_);
                    ph.ops_per_byte = 1.0 / cost::CACHE_LINE_BYTES;
                    ph.cpu_time =
                        std::min(kTimeCheck, th.bench_start + p_.duration * NSEC_PER_SEC - now);
                    return true;
            }
            return false;
        });
    }

    Params p_;
    uint64_t set_pages_;
    std::vector<PmbenchRange> ranges_;
    System* sys_ = nullptr;
    int index_ = 0;
    double draw_ns_ = 0, warm_rate_ = 0, bench_rate_ = 0;
    std::unique_ptr<Process> proc_;
    Region* map_ = nullptr;
    std::vector<AccessStream> streams_;
    std::vector<Thread> threads_;
    int arrived_ = 0;  // jobs at the barrier
};

const WorkloadRegistrar reg(
    "pmbench", "Jisoo Yang's pmbench: page accesses by pattern over a working set (tiering)",
    [](const TomlTable& t, const Topology& m) { return std::make_unique<Pmbench>(t, m); });

}  // namespace

}  // namespace numasim
