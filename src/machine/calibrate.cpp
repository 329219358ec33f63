#include "machine/calibrate.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "config/input_error.h"
#include "config/version.h"
#include "machine/hwloc_import.h"
#include "machine/presets.h"

namespace numasim {

namespace {

using Clock = std::chrono::steady_clock;

bool has_cpus(const Topology& t, int n) {
    return !t.nodes[n].cpus.empty();
}

// Whether the model joins nodes a and b by a direct link: no third node is strictly closer to
// both (the rule of cost/interconnect.h, from the kernel's glueless-mesh test).
bool linked(const Topology& t, int a, int b) {
    if (a == b) return false;
    for (int c = 0; c < t.nr_nodes(); ++c)
        if (c != a && c != b && t.distance[a][c] < t.distance[a][b] &&
            t.distance[c][b] < t.distance[a][b])
            return false;
    return true;
}

// The mean of `pick` over `pairs` that `want` selects, and how many there were.
template <typename Want, typename Pick>
std::pair<double, int> mean_over(const std::vector<PairMeasurement>& pairs, Want want, Pick pick) {
    double sum = 0;
    int n = 0;
    for (const PairMeasurement& p : pairs)
        if (want(p)) {
            sum += pick(p).median;
            ++n;
        }
    return {n ? sum / n : 0, n};
}

// Measured figures are written to 0.1 ns or GB/s: their run-to-run spread is far wider.
double rounded(double v) {
    return std::round(v * 10) / 10;
}

std::string plural(size_t n, const char* one, const char* many) {
    return fmt::format("{} {}", n, n == 1 ? one : many);
}

std::string pairs_phrase(int n) {
    return n == 1 ? "the one node pair" : fmt::format("the mean of {} node pairs", n);
}

}  // namespace

std::map<std::string, std::string> apply_measurements(Topology& host,
                                                      const CalibrationBaseline& baseline,
                                                      const std::vector<PairMeasurement>& pairs) {
    std::map<std::string, std::string> notes;
    const MemoryHardware& base = baseline.hw;
    const std::string kept = "not measured: kept from " + baseline.name;
    auto cpu_pair = [&](const PairMeasurement& p) {
        return p.placed && has_cpus(host, p.from) && has_cpus(host, p.to);
    };
    auto latency = [](const PairMeasurement& p) { return p.latency_ns; };
    auto read = [](const PairMeasurement& p) { return p.read_gbs; };

    std::set<int> distances;
    for (const auto& row : host.distance)
        distances.insert(row.begin(), row.end());
    MemoryHardware hw = base;
    hw.llc_bytes = host.hw.llc_bytes;
    hw.pages = host.hw.pages;
    hw.latency_ns.clear();
    for (int d : distances) {
        const std::string key = fmt::format("latency_ns.{}", d);
        const auto [ns, n] = mean_over(
            pairs, [&](const auto& p) { return cpu_pair(p) && host.distance[p.from][p.to] == d; },
            latency);
        if (n > 0) {
            hw.latency_ns[d] = rounded(ns);
            notes[key] = fmt::format("measured: idle pointer-chase latency at SLIT {}, {}", d,
                                     pairs_phrase(n));
        } else {
            hw.latency_ns[d] = base.latency(d);
            notes[key] = kept + (base.latency_ns.count(d) ? "" : " (its local latency x d/10)");
        }
    }
    const auto [dram, locals] = mean_over(
        pairs, [&](const auto& p) { return cpu_pair(p) && p.from == p.to; }, read);
    if (locals > 0) {
        hw.dram_bandwidth_gbs = rounded(dram);
        notes["dram_bandwidth_gbs"] =
            fmt::format("measured: read bandwidth of all a node's CPUs from its own memory, {}",
                        locals == 1 ? std::string("the one node")
                                    : fmt::format("the mean of {} nodes", locals));
    } else {
        notes["dram_bandwidth_gbs"] = kept;
    }
    const auto [link, links] = mean_over(
        pairs, [&](const auto& p) { return cpu_pair(p) && linked(host, p.from, p.to); }, read);
    if (links > 0) {
        hw.link_bandwidth_gbs = rounded(link);
        notes["link_bandwidth_gbs"] = fmt::format(
            "measured: read bandwidth of all a node's CPUs from a directly linked node's memory "
            "(bounded by that node's memory too), {}",
            pairs_phrase(links));
    } else {
        notes["link_bandwidth_gbs"] = kept + " (no two nodes with CPUs to measure a link between)";
    }
    notes["llc_mb"] = "not measured: the size of one LLC as the topology gives it (hwloc's)";
    notes["page_size"] = "not measured: the base page of the machine measured";
    for (const char* k :
         {"llc_latency_ns", "line_fill_buffers", "smt_core_speedup", "cpu_ghz", "mmu"})
        notes[k] = kept;

    // A device node's figures: from the nearest node with CPUs, as the format defines them.
    for (int n = 0, m = 0; n < host.nr_nodes(); ++n) {
        if (has_cpus(host, n)) continue;
        MemoryDevice& d = host.nodes[n].device;
        const int from = host.nearest_cpu_node(n);
        const std::string id = fmt::format("memory_node[{}]", m++);
        for (const PairMeasurement& p : pairs) {
            if (p.from != from || p.to != n || !p.placed || d.kind == MemoryKind::kDram) continue;
            d.latency_ns = rounded(p.latency_ns.median);
            d.bandwidth_gbs = rounded(p.read_gbs.median);
            notes[id + ".latency_ns"] =
                fmt::format("measured: idle pointer-chase latency from node {}", from);
            notes[id + ".bandwidth_gbs"] =
                fmt::format("measured: read bandwidth of node {}'s CPUs", from);
        }
    }
    host.hw = hw;
    return notes;
}

namespace {

class Budget {
  public:
    explicit Budget(double seconds) : seconds_(seconds), t0_(Clock::now()) {}
    double elapsed() const { return std::chrono::duration<double>(Clock::now() - t0_).count(); }
    double left() const { return std::max(0.0, seconds_ - elapsed()); }

  private:
    double seconds_;
    Clock::time_point t0_;
};

CalibrationBaseline preset_baseline(const std::string& like) {
    try {
        return {load_preset(like).hw, fmt::format("preset {}", like)};
    } catch (const InputError& e) {
        throw InputError("command line", "--like", fmt::format("'{}': {}", like, e.problem()));
    }
}

}  // namespace

CalibrationBaseline calibration_baseline(const std::string& like, const Topology& machine) {
    if (like.empty())
        return {generic_hardware(machine.distance), "numasim's generic figures (docs/machines.md)"};
    return preset_baseline(like);
}

std::string calibration_file(Topology t, const CalibrationBaseline& baseline,
                             const std::vector<PairMeasurement>& pairs, const std::string& where) {
    MachineFileComments comments;
    comments.keys = apply_measurements(t, baseline, pairs);
    t.description =
        fmt::format("{} as numasim calibrate measured it: {}, {}", where,
                    plural(t.nr_nodes(), "node", "nodes"), plural(t.nr_cpus(), "CPU", "CPUs"));
    t.source = fmt::format(
        "{} as numasim calibrate measured it. Latency: idle load-to-use latency, a pointer chase "
        "from one CPU of the node along a random cycle of cache lines (Sattolo order) over a "
        "buffer well beyond the node's LLCs bound to the memory node with mbind; read and write "
        "bandwidth: one thread on every CPU of the node streaming over its share of that buffer "
        "(reading 64-bit words, or memset), summed; each the median of repeated runs. Figures "
        "not measured are {}. Not controlled: hardware prefetchers, sub-NUMA clustering, turbo "
        "and frequency scaling, other load.",
        where, baseline.name);
    comments.header.push_back(fmt::format("Measured by numasim calibrate (numasim {}, {}) on {}.",
                                          numasim_version(), numasim_git_revision(), where));
    comments.header.push_back(
        "Per node pair (CPUs of the first node, memory of the second): median (runs, min..max).");
    for (const PairMeasurement& m : pairs)
        comments.header.push_back(
            fmt::format("node {} -> node {}: {}", m.from, m.to, pair_figures_text(m)));
    t.validate("numasim calibrate");
    return machine_file_text(t, comments);
}

Calibration calibrate_host(const CalibrateOptions& o) {
    auto say = [&](const std::string& s) {
        if (o.progress) o.progress(s);
    };
    const Budget budget(o.budget_seconds);
    // An unknown preset fails before anything is measured.
    if (!o.like.empty()) preset_baseline(o.like);
    HostMachine h = import_hwloc_host_ids();
    Topology& t = h.topology;
    const CalibrationBaseline baseline = calibration_baseline(o.like, t);
    const auto todo = calibration_pairs(t);
    say(fmt::format("hwloc: {}, {}, LLC {} MiB; {}, about {:.1f} s each",
                    plural(t.nr_nodes(), "node", "nodes"), plural(t.nr_cpus(), "CPU", "CPUs"),
                    t.hw.llc_bytes >> 20, plural(todo.size(), "node pair", "node pairs"),
                    budget.left() / static_cast<double>(todo.size())));
    Calibration c;
    ChaseOrders orders;
    for (size_t i = 0; i < todo.size(); ++i) {
        PairProbe p;
        std::tie(p.from, p.to) = todo[i];
        for (int cpu : t.nodes[p.from].cpus)
            p.cpus.push_back(h.cpu_os_index[cpu]);
        p.node_os = h.node_os_index[p.to];
        if (has_cpus(t, p.to)) p.touch_cpu = h.cpu_os_index[t.nodes[p.to].cpus.front()];
        p.buffer_bytes = pair_buffer_bytes(t, p.from, p.to);
        p.seconds = budget.left() / static_cast<double>(todo.size() - i);
        PairMeasurement m = measure_pair(p, orders);
        say(fmt::format("[{}/{}] node {} -> node {}: {}", i + 1, todo.size(), p.from, p.to,
                        pair_figures_text(m)));
        c.pairs.push_back(std::move(m));
    }
    // The host's base page; a 64 KiB page keeps the baseline's MMU, which sets the THP size.
    if (sysconf(_SC_PAGESIZE) == static_cast<long>(kPages64KRadix.size()))
        t.hw.pages = baseline.hw.pages == kPages64KHash ? kPages64KHash : kPages64KRadix;
    t.name = "calibrated-host";
    c.text = calibration_file(t, baseline, c.pairs, "this host");
    c.seconds = budget.elapsed();
    return c;
}

}  // namespace numasim
