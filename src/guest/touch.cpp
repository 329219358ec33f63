#include "guest/touch.h"

#include <algorithm>
#include <cstring>

#include "guest/sys.h"

namespace numasim::guest {

namespace {

// Bytes per round between two looks at the clocks: a few hundred microseconds of stores even
// under emulation, so the phase ends within a millisecond of its limit.
constexpr double kRoundBytes = 256 * 1024;

uint64_t sink_word(const char* p) {
    uint64_t v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

}  // namespace

std::vector<uint64_t> round_lines(std::vector<LiveStream>& streams, double round_bytes) {
    double total = 0;
    for (const auto& s : streams)
        total += s.share;
    std::vector<uint64_t> out;
    for (auto& s : streams) {
        const double due = s.carry + round_bytes * s.share / total;
        const auto lines = static_cast<uint64_t>(due / kLineBytes);
        s.carry = due - static_cast<double>(lines * kLineBytes);
        out.push_back(lines);
    }
    return out;
}

uint64_t touch_lines(LiveStream& s, uint64_t lines, Rng& rng) {
    const uint64_t nr_lines = s.bytes / kLineBytes;
    if (nr_lines == 0) return 0;
    uint64_t sum = 0;
    if (s.pattern == Pattern::Sweep) {
        const bool write = s.write_fraction >= 0.5;  // the engine's rule for sweeps
        for (uint64_t i = 0; i < lines; ++i) {
            char* p = s.base + s.cursor * kLineBytes;
            if (write)
                std::memcpy(p, &i, sizeof i);
            else
                sum += sink_word(p);
            if (++s.cursor == nr_lines) s.cursor = 0;
        }
        return sum;
    }
    const uint64_t hot =
        s.pattern == Pattern::HotSet
            ? std::clamp<uint64_t>(static_cast<uint64_t>(nr_lines * s.hot_fraction), 1, nr_lines)
            : nr_lines;
    for (uint64_t i = 0; i < lines; ++i) {
        uint64_t line;
        if (s.pattern == Pattern::HotSet && (hot == nr_lines || rng.bernoulli(s.hot_share)))
            line = rng.below(hot);
        else if (s.pattern == Pattern::HotSet)
            line = hot + rng.below(nr_lines - hot);
        else
            line = rng.below(nr_lines);
        char* p = s.base + line * kLineBytes;
        if (s.write_fraction > 0 && rng.bernoulli(s.write_fraction))
            std::memcpy(p, &i, sizeof i);
        else
            sum += sink_word(p);
    }
    return sum;
}

Moved run_streams(std::vector<LiveStream>& streams, const StopRule& stop, Rng& rng,
                  std::atomic<uint64_t>* progress) {
    Moved m;
    if (streams.empty()) return m;
    const Nanos cpu0 = thread_cpu_ns();
    volatile uint64_t sink = 0;
    for (;;) {
        double round = kRoundBytes;
        if (stop.work_bytes > 0) round = std::min(round, stop.work_bytes - m.bytes);
        const auto lines = round_lines(streams, round);
        for (size_t i = 0; i < streams.size(); ++i) {
            sink = sink + touch_lines(streams[i], lines[i], rng);
            m.bytes += static_cast<double>(lines[i] * kLineBytes);
        }
        if (progress) progress->store(static_cast<uint64_t>(m.bytes), std::memory_order_relaxed);
        if (stop.work_bytes > 0 && m.bytes + kLineBytes / 2 >= stop.work_bytes) break;
        if (stop.cpu_ns > 0 && thread_cpu_ns() - cpu0 >= stop.cpu_ns) break;
        if (stop.deadline > 0 && monotonic_ns() >= stop.deadline) {
            m.deadline = true;
            break;
        }
    }
    return m;
}

}  // namespace numasim::guest
