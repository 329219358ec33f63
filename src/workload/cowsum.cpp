// Henry Willard's shared-data-section test (linux-mm, 2018-01-16, "mm: numa: Do not trap faults
// on shared data section pages"): many forked processes sum a 4 MB initialised global array that
// lives in the executable's .data, i.e. file pages mapped private into every process and shared
// until written. The parameters come from program/cowsum_spec.h, which the oracle's guest runs on
// a real kernel too (guest/cowsum.cpp). See docs/workloads/cowsum.md.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <memory>

#include "engine/process.h"
#include "kernel/system.h"
#include "program/cowsum_spec.h"
#include "workload/common.h"
#include "workload/process_layout.h"
#include "workload/registry.h"

namespace numasim {

namespace {

// The oracle's `struct shared` (MAP_SHARED | MAP_ANONYMOUS): stop flags, passes[256] and
// on_node[256][8] counters, the histogram: 19 KiB. Each child increments passes[c] and
// on_node[c][node] after every pass: 16 bytes written per pass, in its first pages.
constexpr uint64_t SHARED_STRUCT_BYTES = 19 * 1024;
constexpr uint64_t SHARED_STRUCT_WRITTEN_PAGES = 2;
constexpr double SHARED_BYTES_PER_PASS = 16;
// Rate of the scalar "b += a[j]" loop per process: the posting's numa_balancing=0 average,
// 2118782 passes / 288 processes / 10 s x 4 MB = 2.94 GB/s with two processes per core. The
// cost model adds the LLC hits (the array fits the LLC) and the SMT sharing on top.
constexpr double SUM_RATE_GBS = 2.94;
// The loop checks gettimeofday() after every pass; phases of 100 ms CPU keep the stop within
// a tenth of a second of `seconds` without simulating each pass.
constexpr Nanos SUM_PHASE_CPU = 100 * NSEC_PER_MSEC;
// A memcpy of the array (anon/private modes): read + write at bzero-like streaming speed.
constexpr double COPY_RATE_GBS = BZERO_RATE_GBS;

class Cowsum : public Workload {
  public:
    Cowsum(const TomlTable& t, const Topology&) {
        const CowsumSpec spec = read_cowsum_spec(t);
        procs_ = spec.processes;
        run_ns_ = spec.run_ns;
        mode_ = spec.mode;
        mode_name_ = spec.mode_name;
        program_ = spec.program;
        array_bytes_ = spec.array_bytes;
    }

    void setup(System& sys, int index) override {
        sys_ = &sys;
        index_ = index;
        start_ = sys.now;
        // The array is the executable's .data: a private file mapping of the page cache. The
        // startup code writes only the first page of the segment (.got.plt, the start of .data).
        const std::string path = "/usr/local/bin/cowsum";
        ProgramImage image =
            program_ == CowsumProgram::Oracle ? static_c_program(path) : dynamic_c_program(path);
        image.exe.data += array_bytes_;
        image.exe.data_written = sys.pages().size();
        image.globals_pages = 0;  // the children read nothing but the array
        processes_.push_back(Process::exec(sys, image));
        Process& pr = *processes_.back();
        Vma& data = pr.exe_data();
        pr.region(data, 0, data.nr_pages(), "data");
        if (program_ == CowsumProgram::Oracle) {
            Vma& sh = pr.mmap(SHARED_STRUCT_BYTES, "shared", VM_READ | VM_WRITE | VM_SHARED);
            pr.region(sh, 0, sh.nr_pages(), "shared");
            pr.region(sh, 0, SHARED_STRUCT_WRITTEN_PAGES, "counters");
        }
        if (mode_ == CowsumMode::Anon) {
            Vma& copy = pr.mmap(array_bytes_, "anon", VM_READ | VM_WRITE);
            pr.region(copy, 0, copy.nr_pages(), "anon");
        }
        pr.start(nullptr, "cowsum", make_parent(pr), index, 0);
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
        return find_region(mm, mode_ == CowsumMode::Data   ? "data"
                               : mode_ == CowsumMode::Anon ? "anon"
                                                           : "own");
    }

    // The parent: (oracle) zeroes the shared counters; (anon mode) copies the array into an
    // anonymous buffer; (oracle) reads the array once, so the page cache is filled before
    // fork; forks the children; then waits until they are done.
    std::unique_ptr<TaskProgram> make_parent(Process& pr) {
        int step = 0;
        return std::make_unique<FnProgram>([this, &pr, step](Task& t, Phase& ph) mutable {
            Mm& mm = *t.mm;
            if (step == 0) {
                step = 1;
                if (program_ == CowsumProgram::Oracle) {  // memset(sh, 0, sizeof *sh)
                    ph.rate_gbs = COPY_RATE_GBS;
                    ph.streams.push_back(
                        {.region = find_region(mm, "shared"), .write_fraction = 1.0});
                    ph.work_bytes = static_cast<double>(SHARED_STRUCT_BYTES);
                    return true;
                }
            }
            if (step == 1) {
                step = 2;
                if (mode_ == CowsumMode::Anon) {
                    copy_phase(ph, *find_region(mm, "data"), *find_region(mm, "anon"));
                    return true;
                }
            }
            if (step == 2) {
                step = 3;
                if (program_ == CowsumProgram::Oracle) {  // for (i < NWORDS) s0 += arr[i]
                    ph.rate_gbs = SUM_RATE_GBS;
                    ph.streams.push_back(
                        {.region = sum_region(mm) ? sum_region(mm) : find_region(mm, "data")});
                    ph.work_bytes = static_cast<double>(array_bytes_);
                    return true;
                }
            }
            if (step == 3) {
                step = 4;
                fork_children(pr, t);
                make_wait_phase(ph, run_ns_);
                return true;
            }
            return false;
        });
    }

    void copy_phase(Phase& ph, Region& from, Region& to) const {
        ph.rate_gbs = COPY_RATE_GBS;
        ph.streams.push_back({.region = &from, .share = 0.5});
        ph.streams.push_back({.region = &to, .share = 0.5, .write_fraction = 1.0});
        ph.work_bytes = 2.0 * static_cast<double>(array_bytes_);
    }

    void fork_children(Process& parent, Task& t) {
        for (int c = 1; c <= procs_; ++c) {
            processes_.push_back(parent.fork(t));
            Process& child = *processes_.back();
            if (mode_ == CowsumMode::Private) {
                // The child mmaps its own copy after fork.
                Vma& own = child.mmap(array_bytes_, "own", VM_READ | VM_WRITE);
                child.region(own, 0, own.nr_pages(), "own");
            }
            child.start_forked(t, "cowsum", make_child(), index_, c);
        }
    }

    std::unique_ptr<TaskProgram> make_child() {
        bool copied = mode_ != CowsumMode::Private;
        // Looked up by name once, not at each of the child's phases (one per SUM_PHASE_CPU, a
        // hundred in the posting's 10 s): the regions live as long as its mm (cowsum unmaps
        // nothing).
        Region *sum = nullptr, *counters = nullptr;
        return std::make_unique<FnProgram>(
            [this, copied, sum, counters](Task& t, Phase& ph) mutable {
                if (!copied) {
                    copied = true;
                    copy_phase(ph, *find_region(*t.mm, "data"), *find_region(*t.mm, "own"));
                    return true;
                }
                // while (timercmp(&t2, &t1, <)) { sum; gettimeofday(&t2); n++; }
                if (task_clock(*sys_, t) >= start_ + run_ns_) return false;
                if (!sum) {
                    sum = sum_region(*t.mm);
                    counters = find_region(*t.mm, "counters");
                }
                ph.rate_gbs = SUM_RATE_GBS;
                ph.streams.push_back({.region = sum});
                if (program_ == CowsumProgram::Oracle)  // sh->passes[c]++, sh->on_node[c][node]++
                    ph.streams.push_back({.region = counters,
                                          .pattern = Pattern::Random,
                                          .share = SHARED_BYTES_PER_PASS / array_bytes_,
                                          .write_fraction = 1.0});
                ph.cpu_time = SUM_PHASE_CPU;
                ph.ops_per_byte = 1.0 / static_cast<double>(array_bytes_);
                return true;
            });
    }

    int procs_ = 0;
    Nanos run_ns_ = 0;
    CowsumMode mode_ = CowsumMode::Data;
    std::string mode_name_;
    CowsumProgram program_ = CowsumProgram::Posting;
    uint64_t array_bytes_ = 0;
    System* sys_ = nullptr;
    int index_ = 0;
    Nanos start_ = 0;
    std::vector<std::unique_ptr<Process>> processes_;  // the parent, then the children
};

const WorkloadRegistrar reg("cowsum", "Henry Willard's shared .data summing test (2018)",
                            [](const TomlTable& t, const Topology& m) {
                                return std::make_unique<Cowsum>(t, m);
                            });

}  // namespace

}  // namespace numasim
