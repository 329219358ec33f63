// autonuma-benchmark: numa01.c / numa02.c modelled phase by phase
// (docs/workloads/autonumabench.md).
#include "workload/autonumabench.h"

#include <fmt/format.h>

#include <memory>
#include <stdexcept>

#include "config/param_reader.h"
#include "engine/process.h"
#include "kernel/system.h"
#include "machine/topology.h"
#include "workload/common.h"
#include "workload/registry.h"

namespace numasim {

namespace {

// numa01.c: "#define SIZE (3UL*1024*1024*1024)" per process; numa02.c: 1 GiB (README: M=3GiB
// and M=1GiB).
constexpr uint64_t NUMA01_BYTES = uint64_t{3} << 30;
constexpr uint64_t NUMA02_BYTES = uint64_t{1} << 30;
// numa01.c: "for (i = 0; i < 50; i++) bzero(p, SIZE)"; THREAD_ALLOC: 1000 passes per slice.
constexpr int NUMA01_LOOPS = 50;
constexpr int NUMA01_THREADLOCAL_LOOPS = 1000;
// numa02.c: TOTALSIZE / SIZE = (4 GiB * 200) / 1 GiB = 800 iterations per thread.
constexpr int NUMA02_LOOPS = 800;

}  // namespace

AutonumaSizing autonuma_sizing(const std::string& test, const Topology& topo) {
    const int cpus = highest_cpu_plus_one(topo);
    AutonumaSizing s;
    if (test == "NUMA01" || test == "NUMA01_THREADLOCAL") {
        // numa01.c forks once: 2 processes of THREADS = cpus/2 threads.
        s.processes = 2;
        s.threads = std::max(1, cpus / 2);
        s.bytes = NUMA01_BYTES;
        s.bind_first_touch = true;
        s.thread_local_slices = test == "NUMA01_THREADLOCAL";
        s.loops = s.thread_local_slices ? NUMA01_THREADLOCAL_LOOPS : NUMA01_LOOPS;
    } else if (test == "NUMA02" || test == "NUMA02_SMT") {
        s.processes = 1;
        s.threads = std::max(1, test == "NUMA02" ? cpus : cpus / 2);
        s.bytes = NUMA02_BYTES;
        s.thread_local_slices = true;
        s.loops = NUMA02_LOOPS;
    } else {
        throw std::invalid_argument(test);
    }
    return s;
}

namespace {

class Autonumabench : public Workload {
  public:
    Autonumabench(const TomlTable& t, const Topology& topo) {
        test_ = t.get_string("test");
        try {
            size_ = autonuma_sizing(test_, topo);
        } catch (const std::invalid_argument&) {
            t.fail("test", "unknown autonumabench test '" + test_ +
                               "' (NUMA01, NUMA01_THREADLOCAL, NUMA02, NUMA02_SMT)");
        }
        ParamReader r(t);
        r.integer("first_touch_node", node_, 0, topo.nr_nodes() - 1);
        r.integer("loops", size_.loops, 0);
        r.size("size", size_.bytes, PAGE_SIZE * static_cast<uint64_t>(size_.threads));
        r.flag("thp", thp_);
    }

    void setup(System& sys, int index) override {
        sys_ = &sys;
        index_ = index;
        Task* first_leader = nullptr;
        for (int p = 0; p < size_.processes; ++p) {
            Mm& mm = mm_create(sys);
            Vma& vma = map_anon(sys, mm, size_.bytes, "buffer", thp_);
            const uint64_t pages = vma.nr_pages();
            Region& all = add_region(sys, vma, 0, pages, "buffer");
            const uint64_t slice = pages / static_cast<uint64_t>(size_.threads);
            std::vector<Region*> slices;
            if (size_.thread_local_slices)
                for (int i = 0; i < size_.threads; ++i)
                    slices.push_back(
                        &add_region(sys, vma, i * slice, slice, fmt::format("slice{}", i)));
            Task* leader = nullptr;
            for (int i = 0; i < size_.threads; ++i) {
                Region* own = size_.thread_local_slices ? slices[i] : &all;
                programs_.push_back(
                    make_program(&all, own, i == 0 && !size_.bind_first_touch, slices));
                const int ti = p * size_.threads + i;
                const std::string comm = size_.bind_first_touch ? "numa01" : "numa02";
                if (i == 0) {
                    // numa01.c forks before malloc: the second process is a child of the first.
                    leader = &create_process(sys, mm, first_leader, comm, programs_.back().get(),
                                             index, ti);
                    if (!first_leader) first_leader = leader;
                    if (!size_.bind_first_touch) break;  // numa02: threads start after the zeroing
                } else {
                    create_thread(sys, *leader, comm, programs_.back().get(), ti);
                }
            }
        }
    }

    WorkloadResult result(const System& sys) const override {
        const auto tasks = workload_tasks(sys, index_);
        const RunTimes rt = run_times(sys, tasks);
        const double elapsed = ns_to_s(rt.end - rt.start);
        WorkloadResult r;
        r.figures = {{"test", test_},
                     {"processes", size_.processes},
                     {"threads_per_process", size_.threads},
                     {"bytes_per_process", size_.bytes},
                     {"loops", size_.loops},
                     {"first_touch_node", node_},
                     {"finished", rt.finished},
                     {"elapsed_s", elapsed},
                     {"user_s", rt.user_s},
                     {"system_s", rt.sys_s}};
        // mmtests' autonumabench operations (SummariseMultiops, 2019-2025 naming).
        r.operations = {{"syst-" + test_, rt.sys_s, true}, {"elsp-" + test_, elapsed, true}};
        for (const Task* t : tasks)
            r.tasks.push_back({task_figures(sys, *t), {}});
        r.summary = fmt::format(
            "autonumabench {}: {} x {} threads, elapsed {:.2f} s{}, user {:.2f} s, "
            "system {:.2f} s\n",
            test_, size_.processes, size_.threads, elapsed, rt.finished ? "" : " (not finished)",
            rt.user_s, rt.sys_s);
        return r;
    }

  private:
    // One thread of numa01.c/numa02.c. `spawner` is numa02's main thread, which zeroes the
    // whole buffer and then creates the other threads (it then works as thread 0).
    std::unique_ptr<TaskProgram> make_program(Region* all, Region* own, bool spawner,
                                              std::vector<Region*> slices) {
        const bool zero_all = size_.bind_first_touch || spawner;
        int step = zero_all ? 0 : 1;
        return std::make_unique<FnProgram>(
            [this, all, own, spawner, zero_all, slices, step](Task& t, Phase& ph) mutable {
                ph.rate_gbs = BZERO_RATE_GBS;
                if (step == 0 && zero_all) {
                    // numa01: set_mempolicy(MPOL_BIND, nodemask_global); bzero(p_global, SIZE).
                    // numa02: main() zeroes the buffer (bind() is a no-op without HARD_BIND).
                    step = 1;
                    if (size_.bind_first_touch)
                        ph.set_mempolicy = make_policy(MpolMode::Bind, node_bit(node_));
                    ph.streams.push_back({.region = all, .write_fraction = 1.0});
                    ph.work_bytes = static_cast<double>(all->bytes());
                    return true;
                }
                if (step != 1) return false;
                step = 2;
                if (spawner) spawn_threads(t, slices);
                if (size_.bind_first_touch) ph.set_mempolicy = MemPolicy{};  // MPOL_DEFAULT
                if (size_.loops == 0) return false;
                ph.streams.push_back({.region = own, .write_fraction = 1.0});
                ph.work_bytes = static_cast<double>(own->bytes()) * size_.loops;
                return true;
            });
    }

    void spawn_threads(Task& leader, const std::vector<Region*>& slices) {
        for (int i = 1; i < size_.threads; ++i) {
            programs_.push_back(make_program(slices[i], slices[i], false, {}));
            create_thread(*sys_, leader, "numa02", programs_.back().get(), i);
        }
    }

    std::string test_;
    AutonumaSizing size_;
    int node_ = 0;
    bool thp_ = false;
    System* sys_ = nullptr;
    int index_ = 0;
    std::vector<std::unique_ptr<TaskProgram>> programs_;
};

const WorkloadRegistrar reg(
    "autonumabench", "autonuma-benchmark NUMA01/NUMA01_THREADLOCAL/NUMA02/NUMA02_SMT (mmtests)",
    [](const TomlTable& t, const Topology& m) { return std::make_unique<Autonumabench>(t, m); });

}  // namespace

}  // namespace numasim
