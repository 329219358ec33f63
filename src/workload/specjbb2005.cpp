// SPECjbb2005 model: JVM processes (workload/hotspot_jvm.h) whose Java main thread builds the
// company and warehouse data, then starts warehouse threads running transactions over their
// warehouse's objects and the company data while allocating into eden.
#include "workload/specjbb2005.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <memory>
#include <set>

#include "config/input_error.h"
#include "config/limits.h"
#include "config/param_reader.h"
#include "config/toml_reader.h"
#include "engine/process.h"
#include "kernel/system.h"
#include "workload/common.h"
#include "workload/hotspot_jvm.h"
#include "workload/registry.h"

namespace numasim {

namespace {

// SPECjbb2005 run rules / SPECjbb.props: input.ramp_up_seconds=30, input.measurement_seconds=240.
constexpr Nanos DEFAULT_RAMP_UP = 30 * NSEC_PER_SEC;
constexpr Nanos DEFAULT_MEASUREMENT = 240 * NSEC_PER_SEC;
// mmtests' jvm-specjbb2005 configs: -Xmx = 60 % of MemTotal, divided among the JVMs; no -Xms,
// so HotSpot commits InitialHeapSize = 1/64 of RAM (InitialRAMFraction = 64, JDK 8; JDK 17:
// InitialRAMPercentage = 1.5625) and grows from there.
constexpr double MMTESTS_HEAP_FRACTION = 0.6;
constexpr uint64_t INITIAL_RAM_FRACTION = 64;
// SPECjbb2005 white paper: a warehouse is "roughly 25 MB of data stored in Java Collection
// objects"; it stays that size across points (orders are trimmed back after each one).
constexpr uint64_t WAREHOUSE_BYTES = 25 * 1000 * 1000;
// Company-wide data every warehouse thread reads: the item table of 20 000 items (name,
// data strings and a BigDecimal price: ~300 bytes each with its map entry) ~ 7 MB (derived).
constexpr uint64_t COMPANY_BYTES = 7 * 1000 * 1000;
// Split of a warehouse thread's memory traffic (assumption: no published figure): 60 % its
// own warehouse's objects, 20 % company-wide objects, 20 % allocation of new objects.
constexpr double OWN_SHARE = 0.6, SHARED_SHARE = 0.2, ALLOC_SHARE = 0.2;
// Writes among the accesses to its own warehouse (stock, district, customer updates) and to
// the item table (read-only in the benchmark). Assumption.
constexpr double OWN_WRITE_FRACTION = 0.3;
// Card marks, compiled code and class metadata: touched all the time, few bytes.
constexpr double VM_SHARE = 1e-4;
// Memory traffic per business operation (assumption, order of magnitude of SPECjbb2005's
// allocation and object-graph walking per transaction) and the rate of one warehouse thread
// at local DRAM latency. Together they give ~30k bops per warehouse, the scale of the seeds:
// 313559 bops / 8 warehouses on 2-socket Haswell (seed 000), 42258 bops for 2 JVMs x 1
// warehouse (seed 004). The low rate makes the thread mostly CPU-bound, as SPECjbb is. With
// ALLOC_SHARE this is 13 KB allocated per transaction, ~0.4 GB/s per warehouse.
constexpr double BYTES_PER_TRANSACTION = 64 * 1024;
constexpr double WAREHOUSE_RATE_GBS = 2.0;
// Transactions are issued in phases of 20 ms of CPU time: short against the 1 s scan periods,
// long against the per-phase bookkeeping.
constexpr Nanos TXN_PHASE_CPU = 20 * NSEC_PER_MSEC;
// The JVM main thread checks for the end of a point once a second.
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
    uint64_t heap = 0;          // -Xmx
    uint64_t initial_heap = 0;  // -Xms
    int gc_threads = 0;         // 0: HotSpot default from the CPUs the JVM sees
    Nanos ramp_up = DEFAULT_RAMP_UP;
    Nanos measurement = DEFAULT_MEASUREMENT;
    bool thp = false;
    bool pretouch = false;
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
    r.integer("jvms", c.jvms, 1, kMaxTasks);
    if (c.layout == Layout::Single && c.jvms != 1) r.fail("jvms", "layout \"single\" runs one JVM");
    if (c.layout == Layout::PerSocket && c.jvms != sockets)
        r.fail("jvms", fmt::format("layout \"per_socket\" runs one JVM per socket ({})", sockets));
    c.warehouses = std::max(1, highest_cpu_plus_one(topo) / c.jvms);
    r.integer("warehouses", c.warehouses, 1, kMaxTasks);
    const uint64_t ram = topo.total_mem_bytes();
    c.heap = static_cast<uint64_t>(MMTESTS_HEAP_FRACTION * static_cast<double>(ram)) /
             static_cast<uint64_t>(c.jvms);
    r.size("heap", c.heap, uint64_t{64} << 20);
    c.initial_heap = std::min(c.heap, ram / INITIAL_RAM_FRACTION);
    r.size("initial_heap", c.initial_heap, topo.hw.pages.size());
    r.integer("gc_threads", c.gc_threads, 0, kMaxTasks);
    r.duration("ramp_up", c.ramp_up, 0);
    r.duration("duration", c.measurement, 1);
    r.flag("thp", c.thp);
    r.flag("pretouch", c.pretouch);
    c.points = specjbb_sweep_points(t, topo);
    c.warehouses = *std::max_element(c.points.begin(), c.points.end());
    return c;
}

}  // namespace

std::vector<int> specjbb_sweep_points(const TomlTable& t, const Topology& machine) {
    ParamReader r(t);
    int jvms = 1;
    r.integer("jvms", jvms, 1, kMaxTasks);
    int w = std::max(1, highest_cpu_plus_one(machine) / jvms);
    r.integer("warehouses", w, 1, kMaxTasks);
    if (!t.has("warehouse_sweep")) return {w};
    bool flag = false;
    try {
        flag = t.get_bool("warehouse_sweep", false);
    } catch (const InputError&) {
        std::vector<int> out;
        for (int64_t v : t.get_int_array("warehouse_sweep")) {
            if (v < 1 || v > kMaxTasks)
                t.fail("warehouse_sweep", fmt::format("warehouse counts must be 1..{}", kMaxTasks));
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
            JvmConfig jc;
            jc.max_heap = cfg_.heap;
            jc.initial_heap = cfg_.initial_heap;
            jc.live_bytes =
                COMPANY_BYTES + WAREHOUSE_BYTES * static_cast<uint64_t>(cfg_.warehouses);
            jc.gc_threads = cfg_.gc_threads;
            if (cfg_.layout == Layout::PerSocket) jc.cpus = sockets[j];  // numactl --cpunodebind
            jc.thp = cfg_.thp;
            jc.pretouch = cfg_.pretouch;
            jvms_[j].vm = std::make_unique<HotspotJvm>(sys, jc, index, next_index_);
            jvms_[j].vm->start([this, j](HotspotJvm&) { return make_main(j); });
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
                    {{"jvm", j}, {"bops", bops[p][j]}, {"gc_threads", jvms_[j].vm->gc_threads()}});
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
        std::unique_ptr<HotspotJvm> vm;
        Region* company = nullptr;
        std::vector<Region*> warehouses;  // each warehouse's objects in the old generation
        Nanos first_point = 0;            // when the warehouses of the first point started
    };
    struct Measure {
        int jvm = 0;
        size_t point = 0;
        Nanos t0 = 0;
        double ops0 = 0;
    };

    Nanos point_length() const { return cfg_.ramp_up + cfg_.measurement; }

    // JBBmain on the Java main thread: build the company data, then for each warehouse point
    // build the warehouses it adds (single-threaded, primeWithDummyData), start that many
    // warehouse threads and wait for the point to end.
    std::unique_ptr<TaskProgram> make_main(int j) {
        size_t point = 0;
        bool started = false;
        return std::make_unique<FnProgram>([this, j, point, started](Task& t, Phase& ph) mutable {
            Jvm& jvm = jvms_[j];
            HotspotJvm& vm = *jvm.vm;
            if (!jvm.company) {
                jvm.company = vm.allocate_long_lived(COMPANY_BYTES, "company", ph);
                return true;
            }
            const size_t target = point < cfg_.points.size()
                                      ? static_cast<size_t>(cfg_.points[point])
                                      : jvm.warehouses.size();
            if (jvm.warehouses.size() < target) {
                jvm.warehouses.push_back(vm.allocate_long_lived(
                    WAREHOUSE_BYTES, fmt::format("wh{}", jvm.warehouses.size()), ph));
                return true;
            }
            const Nanos now = task_clock(*sys_, t);
            if (!started) {
                started = true;
                jvm.first_point = now;
                vm.set_end(now + static_cast<Nanos>(cfg_.points.size()) * point_length());
            }
            const Nanos point_end = jvm.first_point + static_cast<Nanos>(point) * point_length();
            if (now >= point_end) {
                if (point == cfg_.points.size()) return false;
                const int warehouses = cfg_.points[point];
                vm.set_allocation_rate(warehouses * WAREHOUSE_RATE_GBS * ALLOC_SHARE, now);
                for (int w = 0; w < warehouses; ++w)
                    vm.start_java_thread(t, "java", make_warehouse(j, w, point, point_end));
                ++point;
            }
            const Nanos next = jvm.first_point + static_cast<Nanos>(point) * point_length();
            make_wait_phase(ph, std::max<Nanos>(1, std::min(MAIN_POLL, next - now)));
            return true;
        });
    }

    // A warehouse thread: transactions back to back over its warehouse, the company data and
    // freshly allocated objects, stopped at each young collection's safepoint. Until the GC
    // workers have tenured the warehouse's objects, they are still in the young generation.
    std::unique_ptr<TaskProgram> make_warehouse(int j, int w, size_t point, Nanos start) {
        bool measuring = false;
        const Nanos measure_start = start + cfg_.ramp_up;
        const Nanos end = measure_start + cfg_.measurement;
        return std::make_unique<FnProgram>([this, j, w, point, measure_start, end, measuring](
                                               Task& t, Phase& ph) mutable {
            const Nanos now = task_clock(*sys_, t);
            HotspotJvm& vm = *jvms_[j].vm;
            if (now >= end) {
                vm.java_thread_exits(t);
                return false;
            }
            // A TLAB refill or safepoint poll between two stretches of transactions.
            if (vm.java_poll(t, ph)) return true;
            if (!measuring && now >= measure_start) {
                measuring = true;
                meas_[t.index] = Measure{j, point, now, t.total_ops};
            }
            const Jvm& jvm = jvms_[j];
            const AccessStream young = vm.tlab_stream(1.0);
            Region* own = jvm.warehouses[static_cast<size_t>(w)];
            ph.rate_gbs = WAREHOUSE_RATE_GBS;
            ph.streams.push_back({.region = vm.promoted(own) ? own : young.region,
                                  .pattern = Pattern::Random,
                                  .share = OWN_SHARE,
                                  .write_fraction = OWN_WRITE_FRACTION});
            ph.streams.push_back({.region = vm.promoted(jvm.company) ? jvm.company : young.region,
                                  .pattern = Pattern::Random,
                                  .share = SHARED_SHARE});
            ph.streams.push_back(vm.tlab_stream(ALLOC_SHARE));
            for (const AccessStream& s : vm.vm_streams(VM_SHARE))
                ph.streams.push_back(s);
            ph.cpu_time = TXN_PHASE_CPU;
            vm.run_until_eden_full(t, ph);
            ph.ops_per_byte = 1.0 / BYTES_PER_TRANSACTION;
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
};

const WorkloadRegistrar reg("specjbb2005", "SPECjbb2005 JVMs: warehouse threads, heap, young GC",
                            [](const TomlTable& t, const Topology& m) {
                                return std::make_unique<Specjbb2005>(t, m);
                            });

}  // namespace

}  // namespace numasim
