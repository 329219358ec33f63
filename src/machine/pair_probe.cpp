#include "machine/pair_probe.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <set>

#include "machine/memory_probe.h"

namespace numasim {

namespace {

using Clock = std::chrono::steady_clock;

// Runs per figure: the median of five is robust to one or two disturbed runs; fewer than three
// give no spread worth printing.
constexpr int kRuns = 5;
constexpr int kMinRuns = 3;
// A run shorter than this is dominated by thread start-up and clock reads.
constexpr double kMinRunSeconds = 0.01;
// The chase order's seed: any fixed value; the procedure is the same at every run.
constexpr uint64_t kChaseSeed = 41;
constexpr uint64_t kSlotBytes = 64;  // one chase pointer per cache line (memory_probe.h)
// The chase buffer is this many times the LLCs of the chasing node, so that nearly every load
// misses them (MLC's idle latency uses a buffer well beyond the LLC for the same reason) ...
constexpr uint64_t kLlcMultiple = 4;
// ... and at least this big, for machines whose hwloc reports a small or no LLC.
constexpr uint64_t kMinBufferBytes = 64ull << 20;
// A streaming thread's share of the buffer: far beyond its L2, so that it streams from memory.
constexpr uint64_t kMinStreamBytesPerCpu = 4ull << 20;
// At most this share of the target node's memory goes to the buffer.
constexpr uint64_t kMaxNodeMemoryShare = 4;
constexpr uint64_t kHugePageBytes = 2ull << 20;

// Runs for a part of a pair's time: as many as fit, from kMinRuns to kRuns, each at least
// kMinRunSeconds long. `extra` untimed runs come first (the chase's warm-up).
std::pair<int, double> plan_runs(double part, int extra) {
    const int runs = std::clamp(static_cast<int>(part / kMinRunSeconds) - extra, kMinRuns, kRuns);
    return {runs, std::max(kMinRunSeconds, part / (runs + extra))};
}

void add_note(std::string& to, const std::string& note) {
    if (!note.empty()) to += (to.empty() ? "" : "; ") + note;
}

std::string spread(const RunStats& s, const char* unit) {
    return fmt::format("{:.1f} {} ({} runs, {:.1f}..{:.1f})", s.median, unit, s.runs, s.min, s.max);
}

}  // namespace

PairMeasurement measure_pair(const PairProbe& p, ChaseOrders& orders) {
    const Clock::time_point t0 = Clock::now();
    PairMeasurement m;
    m.from = p.from;
    m.to = p.to;
    NodeBuffer buf(p.buffer_bytes, p.node_os, p.touch_cpu);
    const double share = buf.share_on_node();
    if (!buf.bind_error().empty())
        add_note(m.placement,
                 buf.bind_error() + (p.touch_cpu >= 0 ? fmt::format(", placed by first touch "
                                                                    "from CPU {}",
                                                                    p.touch_cpu)
                                                      : ""));
    if (share >= 0 && share < 1)
        add_note(m.placement, fmt::format("only {:.0f}% of the buffer's pages are on node {}",
                                          share * 100, p.to));
    m.placed = share >= 0 ? share == 1 : buf.bind_error().empty() || p.touch_cpu >= 0;
    if (!m.placed) add_note(m.placement, "left out of the figures");
    for (int cpu : p.cpus)
        add_note(m.placement, pin_error(cpu));
    auto& next = orders[p.buffer_bytes];
    if (next.empty())
        next = sattolo_cycle(static_cast<uint32_t>(p.buffer_bytes / kSlotBytes), kChaseSeed);
    lay_out_chase(buf, next);
    // What is left after the set-up, evenly over the three measurements.
    const double setup = std::chrono::duration<double>(Clock::now() - t0).count();
    const double part = std::max(0.0, p.seconds - setup) / 3;
    const auto [chase_runs, chase_s] = plan_runs(part, 1);
    m.latency_ns = run_stats(chase_ns_per_load(buf, p.cpus.front(), chase_s, chase_runs));
    const auto [runs, run_s] = plan_runs(part, 0);
    m.read_gbs = run_stats(stream_gbs(buf, p.cpus, StreamKind::kRead, run_s, runs));
    m.write_gbs = run_stats(stream_gbs(buf, p.cpus, StreamKind::kWrite, run_s, runs));
    return m;
}

std::vector<std::pair<int, int>> calibration_pairs(const Topology& t) {
    std::vector<std::pair<int, int>> todo;
    for (int from = 0; from < t.nr_nodes(); ++from)
        for (int to = 0; to < t.nr_nodes() && !t.nodes[from].cpus.empty(); ++to)
            if (t.nodes[to].mem_bytes > 0) todo.emplace_back(from, to);
    return todo;
}

uint64_t pair_buffer_bytes(const Topology& t, int from, int to) {
    std::set<int> llcs;
    for (int cpu : t.nodes[from].cpus)
        llcs.insert(t.cpus[cpu].llc);
    uint64_t b = std::max({kMinBufferBytes, kLlcMultiple * t.hw.llc_bytes * llcs.size(),
                           kMinStreamBytesPerCpu * t.nodes[from].cpus.size()});
    b = std::min(b, t.nodes[to].mem_bytes / kMaxNodeMemoryShare);
    return b / kHugePageBytes * kHugePageBytes;
}

std::string pair_figures_text(const PairMeasurement& m) {
    return fmt::format("latency {}, read {}, write {}{}", spread(m.latency_ns, "ns"),
                       spread(m.read_gbs, "GB/s"), spread(m.write_gbs, "GB/s"),
                       m.placement.empty() ? "" : "; " + m.placement);
}

}  // namespace numasim
