// SPECjbb2005 model: JVM processes with a pre-touched heap, warehouse threads running
// transactions over a warehouse-local and a shared part of the heap while allocating into the
// young generation, and periodic parallel young-GC threads.
#include "workload/specjbb2005.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <memory>
#include <set>

#include "config/input_error.h"
#include "config/param_reader.h"
#include "config/toml_reader.h"
#include "engine/process.h"
#include "kernel/system.h"
#include "workload/common.h"
#include "workload/registry.h"

namespace numasim {

namespace {

// SPECjbb2005 run rules / SPECjbb.props: input.ramp_up_seconds=30, input.measurement_seconds=240.
constexpr Nanos DEFAULT_RAMP_UP = 30 * NSEC_PER_SEC;
constexpr Nanos DEFAULT_MEASUREMENT = 240 * NSEC_PER_SEC;
// Heap per JVM: an assumption (the postings do not give -Xmx); 2 GiB is the usual -Xms2g -Xmx2g
// of published SPECjbb2005 runs per instance and keeps 8 JVMs within a 2-socket box.
constexpr uint64_t DEFAULT_HEAP = uint64_t{2} << 30;
// HotSpot Parallel GC default -XX:NewRatio=2: old generation twice the young one, so the young
// generation (eden + survivors, where TLAB allocation happens) is a third of the heap.
constexpr double YOUNG_FRACTION = 1.0 / 3.0;
// Part of the old generation that all warehouses of a JVM read (company-wide objects, item
// table): an assumption, 10 %. The rest is split evenly into warehouse slices (SPECjbb2005
// keeps each warehouse's districts, customers, orders and stock in its own object tree).
constexpr double SHARED_OLD_FRACTION = 0.10;
// Split of a warehouse thread's memory traffic (assumption): 60 % its own warehouse objects,
// 20 % shared objects, 20 % allocation of new objects into the young generation.
constexpr double OWN_SHARE = 0.6, SHARED_SHARE = 0.2, ALLOC_SHARE = 0.2;
// Within a warehouse's objects, 20 % of the pages take 80 % of the accesses (assumption: hot
// districts and recent orders); shared objects are read-mostly.
constexpr double OWN_HOT_FRACTION = 0.2, OWN_HOT_SHARE = 0.8, OWN_WRITE_FRACTION = 0.3;
constexpr double SHARED_HOT_FRACTION = 0.1, SHARED_HOT_SHARE = 0.9, SHARED_WRITE_FRACTION = 0.05;
// Memory traffic per business operation (assumption, order of magnitude of SPECjbb2005's
// allocation and object-graph walking per transaction) and the rate of one warehouse thread
// at local DRAM latency. Together they give ~30k bops per warehouse, the scale of the seeds:
// 313559 bops / 8 warehouses on 2-socket Haswell (seed 000), 42258 bops for 2 JVMs x 1
// warehouse (seed 004). The low rate makes the thread mostly CPU-bound, as SPECjbb is.
constexpr double BYTES_PER_TRANSACTION = 64 * 1024;
constexpr double WAREHOUSE_RATE_GBS = 2.0;
// Transactions are issued in phases of 20 ms of CPU time: short against the 1 s scan periods,
// long against the per-phase bookkeeping.
constexpr Nanos TXN_PHASE_CPU = 20 * NSEC_PER_MSEC;
// A young collection copies the live objects of eden: 10 % survive (assumption; SPECjbb's
// transaction objects die young). GC threads copy at streaming speed.
constexpr double GC_SURVIVOR_FRACTION = 0.10;
constexpr double GC_RATE_GBS = BZERO_RATE_GBS;
// Floor for the GC period so that a tiny heap does not turn GC threads into busy loops.
constexpr Nanos MIN_GC_PERIOD = 10 * NSEC_PER_MSEC;
// The JVM main thread checks for the end of the run once a second.
constexpr Nanos MAIN_POLL = NSEC_PER_SEC;

enum class Layout { Multi, Single, PerSocket };
constexpr std::array<std::pair<Layout, std::string_view>, 3> kLayouts = {
    {{Layout::Multi, "multi"}, {Layout::Single, "single"}, {Layout::PerSocket, "per_socket"}}};

std::vector<std::vector<int>> socket_cpus(const Topology& topo) {
    std::map<int, std::vector<int>> by;
    for (const CpuInfo& c : topo.cpus)
        by[c.package].push_back(c.id);
    std::vector<std::vector<int>> out;
    for (auto& [pkg, cpus] : by)
        out.push_back(cpus);
    return out;
}

struct JbbConfig {
    Layout layout = Layout::Multi;
    std::string layout_name;
    int jvms = 1;
    int warehouses = 1;
    uint64_t heap = DEFAULT_HEAP;
    int gc_threads = 0;  // 0: HotSpot default from the CPUs the JVM sees
    Nanos ramp_up = DEFAULT_RAMP_UP;
    Nanos measurement = DEFAULT_MEASUREMENT;
    bool thp = false;
    bool pretouch = true;
    // Warehouse counts run one after another in one JVM run, as SPECjbb2005 itself steps
    // through 1..N warehouses (each point: ramp-up, then the measurement interval).
    std::vector<int> points;
};

JbbConfig read_config(const TomlTable& t, const Topology& topo) {
    JbbConfig c;
    ParamReader r(t);
    r.choice("layout", c.layout, kLayouts);
    for (const auto& [l, n] : kLayouts)
        if (l == c.layout) c.layout_name = n;
    const int sockets = static_cast<int>(socket_cpus(topo).size());
    if (c.layout == Layout::PerSocket) c.jvms = sockets;
    r.integer("jvms", c.jvms, 1);
    if (c.layout == Layout::Single && c.jvms != 1) r.fail("jvms", "layout \"single\" runs one JVM");
    if (c.layout == Layout::PerSocket && c.jvms != sockets)
        r.fail("jvms", fmt::format("layout \"per_socket\" runs one JVM per socket ({})", sockets));
    c.warehouses = std::max(1, highest_cpu_plus_one(topo) / c.jvms);
    r.integer("warehouses", c.warehouses, 1);
    r.size("heap", c.heap, uint64_t{64} << 20);
    r.integer("gc_threads", c.gc_threads, 0);
    r.duration("ramp_up", c.ramp_up, 0);
    r.duration("duration", c.measurement, 1);
    r.flag("thp", c.thp);
    r.flag("pretouch", c.pretouch);
    c.points = specjbb_sweep_points(t, topo);
    c.warehouses = *std::max_element(c.points.begin(), c.points.end());
    return c;
}

}  // namespace

int hotspot_parallel_gc_threads(int ncpus) {
    return ncpus <= 8 ? ncpus : 8 + (ncpus - 8) * 5 / 8;
}

std::vector<int> specjbb_sweep_points(const TomlTable& t, const Topology& machine) {
    ParamReader r(t);
    int jvms = 1;
    r.integer("jvms", jvms, 1);
    int w = std::max(1, highest_cpu_plus_one(machine) / jvms);
    r.integer("warehouses", w, 1);
    if (!t.has("warehouse_sweep")) return {w};
    bool flag = false;
    try {
        flag = t.get_bool("warehouse_sweep", false);
    } catch (const InputError&) {
        std::vector<int> out;
        for (int64_t v : t.get_int_array("warehouse_sweep")) {
            if (v < 1) t.fail("warehouse_sweep", "warehouse counts must be at least 1");
            out.push_back(static_cast<int>(v));
        }
        if (out.empty()) t.fail("warehouse_sweep", "empty list");
        return out;
    }
    std::vector<int> out;
    if (!flag) return {w};
    for (int i = 1; i <= w; ++i)
        out.push_back(i);
    return out;
}

namespace {

class Specjbb2005 : public Workload {
  public:
    Specjbb2005(const TomlTable& t, const Topology& topo) : cfg_(read_config(t, topo)) {}

    void setup(System& sys, int index) override {
        sys_ = &sys;
        index_ = index;
        start_ = sys.now;
        const auto sockets = socket_cpus(sys.topo);
        jvms_.resize(cfg_.jvms);
        for (int j = 0; j < cfg_.jvms; ++j) {
            Jvm& jvm = jvms_[j];
            if (cfg_.layout == Layout::PerSocket) jvm.cpus = sockets[j];
            const int visible =
                jvm.cpus.empty() ? sys.nr_cpus() : static_cast<int>(jvm.cpus.size());
            jvm.gc_threads =
                cfg_.gc_threads > 0 ? cfg_.gc_threads : hotspot_parallel_gc_threads(visible);
            Mm& mm = mm_create(sys);
            Vma& heap = map_anon(sys, mm, cfg_.heap, "java-heap", cfg_.thp);
            const uint64_t pages = heap.nr_pages();
            const uint64_t young =
                std::max<uint64_t>(1, static_cast<uint64_t>(pages * YOUNG_FRACTION));
            const uint64_t old = pages - young;
            const uint64_t shared =
                std::max<uint64_t>(1, static_cast<uint64_t>(old * SHARED_OLD_FRACTION));
            const uint64_t slice = std::max<uint64_t>(1, (old - shared) / cfg_.warehouses);
            jvm.heap = &add_region(sys, heap, 0, pages, "heap");
            jvm.shared = &add_region(sys, heap, 0, shared, "shared");
            jvm.young = &add_region(sys, heap, old, young, "young");
            for (int w = 0; w < cfg_.warehouses; ++w) {
                // With more warehouses than pages the slices overlap (tiny heaps in tests).
                const uint64_t first = std::min(shared + w * slice, old > slice ? old - slice : 0);
                jvm.slices.push_back(&add_region(sys, heap, first, slice, fmt::format("wh{}", w)));
            }
            programs_.push_back(make_main(j));
            create_process(sys, mm, nullptr, "java", programs_.back().get(), index, next_index_++);
        }
    }

    WorkloadResult result(const System& sys) const override {
        WorkloadResult r;
        const size_t np = cfg_.points.size();
        std::vector<std::vector<double>> bops(np, std::vector<double>(cfg_.jvms, 0.0));
        for (const Task* t : workload_tasks(sys, index_)) {
            TaskRow row{task_figures(sys, *t), {}};
            auto it = meas_.find(t->index);
            if (it != meas_.end()) {
                const Nanos end = t->exit_time >= 0 ? t->exit_time : sys.now;
                const double secs = ns_to_s(end - it->second.t0);
                const double b = secs > 0 ? (t->total_ops - it->second.ops0) / secs : 0.0;
                row.extra = {{"bops", b}, {"warehouses_point", cfg_.points[it->second.point]}};
                bops[it->second.point][it->second.jvm] += b;
            }
            r.tasks.push_back(std::move(row));
        }
        std::vector<Record> points, last_jv;
        double last_total = 0;
        r.summary = fmt::format("specjbb2005 {} {} JVM(s)\n", cfg_.layout_name, cfg_.jvms);
        for (size_t p = 0; p < np; ++p) {
            std::vector<Record> jv;
            double total = 0;
            std::string per_jvm;
            for (int j = 0; j < cfg_.jvms; ++j) {
                jv.push_back(
                    {{"jvm", j}, {"bops", bops[p][j]}, {"gc_threads", jvms_[j].gc_threads}});
                total += bops[p][j];
                per_jvm += fmt::format("{}JVM {} {:.0f}", j ? ", " : "", j, bops[p][j]);
            }
            points.push_back(
                {{"warehouses", cfg_.points[p]}, {"bops", total}, {"bops_per_jvm", jv}});
            // mmtests' specjbb operation: total throughput at this warehouse count.
            r.operations.push_back({fmt::format("tput-{}", cfg_.points[p]), total, false});
            r.summary += fmt::format("  {:>3} warehouses: {:.0f} bops ({})\n", cfg_.points[p],
                                     total, per_jvm);
            last_total = total;
            last_jv = std::move(jv);
        }
        r.figures = {{"layout", cfg_.layout_name},
                     {"jvms", cfg_.jvms},
                     {"warehouses", cfg_.points.back()},
                     {"heap_bytes", cfg_.heap},
                     {"ramp_up_s", ns_to_s(cfg_.ramp_up)},
                     {"measurement_s", ns_to_s(cfg_.measurement)},
                     {"bops", last_total},
                     {"bops_per_jvm", last_jv},
                     {"points", points}};
        r.extra = SpecjbbThroughput{cfg_.jvms, last_total};
        return r;
    }

  private:
    struct Jvm {
        std::vector<int> cpus;  // per_socket: the socket's CPUs
        int gc_threads = 1;
        Region* heap = nullptr;
        Region* shared = nullptr;
        Region* young = nullptr;
        std::vector<Region*> slices;
        Nanos first_point = 0;  // when the warehouses of the first point started
        int current_warehouses = 1;
    };
    struct Measure {
        int jvm = 0;
        size_t point = 0;
        Nanos t0 = 0;
        double ops0 = 0;
    };

    Nanos point_length() const { return cfg_.ramp_up + cfg_.measurement; }
    // The last warehouse point of a JVM whose first point started at `first`.
    Nanos run_end(const Jvm& jvm) const {
        return jvm.first_point + static_cast<Nanos>(cfg_.points.size()) * point_length();
    }

    // JBBmain: pre-touch the heap (AlwaysPreTouch), start the GC threads, then for each
    // warehouse point start that many warehouse threads and wait for the point to end.
    std::unique_ptr<TaskProgram> make_main(int j) {
        int step = 0;
        size_t point = 0;
        return std::make_unique<FnProgram>([this, j, step, point](Task& t, Phase& ph) mutable {
            Jvm& jvm = jvms_[j];
            const Nanos now = task_clock(*sys_, t);
            if (step == 0) {
                step = 1;
                if (!jvm.cpus.empty()) ph.set_affinity = jvm.cpus;  // numactl --cpunodebind
                if (cfg_.pretouch) {
                    ph.rate_gbs = BZERO_RATE_GBS;
                    ph.streams.push_back({.region = jvm.heap, .write_fraction = 1.0});
                    ph.work_bytes = static_cast<double>(jvm.heap->bytes());
                } else {
                    make_wait_phase(ph, 0);
                }
                return true;
            }
            if (step == 1) {
                step = 2;
                jvm.first_point = now;
                for (int g = 0; g < jvm.gc_threads; ++g) {
                    programs_.push_back(make_gc(j));
                    create_thread(*sys_, t, "java-gc", programs_.back().get(), next_index_++);
                }
            }
            const Nanos point_end = jvm.first_point + static_cast<Nanos>(point) * point_length();
            if (now >= point_end) {
                if (point == cfg_.points.size()) return false;
                const Nanos start = point_end;
                jvm.current_warehouses = cfg_.points[point];
                for (int w = 0; w < cfg_.points[point]; ++w) {
                    programs_.push_back(make_warehouse(j, w, point, start));
                    create_thread(*sys_, t, "java", programs_.back().get(), next_index_++);
                }
                ++point;
            }
            const Nanos next = jvm.first_point + static_cast<Nanos>(point) * point_length();
            make_wait_phase(ph, std::max<Nanos>(1, std::min(MAIN_POLL, next - now)));
            return true;
        });
    }

    std::unique_ptr<TaskProgram> make_warehouse(int j, int w, size_t point, Nanos start) {
        bool measuring = false;
        const Nanos measure_start = start + cfg_.ramp_up;
        const Nanos end = measure_start + cfg_.measurement;
        return std::make_unique<FnProgram>(
            [this, j, w, point, measure_start, end, measuring](Task& t, Phase& ph) mutable {
                const Nanos now = task_clock(*sys_, t);
                if (now >= end) return false;
                if (!measuring && now >= measure_start) {
                    measuring = true;
                    meas_[t.index] = Measure{j, point, now, t.total_ops};
                }
                const Jvm& jvm = jvms_[j];
                const int warehouses = cfg_.points[point];
                const uint64_t tlab = jvm.young->count * w / warehouses;
                ph.rate_gbs = WAREHOUSE_RATE_GBS;
                ph.streams.push_back({.region = jvm.slices[w],
                                      .pattern = Pattern::HotSet,
                                      .share = OWN_SHARE,
                                      .write_fraction = OWN_WRITE_FRACTION,
                                      .hot_fraction = OWN_HOT_FRACTION,
                                      .hot_share = OWN_HOT_SHARE});
                ph.streams.push_back({.region = jvm.shared,
                                      .pattern = Pattern::HotSet,
                                      .share = SHARED_SHARE,
                                      .write_fraction = SHARED_WRITE_FRACTION,
                                      .hot_fraction = SHARED_HOT_FRACTION,
                                      .hot_share = SHARED_HOT_SHARE});
                // TLAB allocation: each thread bumps through its own part of eden.
                ph.streams.push_back({.region = jvm.young,
                                      .share = ALLOC_SHARE,
                                      .write_fraction = 1.0,
                                      .start_at_thread_offset = true,
                                      .start_page = tlab});
                ph.cpu_time = TXN_PHASE_CPU;
                ph.ops_per_byte = 1.0 / BYTES_PER_TRANSACTION;
                return true;
            });
    }

    // A parallel young-GC worker: wakes when eden is full, copies its share of the survivors.
    std::unique_ptr<TaskProgram> make_gc(int j) {
        bool started = false;
        return std::make_unique<FnProgram>([this, j, started](Task& t, Phase& ph) mutable {
            const Jvm& jvm = jvms_[j];
            const Nanos now = task_clock(*sys_, t);
            if (now >= run_end(jvm)) return false;
            const double young = static_cast<double>(jvm.young->bytes());
            // Eden fills at the warehouses' allocation rate (nominal, bytes per ns).
            const double alloc_rate = jvm.current_warehouses * WAREHOUSE_RATE_GBS * ALLOC_SHARE;
            const Nanos period = std::max(MIN_GC_PERIOD, static_cast<Nanos>(young / alloc_rate));
            if (!started) {  // the first collection comes when eden first fills
                started = true;
                make_wait_phase(ph, period);
                return true;
            }
            ph.rate_gbs = GC_RATE_GBS;
            ph.streams.push_back(
                {.region = jvm.young, .pattern = Pattern::Random, .write_fraction = 0.5});
            ph.work_bytes = std::max(1.0, young * GC_SURVIVOR_FRACTION / jvm.gc_threads);
            ph.sleep_after = std::min(period, std::max<Nanos>(1, run_end(jvm) - now));
            return true;
        });
    }

    JbbConfig cfg_;
    System* sys_ = nullptr;
    int index_ = 0;
    int next_index_ = 0;
    Nanos start_ = 0;
    std::vector<Jvm> jvms_;
    std::map<int, Measure> meas_;  // task index -> counters at the start of the measurement
    std::vector<std::unique_ptr<TaskProgram>> programs_;
};

const WorkloadRegistrar reg("specjbb2005", "SPECjbb2005 JVMs: warehouse threads, heap, young GC",
                            [](const TomlTable& t, const Topology& m) {
                                return std::make_unique<Specjbb2005>(t, m);
                            });

}  // namespace

}  // namespace numasim
