// Whole-simulation benchmarks: how fast the engine simulates a busy machine and how much host
// memory a simulated page costs.
//
//   BM_Foundation     haswell-2s (2 nodes, 48 CPUs), 48 busy threads over 16 GiB, each sweeping
//                     its own 1/48 of one 16 GiB buffer: simulated seconds per wall second, peak
//                     RSS, faults per wall second.
//   BM_MemoryPerPage  maps and touches N GiB in a System (every page present, then PROT_NONE)
//                     and divides the RSS growth by the pages.
//   BM_Scaling        wall time per simulated second at 1x, 2x, 4x and 8x CPUs, tasks and
//                     memory (one varied, the others fixed); scripts/bench-scaling.sh fits the
//                     log-log slopes.
//
// BM_Foundation and BM_MemoryPerPage run their measurement in a forked child so that RSS and
// peak RSS (getrusage ru_maxrss) belong to that measurement alone.
#include <benchmark/benchmark.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/engine.h"
#include "engine/process.h"
#include "kernel/system.h"
#include "machine/cpu_layout.h"
#include "machine/presets.h"
#include "mm/fault.h"
#include "mm/mm.h"
#include "numab/numab.h"
#include "numab/profile.h"
#include "sched/fair.h"
#include "workload/phase_list.h"

namespace numasim {
namespace {

constexpr uint64_t kSeed = 42;
constexpr Nanos kForever = 1000000 * NSEC_PER_SEC;

double now_s() {
    using namespace std::chrono;
    return duration<double>(steady_clock::now().time_since_epoch()).count();
}

// Resident set of this process now, bytes (/proc/self/statm).
double rss_bytes() {
    long pages = 0, resident = 0;
    if (std::FILE* f = std::fopen("/proc/self/statm", "r")) {
        if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
        std::fclose(f);
    }
    return static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE));
}

double maxrss_bytes() {
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    return static_cast<double>(ru.ru_maxrss) * 1024.0;
}

// Runs `f` in a forked child and returns the values it produced (empty on failure).
std::vector<double> in_child(const std::function<std::vector<double>()>& f, size_t n) {
    int fds[2];
    if (pipe(fds) != 0) return {};
    std::fflush(nullptr);
    const pid_t pid = fork();
    if (pid < 0) return {};
    if (pid == 0) {
        close(fds[0]);
        std::vector<double> v = f();
        v.resize(n);
        const char* p = reinterpret_cast<const char*>(v.data());
        size_t left = n * sizeof(double);
        while (left > 0) {
            const ssize_t w = write(fds[1], p, left);
            if (w <= 0) _exit(1);
            p += w;
            left -= static_cast<size_t>(w);
        }
        _exit(0);
    }
    close(fds[1]);
    std::vector<double> v(n);
    char* p = reinterpret_cast<char*>(v.data());
    size_t left = n * sizeof(double);
    while (left > 0) {
        const ssize_t r = read(fds[0], p, left);
        if (r <= 0) break;
        p += r;
        left -= static_cast<size_t>(r);
    }
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    if (left != 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return {};
    return v;
}

// `procs` processes with `threads` threads each; every process has one buffer of `mb_per_proc`
// MiB split into per-thread slices that each thread sweeps (first touch included) at 4 GB/s,
// as NUMA01_THREADLOCAL does.
struct Sim {
    std::unique_ptr<System> sys;
    std::vector<std::unique_ptr<PhaseList>> programs;
};

Sim thread_local_sweeps(Topology topo, int procs, int threads, uint64_t mb_per_proc) {
    Sim s;
    s.sys = std::make_unique<System>(std::move(topo), load_profile("v6.12"), kSeed);
    System& sys = *s.sys;
    for (int pr = 0; pr < procs; ++pr) {
        Mm& mm = mm_create(sys);
        Vma& v = do_mmap(sys, mm, mb_per_proc << 20, VM_READ | VM_WRITE, "buffer");
        const uint64_t pages = v.nr_pages();
        Task* leader = nullptr;
        for (int t = 0; t < threads; ++t) {
            const uint64_t first =
                pages * static_cast<uint64_t>(t) / static_cast<uint64_t>(threads);
            const uint64_t last =
                pages * static_cast<uint64_t>(t + 1) / static_cast<uint64_t>(threads);
            Region& r = add_region(sys, v, first, last - first, "slice" + std::to_string(t));
            Phase ph;
            ph.streams.push_back(AccessStream{&r, Pattern::Sweep, 1.0, 1.0});
            ph.rate_gbs = 4.0;
            ph.cpu_time = kForever;
            s.programs.push_back(std::make_unique<PhaseList>(std::vector<Phase>{ph}));
            if (t == 0)
                leader = &create_process(sys, mm, nullptr, "proc", s.programs.back().get(), 0, 0);
            else
                create_thread(sys, *leader, "thread", s.programs.back().get(), t);
        }
    }
    return s;
}

// ---------------------------------------------------------------------------------------------
// BM_Foundation: the foundation case. Arg: simulated seconds.
void BM_Foundation(benchmark::State& state) {
    const Nanos dur = state.range(0) * NSEC_PER_SEC;
    std::vector<double> v;
    for (auto _ : state) {
        v = in_child(
            [dur] {
                const double rss0 = rss_bytes();
                Sim s = thread_local_sweeps(load_preset("haswell-2s"), 1, 48, 16 * 1024);
                Engine engine(*s.sys);
                const double t0 = now_s();
                const Nanos end = engine.run(dur);
                const double wall = now_s() - t0;
                const Counters& c = s.sys->counters;
                return std::vector<double>{ns_to_s(end) / wall,
                                           maxrss_bytes(),
                                           rss_bytes() - rss0,
                                           static_cast<double>(c[Vm::numa_hint_faults]) / wall,
                                           static_cast<double>(c[Vm::pgfault]) / wall,
                                           static_cast<double>(engine.ticks()) / wall,
                                           wall,
                                           static_cast<double>(c[Vm::numa_hint_faults])};
            },
            8);
        if (v.empty()) {
            state.SkipWithError("child failed");
            return;
        }
        state.SetIterationTime(v[6]);
    }
    state.counters["sim_s_per_wall_s"] = v[0];
    state.counters["peak_rss_MiB"] = v[1] / (1 << 20);
    state.counters["rss_growth_MiB"] = v[2] / (1 << 20);
    state.counters["hint_faults_per_s"] = v[3];
    state.counters["pgfaults_per_s"] = v[4];
    state.counters["ticks_per_s"] = v[5];
    state.counters["hint_faults"] = v[7];
    state.SetLabel("haswell-2s, 48 threads, 16 GiB");
}
BENCHMARK(BM_Foundation)
    ->ArgName("sim_s")
    ->Arg(10)
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

// ---------------------------------------------------------------------------------------------
// BM_MemoryPerPage: host bytes per simulated 4 KiB page. A single task on x86-8s-144c (1 TiB of
// simulated memory) maps `GiB`, first-touches every page through handle_mm_fault and makes all
// of them PROT_NONE with change_prot_numa; bytes_per_page = RSS growth / pages (fixed costs
// included; the slope between two sizes is the marginal cost).
void BM_MemoryPerPage(benchmark::State& state) {
    const uint64_t gib = static_cast<uint64_t>(state.range(0));
    std::vector<double> v;
    for (auto _ : state) {
        v = in_child(
            [gib] {
                const double rss0 = rss_bytes();
                auto sys = std::make_unique<System>(load_preset("x86-8s-144c"),
                                                    load_profile("v6.12"), kSeed);
                Mm& mm = mm_create(*sys);
                Vma& vma = do_mmap(*sys, mm, gib << 30, VM_READ | VM_WRITE, "data");
                add_region(*sys, vma, 0, vma.nr_pages(), "data");
                PhaseList prog({});
                Task& p = create_process(*sys, mm, nullptr, "toucher", &prog, 0, 0);
                const double t0 = now_s();
                for (uint64_t i = 0; i < vma.nr_pages(); ++i)
                    handle_mm_fault(*sys, p, vma, i, true);
                const double touch = now_s() - t0;
                double ns = 0;
                change_prot_numa(*sys, p, vma, vma.start, vma.end, ns);
                const double pages = static_cast<double>(vma.nr_pages());
                const double grow = rss_bytes() - rss0;
                return std::vector<double>{grow / pages, grow, maxrss_bytes(), pages / touch,
                                           touch};
            },
            5);
        if (v.empty()) {
            state.SkipWithError("child failed");
            return;
        }
        state.SetIterationTime(v[4]);
    }
    state.counters["bytes_per_page"] = v[0];
    state.counters["rss_growth_MiB"] = v[1] / (1 << 20);
    state.counters["peak_rss_MiB"] = v[2] / (1 << 20);
    state.counters["first_touch_faults_per_s"] = v[3];
}
BENCHMARK(BM_MemoryPerPage)
    ->ArgName("GiB")
    ->Arg(1)
    ->Arg(4)
    ->Arg(16)
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

// ---------------------------------------------------------------------------------------------
// BM_Scaling: wall time to simulate `sim_ms` with one dimension scaled 1x, 2x, 4x, 8x:
//   dim 0 CPUs:   2 nodes x {3, 6, 12, 24} cores x SMT2 = 12..96 CPUs (haswell-2s hardware),
//                 12 tasks, 1.5 GiB;
//   dim 1 tasks:  haswell-2s (48 CPUs), {6, 12, 24, 48} tasks, 1.5 GiB;
//   dim 2 memory: haswell-2s, 12 tasks, {1, 2, 4, 8} GiB;
//   dim 3 busy machine: CPUs and tasks together, {12, 24, 48, 96} of each, 128 MiB per task;
//   dim 4 duration: the defaults of the others (48 CPUs, 12 tasks, 1.5 GiB) for {1, 2, 4, 8}
//                 times `sim_ms`.
// Tasks are threads of 2 processes (each with one buffer split into per-thread slices, swept at
// 4 GB/s). The run starts at time 0: first touch, the 1 s scan delay, then scanning and hint
// faults. Counter sim_x_realtime = simulated / wall; the time column is wall per run.
Topology two_node_machine(int cores_per_node) {
    Topology t = load_preset("haswell-2s");
    RegularLayout l;
    l.sockets = 2;
    l.cores_per_node = cores_per_node;
    l.threads_per_core = 2;
    l.mem_per_node = t.nodes[0].mem_bytes;
    t.nodes.clear();
    t.cpus.clear();
    build_regular_layout(l, t);
    t.name = "2n-" + std::to_string(4 * cores_per_node) + "cpu";
    t.validate("bench");
    return t;
}

void BM_Scaling(benchmark::State& state) {
    const int dim = static_cast<int>(state.range(0));
    const int x = static_cast<int>(state.range(1));  // 1, 2, 4, 8
    const Nanos dur = (dim == 4 ? x : 1) * state.range(2) * NSEC_PER_MSEC;
    int cores = 12, tasks = 12;
    uint64_t mb = 1536;
    switch (dim) {
        case 0:
            cores = 3 * x;
            break;
        case 1:
            tasks = 6 * x;
            break;
        case 2:
            mb = 1024 * static_cast<uint64_t>(x);
            break;
        case 3:
            cores = 3 * x;
            tasks = 12 * x;
            mb = 128 * static_cast<uint64_t>(tasks);
            break;
        default:
            break;
    }
    double wall = 0, sim = 0;
    uint64_t faults = 0;
    for (auto _ : state) {
        state.PauseTiming();
        Sim s = thread_local_sweeps(two_node_machine(cores), 2, tasks / 2, mb / 2);
        Engine engine(*s.sys);
        state.ResumeTiming();
        const double t0 = now_s();
        sim += ns_to_s(engine.run(dur));
        wall += now_s() - t0;
        faults += s.sys->counters[Vm::numa_hint_faults];
        state.PauseTiming();
        s = Sim{};
        state.ResumeTiming();
    }
    state.counters["sim_x_realtime"] = sim / wall;
    state.counters["cpus"] = 4 * cores;
    state.counters["tasks"] = tasks;
    state.counters["GiB"] = static_cast<double>(mb) / 1024.0;
    state.counters["sim_s"] = ns_to_s(dur);
    state.counters["hint_faults"] =
        benchmark::Counter(static_cast<double>(faults), benchmark::Counter::kAvgIterations);
    static const char* const names[] = {"cpus", "tasks", "memory", "cpus+tasks", "duration"};
    state.SetLabel(names[std::clamp(dim, 0, 4)]);
}
BENCHMARK(BM_Scaling)
    ->ArgNames({"dim", "x", "sim_ms"})
    ->ArgsProduct({{0, 1, 2, 3, 4}, {1, 2, 4, 8}, {4000}})
    ->Iterations(1)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace numasim
