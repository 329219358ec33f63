#include "guest/calibrate.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "guest/context.h"
#include "guest/sys.h"

namespace numasim::guest {

namespace {

std::string figure_words(const char* name, const RunStats& s) {
    return fmt::format("{0}={1} {0}_runs={2} {0}_min={3} {0}_max={4}", name, s.median, s.runs,
                       s.min, s.max);
}

}  // namespace

std::string calibrate_line(const PairMeasurement& m) {
    return fmt::format("calibrate from={} to={} placed={:d} {} {} {}", m.from, m.to, m.placed,
                       figure_words("latency_ns", m.latency_ns),
                       figure_words("read_gbs", m.read_gbs),
                       figure_words("write_gbs", m.write_gbs));
}

int run_calibration(int64_t ms) {
    // The guest's nodes and CPUs are numbered 0..n-1 as Linux numbers them (qemu's -numa), so
    // the topology's ids are the Linux ids.
    const Topology t = sysfs_topology();
    const auto todo = calibration_pairs(t);
    const Nanos deadline = monotonic_ns() + ms * NSEC_PER_MSEC;
    ChaseOrders orders;
    for (size_t i = 0; i < todo.size(); ++i) {
        PairProbe p;
        p.from = todo[i].first;
        p.to = todo[i].second;
        p.cpus = t.nodes[p.from].cpus;
        p.node_os = p.to;
        if (!t.nodes[p.to].cpus.empty()) p.touch_cpu = t.nodes[p.to].cpus.front();
        p.buffer_bytes = pair_buffer_bytes(t, p.from, p.to);
        const Nanos left = std::max<Nanos>(0, deadline - monotonic_ns());
        p.seconds = static_cast<double>(left) / 1e9 / static_cast<double>(todo.size() - i);
        const PairMeasurement m = measure_pair(p, orders);
        say(calibrate_line(m));
        say(fmt::format("progress calibrate [{}/{}] node {} -> node {}: {}", i + 1, todo.size(),
                        m.from, m.to, pair_figures_text(m)));
    }
    return 0;
}

}  // namespace numasim::guest
