// The `streams` program on a real kernel: one process per instance of each [[workload.process]]
// (forked from the workload's process, which maps the shared regions and creates the file
// regions' files first, so that every instance maps the same pages), its regions mapped with
// their policy and THP advice, thread 0's first touch, then one pthread per further thread, each
// running its phase list; or, with [workload.process.main], a main thread that runs its own
// phases around creating and joining all of them. `image` does not apply: the guest's program is
// always the static numasim-guest. The model builds the same structure in workload/streams.cpp.
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <stdexcept>
#include <thread>

#include "guest/numactl.h"
#include "guest/programs.h"
#include "guest/sys.h"
#include "guest/touch.h"
#include "machine/page_geometry.h"
#include "program/streams_spec.h"

namespace numasim::guest {

namespace {

// The oracle's guest kernel is x86-64: 4 KiB pages.
constexpr uint64_t PAGE_SIZE = kPages4K.size();

struct Mapping {
    char* base = nullptr;
    uint64_t bytes = 0;
};

// A phase without streams that only takes CPU time: spin on the CPU, touching no memory.
void burn_cpu(Nanos cpu_ns, Nanos deadline) {
    const Nanos start = thread_cpu_ns();
    volatile uint64_t x = 0;
    while (thread_cpu_ns() - start < cpu_ns && monotonic_ns() < deadline)
        for (int i = 0; i < 100000; ++i)
            x = x + 1;
}

class Instance {
  public:
    Instance(const ProcessSpec& ps, int inst, const std::vector<Mapping>& shared,
             const std::vector<std::string>& files, const Context& ctx)
        : ps_(ps), inst_(inst), ctx_(ctx), regions_(shared) {
        comm_ = ps.count > 1 ? fmt::format("{}.{}", ps.name, inst) : ps.name;
        for (size_t r = 0; r < ps.regions.size(); ++r) {
            const RegionSpec& rs = ps.regions[r];
            if (rs.kind == RegionKind::Shared) continue;
            int fd = -1;
            if (rs.kind == RegionKind::File) {
                fd = open(files[r].c_str(), O_RDWR | O_CLOEXEC);
                if (fd < 0) throw std::runtime_error("cannot open " + files[r]);
            }
            regions_[r] = {map_region(rs.size, false, fd, rs.thp), rs.size};
            if (fd >= 0) close(fd);
            if (rs.policy) mbind(regions_[r].base, rs.size, *rs.policy);
        }
    }

    int run() {
        set_comm(comm_);
        if (ps_.join) return run_main();
        if (ps_.has_first_touch()) {
            first_touch();
            for (size_t r = 0; r < ps_.regions.size(); ++r)
                report(r, "first_touch");
        }
        std::vector<std::thread> threads;
        for (size_t t = 1; t < ps_.threads.size(); ++t)
            threads.emplace_back([this, t] { run_thread(static_cast<int>(t)); });
        run_thread(0);
        for (auto& t : threads)
            t.join();
        for (size_t r = 0; r < ps_.regions.size(); ++r)
            report(r, "end");
        return failed_ ? 1 : 0;
    }

  private:
    // Shared and file regions are the same pages in every instance: instance 0 reports them.
    void report(size_t r, const char* when) {
        if (ps_.regions[r].kind != RegionKind::Private && inst_ != 0) return;
        report_region(ctx_, ps_.name, inst_, ps_.regions[r].name, when, regions_[r].base);
    }

    // Thread 0 writes each first-touch region (under MPOL_BIND for "node:N"), then drops the
    // policy before it starts the other threads, which would inherit it.
    void first_touch() {
        Rng rng(ctx_.seed, "guest.first_touch");
        for (size_t r = 0; r < ps_.regions.size(); ++r) {
            const RegionSpec& rs = ps_.regions[r];
            if (rs.first_touch == FirstTouch::None) continue;
            set_mempolicy(rs.first_touch == FirstTouch::Node
                              ? MemPolicy{.mode = MpolMode::Bind,
                                          .nodes = uint64_t{1} << rs.first_touch_node,
                                          .flags = 0}
                              : MemPolicy{});
            std::vector<LiveStream> s = {
                {.base = regions_[r].base, .bytes = rs.size, .write_fraction = 1.0}};
            run_streams(s, {.work_bytes = static_cast<double>(rs.size), .cpu_ns = 0, .deadline = 0},
                        rng, nullptr);
        }
        set_mempolicy(MemPolicy{});
    }

    std::vector<LiveStream> streams_of(const PhaseSpec& p, int thread) const {
        std::vector<LiveStream> out;
        for (const StreamSpec& ss : p.streams) {
            const Mapping& m = regions_[ss.region];
            LiveStream l;
            l.base = m.base;
            l.bytes = m.bytes;
            if (ss.per_thread) {
                const PageSlice s =
                    thread_slice((m.bytes + PAGE_SIZE - 1) / PAGE_SIZE, ps_.threads.size(), thread);
                l.base += s.first * PAGE_SIZE;
                l.bytes = std::min(s.count * PAGE_SIZE, m.bytes - s.first * PAGE_SIZE);
            }
            l.pattern = ss.proto.pattern;
            l.share = ss.proto.share;
            l.write_fraction = ss.proto.write_fraction;
            l.hot_fraction = ss.proto.hot_fraction;
            l.hot_share = ss.proto.hot_share;
            out.push_back(l);
        }
        return out;
    }

    void run_thread(int t) {
        try {
            const ThreadSpec& ts = ps_.threads[t];
            ProgressSlot* slot =
                ctx_.board ? ctx_.board->claim(fmt::format("{}/{}", comm_, t)) : nullptr;
            Rng rng(ctx_.seed, fmt::format("guest.{}.{}.{}", ctx_.workload, comm_, t));
            uint64_t total = 0;
            bool done = false;
            while (!done) {
                done = !run_phases(ts.phases, t, rng, slot, total);
                done = done || !ts.loop;
            }
            if (slot) slot->state = 2;
            report_task(ctx_, ps_.name, inst_, t, total);
        } catch (const std::exception& e) {
            say(fmt::format("error {} thread {}: {}", comm_, t, e.what()));
            failed_ = true;
        }
    }

    // [workload.process.main]: the process's main thread writes the first_touch regions, runs
    // `before`, creates every thread, runs `after` and joins them. It reports itself as the
    // thread after the last one, as the model numbers it.
    int run_main() {
        const int self = static_cast<int>(ps_.threads.size());
        try {
            ProgressSlot* slot =
                ctx_.board ? ctx_.board->claim(fmt::format("{}/main", comm_)) : nullptr;
            Rng rng(ctx_.seed, fmt::format("guest.{}.{}.main", ctx_.workload, comm_));
            uint64_t total = 0;
            if (ps_.has_first_touch()) first_touch();
            const bool live = run_phases(ps_.before, self, rng, slot, total);
            for (size_t r = 0; r < ps_.regions.size(); ++r)
                report(r, "first_touch");
            std::vector<std::thread> threads;
            for (int t = 0; t < self; ++t)
                threads.emplace_back([this, t] { run_thread(t); });
            if (live) run_phases(ps_.after, self, rng, slot, total);
            for (auto& t : threads)
                t.join();
            if (slot) slot->state = 2;
            report_task(ctx_, ps_.name, inst_, self, total);
        } catch (const std::exception& e) {
            say(fmt::format("error {} main thread: {}", comm_, e.what()));
            failed_ = true;
        }
        for (size_t r = 0; r < ps_.regions.size(); ++r)
            report(r, "end");
        return failed_ ? 1 : 0;
    }

    // Each phase of `list` (with its repeats); false once the run's deadline has passed.
    bool run_phases(const std::vector<PhaseSpec>& list, int t, Rng& rng, ProgressSlot* slot,
                    uint64_t& total) {
        for (const PhaseSpec& p : list)
            for (int64_t rep = 0; rep < p.repeat; ++rep)
                if (!phase(p, t, rng, slot, total)) return false;
        return true;
    }

    // One phase; false once the run's deadline has passed.
    bool phase(const PhaseSpec& p, int t, Rng& rng, ProgressSlot* slot, uint64_t& total) {
        if (monotonic_ns() >= ctx_.deadline) return false;
        if (p.affinity) set_affinity(*p.affinity, ctx_.topo.nr_cpus());
        if (p.mempolicy) set_mempolicy(*p.mempolicy);
        auto streams = streams_of(p, t);
        if (!streams.empty()) {
            const Moved m = run_streams(
                streams, {.work_bytes = p.work, .cpu_ns = p.cpu_time, .deadline = ctx_.deadline},
                rng, slot ? &slot->bytes : nullptr);
            total += static_cast<uint64_t>(m.bytes);
        } else if (p.cpu_time > 0) {
            burn_cpu(p.cpu_time, ctx_.deadline);
        }
        if (slot) {
            slot->before = total;
            slot->bytes = 0;
            ++slot->phase;
        }
        if (p.sleep > 0) sleep_until(std::min(monotonic_ns() + p.sleep, ctx_.deadline));
        return monotonic_ns() < ctx_.deadline;
    }

    const ProcessSpec& ps_;
    const int inst_;
    const Context& ctx_;
    std::string comm_;
    std::vector<Mapping> regions_;
    std::atomic<bool> failed_{false};
};

}  // namespace

int run_streams(const StreamsSpec& spec, const Context& ctx) {
    for (const ProcessSpec& ps : spec.processes) {
        std::vector<const std::vector<PhaseSpec>*> lists = {&ps.before, &ps.after};
        for (const ThreadSpec& ts : ps.threads)
            lists.push_back(&ts.phases);
        for (const auto* l : lists)
            for (const PhaseSpec& p : *l)
                if (p.exec)
                    throw std::runtime_error("process " + ps.name +
                                             ": exec phases are not run by the oracle's guest");
    }
    // Shared regions and the files of file regions exist before the instances fork.
    std::vector<std::vector<Mapping>> shared(spec.processes.size());
    std::vector<std::vector<std::string>> files(spec.processes.size());
    for (size_t pi = 0; pi < spec.processes.size(); ++pi) {
        const ProcessSpec& ps = spec.processes[pi];
        shared[pi].resize(ps.regions.size());
        files[pi].resize(ps.regions.size());
        for (size_t r = 0; r < ps.regions.size(); ++r) {
            const RegionSpec& rs = ps.regions[r];
            if (rs.kind == RegionKind::Shared) {
                shared[pi][r] = {map_region(rs.size, true, -1, rs.thp), rs.size};
                if (rs.policy) mbind(shared[pi][r].base, rs.size, *rs.policy);
            } else if (rs.kind == RegionKind::File) {
                // A file in the initramfs' tmpfs: its page cache is what a program's .data or a
                // mapped file is on a disk-backed system once it has been read.
                files[pi][r] = fmt::format("/tmp/w{}-{}-{}", ctx.workload, ps.name, rs.name);
                const int fd = open(files[pi][r].c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
                if (fd < 0 || ftruncate(fd, static_cast<off_t>(rs.size)) != 0)
                    throw std::runtime_error("cannot create " + files[pi][r]);
                close(fd);
            }
        }
    }
    std::vector<int> pids;
    int started = 0;
    for (size_t pi = 0; pi < spec.processes.size(); ++pi)
        for (int inst = 0; inst < spec.processes[pi].count; ++inst, ++started)
            pids.push_back(fork_child([&, pi, inst, started] {
                // Started as from a shell: under its numactl line, before anything of its own.
                bind_as_started(ctx, started);
                // Other processes' shared regions are not this process's memory.
                for (size_t o = 0; o < shared.size(); ++o)
                    for (const Mapping& m : shared[o])
                        if (o != pi && m.base) munmap(m.base, m.bytes);
                Instance in(spec.processes[pi], inst, shared[pi], files[pi], ctx);
                return in.run();
            }));
    return wait_children(pids);
}

}  // namespace numasim::guest
