// The shared-data-section test on a real kernel: a 4 MB initialised global array in this
// program's own .data (so a private file mapping of the executable's page cache), summed over
// and over by `processes` forked children until `seconds` have passed. "anon" sums a copy the
// parent made in anonymous memory before fork (COW-shared), "private" a copy each child makes
// after fork. The model runs the same description in workload/cowsum.cpp.
#include <fmt/format.h>

#include <cstring>

#include "guest/programs.h"
#include "guest/sys.h"
#include "program/cowsum_spec.h"

namespace numasim::guest {

namespace {

// "int a[1000000] = {13};": initialised, so it lives in .data, not .bss.
int cowsum_array[COWSUM_ARRAY_INTS] = {13};

int child(const CowsumSpec& spec, const int* anon, int c, const Context& ctx) {
    set_comm("cowsum");
    const int* src = spec.mode == CowsumMode::Data ? cowsum_array : anon;
    int* own = nullptr;
    if (spec.mode == CowsumMode::Private) {
        own = reinterpret_cast<int*>(map_region(COWSUM_ARRAY_BYTES, false, -1, false));
        std::memcpy(own, cowsum_array, COWSUM_ARRAY_BYTES);
        src = own;
    }
    ProgressSlot* slot = ctx.board ? ctx.board->claim(fmt::format("cowsum/{}", c)) : nullptr;
    const Nanos end = std::min(monotonic_ns() + spec.run_ns, ctx.deadline);
    uint64_t passes = 0;
    volatile long sink = 0;
    // while (timercmp(&t2, &t1, <)) { for (j...) b += a[j]; n++; gettimeofday(&t2); }
    while (monotonic_ns() < end) {
        long b = 0;
        for (uint64_t j = 0; j < COWSUM_ARRAY_INTS; ++j)
            b += src[j];
        sink = sink + b;
        ++passes;
        if (slot) slot->bytes.store(passes * COWSUM_ARRAY_BYTES, std::memory_order_relaxed);
    }
    if (slot) slot->state = 2;
    report_task(ctx, "cowsum", c, 0, passes * COWSUM_ARRAY_BYTES, fmt::format("passes={}", passes));
    // The shared pages are reported once, by the first child, which mapped them all.
    if (c == 1)
        report_region(ctx, "cowsum", 0, spec.mode == CowsumMode::Anon ? "anon" : "data", "end",
                      src);
    if (own) report_region(ctx, "cowsum", c, "own", "end", own);
    return 0;
}

}  // namespace

int run_cowsum(const CowsumSpec& spec, const Context& ctx) {
    int* anon = nullptr;
    if (spec.mode == CowsumMode::Anon) {
        anon = reinterpret_cast<int*>(map_region(COWSUM_ARRAY_BYTES, false, -1, false));
        std::memcpy(anon, cowsum_array, COWSUM_ARRAY_BYTES);
    }
    std::vector<int> pids;
    for (int c = 1; c <= spec.processes; ++c)
        pids.push_back(fork_child([&, c] { return child(spec, anon, c, ctx); }));
    return wait_children(pids);
}

}  // namespace numasim::guest
