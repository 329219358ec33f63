// autonuma-benchmark: numa01.c / numa02.c modelled phase by phase and thread by thread: the main
// threads allocate, start the workers and sleep in pthread_join(). The test's sizing and
// parameters come from program/autonumabench_spec.h, which the oracle's guest runs on a real
// kernel too (guest/autonumabench.cpp). docs/workloads/autonumabench.md.

#include <fmt/format.h>

#include <map>
#include <memory>

#include "engine/process.h"
#include "kernel/system.h"
#include "machine/topology.h"
#include "program/autonumabench_spec.h"
#include "workload/common.h"
#include "workload/process_layout.h"
#include "workload/registry.h"

namespace numasim {

namespace {

class Autonumabench : public Workload {
  public:
    Autonumabench(const TomlTable& t, const Topology& topo) {
        const AutonumabenchSpec spec = read_autonumabench_spec(t, topo);
        test_ = spec.test;
        size_ = spec.size;
        node_ = spec.first_touch_node;
        thp_ = spec.thp;
        bind_ = spec.bind;
        for (int p = 0; bind_ != AutonumaBind::None && p < size_.processes; ++p)
            bindings_.push_back(autonuma_binding(bind_, topo, p));
    }

    // numa01.c's main(): fork() (NUMA01*), then in each process malloc(SIZE) and THREADS
    // pthread_create()s, then pthread_join(). numa02.c's main(): malloc(SIZE), zero it node
    // chunk by node chunk, then THREADS pthread_create()s and pthread_join().
    void setup(System& sys, int index) override {
        sys_ = &sys;
        index_ = index;
        const std::string comm = size_.bind_first_touch ? "numa01" : "numa02";
        ProgramImage image = dynamic_c_program("/opt/autonuma-benchmark/" + comm, {libnuma()});
        // thread() reads only its argument after the first bzero: no global data in the loop.
        image.globals_pages = 0;
        procs_.push_back(Process::exec(sys, image));
        Process& first = *procs_.back();
        first.start(nullptr, comm, make_main(first, 0), index, main_index(0));
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
        // Named only for a bound build, so an unbound run's figures stay as they were.
        if (bind_ != AutonumaBind::None)
            r.figures.insert(r.figures.begin() + 6, Figure{"bind", bind_name()});
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
    std::string bind_name() const {
        return bind_ == AutonumaBind::Hard      ? "hard"
               : bind_ == AutonumaBind::Inverse ? "inverse"
                                                : "none";
    }

    // Mains are numbered after all workers (thread_index is per workload).
    int main_index(int p) const { return size_.processes * size_.threads + p; }

    // main() of process p: (NUMA01*, p == 0) fork the second process; malloc; (NUMA02*) zero
    // the buffer; create the threads; join them.
    std::unique_ptr<TaskProgram> make_main(Process& pr, int p) {
        int step = 0;
        return std::make_unique<FnProgram>([this, &pr, p, step](Task& t, Phase& ph) mutable {
            if (step == 0) {
                step = 1;
                if (size_.bind_first_touch && p == 0 && size_.processes > 1) {
                    // fork() comes before malloc(): the processes share no buffer.
                    procs_.push_back(pr.fork(t));
                    Process& child = *procs_.back();
                    child.start_forked(t, t.comm, make_main(child, 1), index_, main_index(1));
                }
                Vma& vma =
                    pr.mmap(size_.bytes, "buffer", VM_READ | VM_WRITE | (thp_ ? VM_HUGEPAGE : 0));
                const uint64_t pages = vma.nr_pages();
                Region& all = pr.region(vma, 0, pages, "buffer");
                const uint64_t slice = pages / static_cast<uint64_t>(size_.threads);
                std::vector<Region*> own;
                for (int i = 0; i < size_.threads; ++i)
                    own.push_back(size_.thread_local_slices
                                      ? &pr.region(vma, i * slice, slice, fmt::format("slice{}", i))
                                      : &all);
                buffers_[&pr] = {&all, own};
                if (bind_ != AutonumaBind::None) {
                    // HARD_BIND: sched_setaffinity() and set_mempolicy(MPOL_BIND) before the
                    // threads are created, which inherit both.
                    const AutonumaBinding& b = bindings_[static_cast<size_t>(p)];
                    ph.set_affinity = b.cpus;
                    ph.set_mempolicy = make_policy(MpolMode::Bind, b.nodes);
                    ph.cpu_time = NSEC_PER_USEC;
                    return true;
                }
                if (!size_.bind_first_touch) {
                    // BINDMAP: bind(node) (a no-op without HARD_BIND), bzero of each node's
                    // chunk: the main thread first-touches the whole buffer.
                    ph.rate_gbs = BZERO_RATE_GBS;
                    ph.streams.push_back({.region = &all, .write_fraction = 1.0});
                    ph.work_bytes = static_cast<double>(all.bytes());
                    return true;
                }
            }
            if (step == 1) {
                step = 2;
                const Buffers& b = buffers_.at(&pr);
                for (int i = 0; i < size_.threads; ++i)
                    pr.pthread_create(t, t.comm, make_worker(b.all, b.own[i]),
                                      p * size_.threads + i);
                // for (i < THREADS) pthread_join(); the parent's wait() for the child ends no
                // later than its own threads in elapsed terms (the run ends at the last exit).
                ph.cpu_time = NSEC_PER_USEC;
                ph.join = true;
                return true;
            }
            return false;
        });
    }

    // thread(): (NUMA01*) set_mempolicy(MPOL_BIND, nodemask_global); bzero(p_global, SIZE);
    // set_mempolicy(MPOL_DEFAULT) [NO_BIND_FORCE_SAME_NODE, as the Makefile builds numa01 and
    // numa01_THREAD_ALLOC]; then nr passes of bzero(p, THREAD_SIZE) over its buffer or slice.
    // The HARD_BIND builds lack NO_BIND_FORCE_SAME_NODE: the first bzero runs under the
    // process's own binding and no policy is set or dropped.
    std::unique_ptr<TaskProgram> make_worker(Region* all, Region* own) {
        int step = size_.bind_first_touch ? 0 : 1;
        const bool forced = bind_ == AutonumaBind::None;
        return std::make_unique<FnProgram>(
            [this, all, own, step, forced](Task&, Phase& ph) mutable {
                ph.rate_gbs = BZERO_RATE_GBS;
                if (step == 0) {
                    step = 1;
                    if (forced) ph.set_mempolicy = make_policy(MpolMode::Bind, node_bit(node_));
                    ph.streams.push_back({.region = all, .write_fraction = 1.0});
                    ph.work_bytes = static_cast<double>(all->bytes());
                    return true;
                }
                if (step != 1) return false;
                step = 2;
                if (size_.bind_first_touch && forced)
                    ph.set_mempolicy = MemPolicy{};  // MPOL_DEFAULT
                if (size_.loops == 0) return false;
                ph.streams.push_back({.region = own, .write_fraction = 1.0});
                ph.work_bytes = static_cast<double>(own->bytes()) * size_.loops;
                return true;
            });
    }

    struct Buffers {
        Region* all = nullptr;
        std::vector<Region*> own;
    };

    std::string test_;
    AutonumaSizing size_;
    int node_ = 0;
    bool thp_ = false;
    AutonumaBind bind_ = AutonumaBind::None;
    std::vector<AutonumaBinding> bindings_;  // per process, under a bound build
    System* sys_ = nullptr;
    int index_ = 0;
    std::vector<std::unique_ptr<Process>> procs_;
    std::map<const Process*, Buffers> buffers_;
};

const WorkloadRegistrar reg(
    "autonumabench", "autonuma-benchmark NUMA01/NUMA01_THREADLOCAL/NUMA02/NUMA02_SMT (mmtests)",
    [](const TomlTable& t, const Topology& m) { return std::make_unique<Autonumabench>(t, m); });

}  // namespace

}  // namespace numasim
