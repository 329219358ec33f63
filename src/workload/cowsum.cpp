// Henry Willard's shared-data-section test (linux-mm, 2018-01-16, "mm: numa: Do not trap faults
// on shared data section pages"): many forked processes sum a 4 MB initialised global array that
// lives in the executable's .data, i.e. file pages mapped private into every process and shared
// until written. See docs/workloads/cowsum.md.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <memory>

#include "config/param_reader.h"
#include "engine/process.h"
#include "kernel/system.h"
#include "workload/common.h"
#include "workload/registry.h"

namespace numasim {

namespace {

// "int a[1000000] = {13};" in the posted program: 4,000,000 bytes of .data.
constexpr uint64_t ARRAY_BYTES = 1000000 * sizeof(int);
// One pass sums the whole array once: ops are passes.
constexpr double PASSES_PER_BYTE = 1.0 / static_cast<double>(ARRAY_BYTES);
// The posted run: "288 processes on a 144 core/8 socket machine", 10 s (argv defaults).
constexpr int DEFAULT_PROCESSES = 288;
constexpr double DEFAULT_SECONDS = 10;
// Rate of the scalar "b += a[j]" loop per process: the posting's numa_balancing=0 average,
// 2118782 passes / 288 processes / 10 s x 4 MB = 2.94 GB/s with two processes per core. The
// cost model adds the LLC hits (the array fits the LLC) and the SMT sharing on top.
constexpr double SUM_RATE_GBS = 2.94;
// The loop checks gettimeofday() after every pass; phases of 100 ms CPU keep the stop within
// a tenth of a second of `seconds` without simulating each pass.
constexpr Nanos SUM_PHASE_CPU = 100 * NSEC_PER_MSEC;
// A memcpy of the array (anon/private modes): read + write at bzero-like streaming speed.
constexpr double COPY_RATE_GBS = BZERO_RATE_GBS;

enum class Mode { Data, Anon, Private };
constexpr std::array<std::pair<Mode, std::string_view>, 3> kModes = {
    {{Mode::Data, "data"}, {Mode::Anon, "anon"}, {Mode::Private, "private"}}};

class Cowsum : public Workload {
  public:
    Cowsum(const TomlTable& t, const Topology&) {
        ParamReader r(t);
        r.integer("processes", procs_, 1);
        double secs = DEFAULT_SECONDS;
        r.positive("seconds", secs);
        run_ns_ = static_cast<Nanos>(secs * NSEC_PER_SEC);
        r.choice("mode", mode_, kModes);
        for (const auto& [m, n] : kModes)
            if (m == mode_) mode_name_ = n;
    }

    void setup(System& sys, int index) override {
        sys_ = &sys;
        index_ = index;
        start_ = sys.now;
        Mm& mm = mm_create(sys);
        // .data of the executable: a private, writable file mapping over the page cache.
        file_ = std::make_shared<MemObject>((ARRAY_BYTES + PAGE_SIZE - 1) / PAGE_SIZE, true);
        Vma& data = do_mmap(sys, mm, ARRAY_BYTES, VM_READ | VM_WRITE | VM_FILE, "data", file_);
        add_region(sys, data, 0, data.nr_pages(), "data");
        if (mode_ == Mode::Anon) {
            Vma& copy = map_anon(sys, mm, ARRAY_BYTES, "anon", false);
            add_region(sys, copy, 0, copy.nr_pages(), "anon");
        }
        parent_prog_ = make_parent();
        create_process(sys, mm, nullptr, "cowsum", parent_prog_.get(), index, 0);
    }

    WorkloadResult result(const System& sys) const override {
        WorkloadResult r;
        double total = 0;
        for (const Task* t : workload_tasks(sys, index_)) {
            if (t->thread_index == 0) continue;  // the parent only forks and waits
            total += t->total_ops;
            r.tasks.push_back({task_figures(sys, *t), {{"passes", t->total_ops}}});
        }
        r.figures = {{"mode", mode_name_},
                     {"processes", procs_},
                     {"seconds", ns_to_s(run_ns_)},
                     {"total_passes", total},
                     {"passes_per_process", total / procs_},
                     {"passes_per_second", total / ns_to_s(run_ns_)}};
        r.operations = {{"passes", total, false}};
        r.summary =
            fmt::format("cowsum {} x {} for {:.1f} s: Total {:.0f} passes ({:.1f} per process)\n",
                        mode_name_, procs_, ns_to_s(run_ns_), total, total / procs_);
        return r;
    }

  private:
    Region* sum_region(Mm& mm) const {
        return find_region(mm, mode_ == Mode::Data ? "data" : mode_ == Mode::Anon ? "anon" : "own");
    }

    // The parent: (anon mode) copies the array into an anonymous buffer, forks the children,
    // then waits in wait() until they are done.
    std::unique_ptr<TaskProgram> make_parent() {
        int step = 0;
        return std::make_unique<FnProgram>([this, step](Task& t, Phase& ph) mutable {
            if (step == 0 && mode_ == Mode::Anon) {
                step = 1;
                copy_phase(ph, *find_region(*t.mm, "data"), *find_region(*t.mm, "anon"));
                return true;
            }
            if (step <= 1) {
                step = 2;
                fork_children(t);
                make_wait_phase(ph, run_ns_);
                return true;
            }
            return false;
        });
    }

    static void copy_phase(Phase& ph, Region& from, Region& to) {
        ph.rate_gbs = COPY_RATE_GBS;
        ph.streams.push_back({.region = &from, .share = 0.5});
        ph.streams.push_back({.region = &to, .share = 0.5, .write_fraction = 1.0});
        ph.work_bytes = 2.0 * static_cast<double>(ARRAY_BYTES);
    }

    void fork_children(Task& parent) {
        for (int c = 1; c <= procs_; ++c) {
            Mm& mm = dup_mm(*sys_, *parent.mm);
            if (mode_ == Mode::Private) {
                // The child mmaps its own copy after fork.
                Vma& own = map_anon(*sys_, mm, ARRAY_BYTES, "own", false);
                add_region(*sys_, own, 0, own.nr_pages(), "own");
            }
            programs_.push_back(make_child());
            create_process(*sys_, mm, &parent, "cowsum", programs_.back().get(), index_, c);
        }
    }

    std::unique_ptr<TaskProgram> make_child() {
        bool copied = mode_ != Mode::Private;
        return std::make_unique<FnProgram>([this, copied](Task& t, Phase& ph) mutable {
            if (!copied) {
                copied = true;
                copy_phase(ph, *find_region(*t.mm, "data"), *find_region(*t.mm, "own"));
                return true;
            }
            // while (timercmp(&t2, &t1, <)) { sum; gettimeofday(&t2); n++; }
            if (task_clock(*sys_, t) >= start_ + run_ns_) return false;
            ph.rate_gbs = SUM_RATE_GBS;
            ph.streams.push_back({.region = sum_region(*t.mm)});
            ph.cpu_time = SUM_PHASE_CPU;
            ph.ops_per_byte = PASSES_PER_BYTE;
            return true;
        });
    }

    int procs_ = DEFAULT_PROCESSES;
    Nanos run_ns_ = 0;
    Mode mode_ = Mode::Data;
    std::string mode_name_;
    System* sys_ = nullptr;
    int index_ = 0;
    Nanos start_ = 0;
    std::shared_ptr<MemObject> file_;
    std::unique_ptr<TaskProgram> parent_prog_;
    std::vector<std::unique_ptr<TaskProgram>> programs_;
};

const WorkloadRegistrar reg("cowsum", "Henry Willard's shared .data summing test (2018)",
                            [](const TomlTable& t, const Topology& m) {
                                return std::make_unique<Cowsum>(t, m);
                            });

}  // namespace

}  // namespace numasim
