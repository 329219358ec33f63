// autonuma-benchmark's numa01.c and numa02.c on a real kernel, as the sources do it. numa01:
// main() forks once; each process mallocs the buffer and creates THREADS threads, each of which
// bzero()es the whole buffer under MPOL_BIND to the first-touch node, drops the policy and then
// bzero()es its own part (THREAD_ALLOC: its slice, else the whole buffer) `loops` times; main()
// joins them; a bound build (HARD_BIND, INVERSE_BIND) binds each process first and sets no
// policy in the threads. numa02: one process; main() bzero()es the buffer, then THREADS threads
// each bzero() their slice `loops` times. The model runs the same description in
// workload/autonumabench.cpp.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <thread>

#include "guest/programs.h"
#include "guest/sys.h"
#include "program/autonumabench_spec.h"

namespace numasim::guest {

namespace {

// bzero() in pieces, so that the run's deadline and the progress board are looked at between
// them; 2 MiB is one huge page, a few milliseconds of stores even under emulation.
constexpr uint64_t kPiece = uint64_t{2} << 20;

// Returns the bytes written; stops early at the deadline.
uint64_t bzero_range(char* p, uint64_t bytes, const Context& ctx, ProgressSlot* slot,
                     uint64_t& total) {
    uint64_t done = 0;
    while (done < bytes && monotonic_ns() < ctx.deadline) {
        const uint64_t n = std::min(kPiece, bytes - done);
        std::memset(p + done, 0, n);
        done += n;
        total += n;
        if (slot) slot->bytes.store(total, std::memory_order_relaxed);
    }
    return done;
}

int one_process(const AutonumabenchSpec& spec, int proc, const Context& ctx) {
    const AutonumaSizing& s = spec.size;
    const std::string comm = s.bind_first_touch ? "numa01" : "numa02";
    set_comm(comm);
    char* buffer = map_region(s.bytes, false, -1, spec.thp);  // malloc(SIZE)
    const bool forced = spec.bind == AutonumaBind::None;
    if (!forced) {
        // HARD_BIND: numa01.c binds its process before creating the threads, which inherit it.
        const AutonumaBinding b = autonuma_binding(spec.bind, ctx.topo, proc);
        set_affinity(b.cpus, ctx.topo.nr_cpus());
        set_mempolicy({.mode = MpolMode::Bind, .nodes = b.nodes, .flags = 0});
    }
    const uint64_t slice = s.bytes / static_cast<uint64_t>(s.threads);
    uint64_t main_bytes = 0;
    if (!s.bind_first_touch)
        bzero_range(buffer, s.bytes, ctx, nullptr, main_bytes);  // numa02: main() zeroes it
    auto worker = [&](int i) {
        ProgressSlot* slot =
            ctx.board ? ctx.board->claim(fmt::format("{}.{}/{}", comm, proc, i)) : nullptr;
        uint64_t total = 0;
        if (s.bind_first_touch) {
            if (forced)
                set_mempolicy({.mode = MpolMode::Bind,
                               .nodes = uint64_t{1} << spec.first_touch_node,
                               .flags = 0});
            bzero_range(buffer, s.bytes, ctx, slot, total);
            if (forced) set_mempolicy({});
        }
        char* own = s.thread_local_slices ? buffer + slice * static_cast<uint64_t>(i) : buffer;
        const uint64_t own_bytes = s.thread_local_slices ? slice : s.bytes;
        for (int l = 0; l < s.loops && monotonic_ns() < ctx.deadline; ++l)
            bzero_range(own, own_bytes, ctx, slot, total);
        if (slot) slot->state = 2;
        report_task(ctx, comm, proc, i + 1, total);
    };
    std::vector<std::thread> threads;
    for (int i = 0; i < s.threads; ++i)
        threads.emplace_back(worker, i);
    for (auto& t : threads)
        t.join();
    // The main thread, as the model counts it too: a task that moved memory (numa02's zeroing).
    if (main_bytes > 0) report_task(ctx, comm, proc, 0, main_bytes);
    report_region(ctx, comm, proc, "buffer", "end", buffer);
    return 0;
}

}  // namespace

int run_autonumabench(const AutonumabenchSpec& spec, const Context& ctx) {
    std::vector<int> pids;
    // numa01.c forks before malloc(): the two processes are parent and child.
    for (int p = 0; p < spec.size.processes; ++p)
        pids.push_back(fork_child([&, p] { return one_process(spec, p, ctx); }));
    return wait_children(pids);
}

}  // namespace numasim::guest
