// The shared-data-section test on a real kernel: a 4 MB initialised global array in this
// program's own .data (so a private file mapping of the executable's page cache), summed over
// and over by `processes` forked children until `seconds` have passed. "anon" sums a copy the
// parent made in anonymous memory before fork (COW-shared), "private" a copy each child makes
// after fork. program = "oracle" is the qemu oracle's cowsum.c: a 4 MiB array, a MAP_SHARED
// page of per-child pass counters, and one pass by the parent before it forks. The model runs
// the same description in workload/cowsum.cpp.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "guest/programs.h"
#include "guest/sys.h"
#include "program/cowsum_spec.h"

namespace numasim::guest {

namespace {

// The oracle cowsum.c's `struct shared`: 19 KiB of flags and counters (workload/cowsum.cpp);
// the children write a pass counter each, in its first pages.
constexpr uint64_t kCounterBytes = 19 * 1024;
constexpr uint64_t kCounters = 256;

// "int a[1000000] = {13};": initialised, so it lives in .data, not .bss. Sized for the larger
// of the two programs' arrays; each sums the first spec.array_bytes of it.
constexpr uint64_t kArrayInts =
    std::max(COWSUM_POSTED_ARRAY_BYTES, COWSUM_ORACLE_ARRAY_BYTES) / sizeof(int);
int cowsum_array[kArrayInts] = {13};

// One pass over the array: "for (j...) b += a[j]".
long sum_pass(const int* src, uint64_t ints) {
    long b = 0;
    for (uint64_t j = 0; j < ints; ++j)
        b += src[j];
    return b;
}

int child(const CowsumSpec& spec, const int* anon, uint64_t* counters, int c, const Context& ctx) {
    set_comm("cowsum");
    const uint64_t ints = spec.array_bytes / sizeof(int);
    const int* src = spec.mode == CowsumMode::Data ? cowsum_array : anon;
    int* own = nullptr;
    if (spec.mode == CowsumMode::Private) {
        own = reinterpret_cast<int*>(map_region(spec.array_bytes, false, -1, false));
        std::memcpy(own, cowsum_array, spec.array_bytes);
        src = own;
    }
    ProgressSlot* slot = ctx.board ? ctx.board->claim(fmt::format("cowsum/{}", c)) : nullptr;
    const Nanos end = std::min(monotonic_ns() + spec.run_ns, ctx.deadline);
    uint64_t passes = 0;
    volatile long sink = 0;
    // while (timercmp(&t2, &t1, <)) { for (j...) b += a[j]; n++; gettimeofday(&t2); }
    while (monotonic_ns() < end) {
        sink = sink + sum_pass(src, ints);
        ++passes;
        if (counters) ++counters[c % kCounters];  // sh->passes[c]++
        if (slot) slot->bytes.store(passes * spec.array_bytes, std::memory_order_relaxed);
    }
    if (slot) slot->state = 2;
    report_task(ctx, "cowsum", c, 0, passes * spec.array_bytes, fmt::format("passes={}", passes));
    // The shared pages are reported once, by the first child, which mapped them all.
    if (c == 1)
        report_region(ctx, "cowsum", 0, spec.mode == CowsumMode::Anon ? "anon" : "data", "end",
                      src);
    if (own) report_region(ctx, "cowsum", c, "own", "end", own);
    return 0;
}

}  // namespace

int run_cowsum(const CowsumSpec& spec, const Context& ctx) {
    uint64_t* counters = nullptr;
    if (spec.program == CowsumProgram::Oracle) {
        // memset(sh, 0, sizeof *sh) of a MAP_SHARED struct of per-child counters.
        counters = reinterpret_cast<uint64_t*>(map_region(kCounterBytes, true, -1, false));
        std::memset(counters, 0, kCounterBytes);
    }
    int* anon = nullptr;
    if (spec.mode == CowsumMode::Anon) {
        anon = reinterpret_cast<int*>(map_region(spec.array_bytes, false, -1, false));
        std::memcpy(anon, cowsum_array, spec.array_bytes);
    }
    if (spec.program == CowsumProgram::Oracle) {
        // The parent's first pass before it forks ("s0 += arr[i]").
        volatile long sink = sum_pass(anon ? anon : cowsum_array, spec.array_bytes / sizeof(int));
        (void)sink;
    }
    std::vector<int> pids;
    for (int c = 1; c <= spec.processes; ++c)
        pids.push_back(fork_child([&, c] { return child(spec, anon, counters, c, ctx); }));
    return wait_children(pids);
}

}  // namespace numasim::guest
