#include "machine/calibrate.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <optional>
#include <set>

#include "config/input_error.h"
#include "config/version.h"
#include "machine/hwloc_import.h"
#include "machine/memory_probe.h"
#include "machine/presets.h"

namespace numasim {

namespace {

using Clock = std::chrono::steady_clock;

// Runs per figure: the median of five is robust to one or two disturbed runs; fewer than three
// give no spread worth printing.
constexpr int kRuns = 5;
constexpr int kMinRuns = 3;
// A run shorter than this is dominated by thread start-up and clock reads.
constexpr double kMinRunSeconds = 0.01;
// The chase buffer is this many times the LLCs of the chasing node, so that nearly every load
// misses them (MLC's idle latency uses a buffer well beyond the LLC for the same reason) ...
constexpr uint64_t kLlcMultiple = 4;
// ... and at least this big, for machines whose hwloc reports a small or no LLC.
constexpr uint64_t kMinBufferBytes = 64ull << 20;
// A streaming thread's share of the buffer: far beyond its L2, so that it streams from memory.
constexpr uint64_t kMinStreamBytesPerCpu = 4ull << 20;
// At most this share of the target node's memory goes to the buffer.
constexpr uint64_t kMaxNodeMemoryShare = 4;
// The chase order's seed: any fixed value; the procedure is the same at every run.
constexpr uint64_t kChaseSeed = 41;
constexpr uint64_t kLineBytes = 64;
constexpr int kLocalDistance = 10;

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

std::string spread(const RunStats& s, const char* unit) {
    return fmt::format("{:.1f} {} ({} runs, {:.1f}..{:.1f})", s.median, unit, s.runs, s.min, s.max);
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
    const std::string kept = "not measured on this host: kept from " + baseline.name;
    auto cpu_pair = [&](const PairMeasurement& p) {
        return has_cpus(host, p.from) && has_cpus(host, p.to);
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
        notes["link_bandwidth_gbs"] = kept + " (the host has no link between nodes with CPUs)";
    }
    notes["llc_mb"] = "from hwloc: the size of one LLC";
    notes["page_size"] = "the host's base page (sysconf)";
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
            if (p.from != from || p.to != n || d.kind == MemoryKind::kDram) continue;
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

// Runs for a part of a pair's time: as many as fit, from kMinRuns to kRuns, each at least
// kMinRunSeconds long. `extra` untimed runs come first (the chase's warm-up).
std::pair<int, double> plan_runs(double part, int extra) {
    const int runs = std::clamp(static_cast<int>(part / kMinRunSeconds) - extra, kMinRuns, kRuns);
    return {runs, std::max(kMinRunSeconds, part / (runs + extra))};
}

uint64_t buffer_bytes(const Topology& t, int from, int to) {
    std::set<int> llcs;
    for (int cpu : t.nodes[from].cpus)
        llcs.insert(t.cpus[cpu].llc);
    uint64_t b = std::max({kMinBufferBytes, kLlcMultiple * t.hw.llc_bytes * llcs.size(),
                           kMinStreamBytesPerCpu * t.nodes[from].cpus.size()});
    b = std::min(b, t.nodes[to].mem_bytes / kMaxNodeMemoryShare);
    return b / (2ull << 20) * (2ull << 20);  // whole huge pages
}

PairMeasurement measure_pair(const HostMachine& h, int from, int to, double seconds,
                             std::map<uint64_t, std::vector<uint32_t>>& chases) {
    const Topology& t = h.topology;
    const Clock::time_point t0 = Clock::now();
    PairMeasurement m;
    m.from = from;
    m.to = to;
    const uint64_t bytes = buffer_bytes(t, from, to);
    NodeBuffer buf(bytes, h.node_os_index[to]);
    m.placement = buf.bind_error();
    const double share = buf.share_on_node();
    if (share >= 0 && share < 1)
        m.placement += fmt::format("{}only {:.0f}% of the buffer's pages are on node {}",
                                   m.placement.empty() ? "" : "; ", share * 100, to);
    auto& next = chases[bytes];
    if (next.empty()) next = sattolo_cycle(static_cast<uint32_t>(bytes / kLineBytes), kChaseSeed);
    lay_out_chase(buf, next);
    const double setup = std::chrono::duration<double>(Clock::now() - t0).count();
    const double part = std::max(0.0, seconds - setup) / 3;
    std::vector<int> cpus;
    for (int c : t.nodes[from].cpus) {
        cpus.push_back(h.cpu_os_index[c]);
        const std::string pin = pin_error(cpus.back());
        if (!pin.empty()) m.placement += (m.placement.empty() ? "" : "; ") + pin;
    }
    const auto [chase_runs, chase_s] = plan_runs(part, 1);
    m.latency_ns = run_stats(chase_ns_per_load(buf, cpus.front(), chase_s, chase_runs));
    const auto [runs, run_s] = plan_runs(part, 0);
    m.read_gbs = run_stats(stream_gbs(buf, cpus, StreamKind::kRead, run_s, runs));
    m.write_gbs = run_stats(stream_gbs(buf, cpus, StreamKind::kWrite, run_s, runs));
    return m;
}

CalibrationBaseline preset_baseline(const std::string& like) {
    try {
        return {load_preset(like).hw, fmt::format("preset {}", like)};
    } catch (const InputError& e) {
        throw InputError("command line", "--like", fmt::format("'{}': {}", like, e.problem()));
    }
}

}  // namespace

Calibration calibrate_host(const CalibrateOptions& o) {
    auto say = [&](const std::string& s) {
        if (o.progress) o.progress(s);
    };
    const Budget budget(o.budget_seconds);
    // An unknown preset fails before anything is measured.
    std::optional<CalibrationBaseline> preset;
    if (!o.like.empty()) preset = preset_baseline(o.like);
    HostMachine h = import_hwloc_host_ids();
    Topology& t = h.topology;
    const CalibrationBaseline baseline =
        preset ? *preset
               : CalibrationBaseline{generic_hardware(t.distance),
                                     "numasim's generic figures (docs/machines.md)"};
    std::vector<std::pair<int, int>> todo;
    for (int from = 0; from < t.nr_nodes(); ++from)
        for (int to = 0; to < t.nr_nodes() && has_cpus(t, from); ++to)
            if (t.nodes[to].mem_bytes > 0) todo.emplace_back(from, to);
    say(fmt::format("hwloc: {}, {}, LLC {} MiB; {}, about {:.1f} s each",
                    plural(t.nr_nodes(), "node", "nodes"), plural(t.nr_cpus(), "CPU", "CPUs"),
                    t.hw.llc_bytes >> 20, plural(todo.size(), "node pair", "node pairs"),
                    budget.left() / static_cast<double>(todo.size())));
    Calibration c;
    std::map<uint64_t, std::vector<uint32_t>> chases;
    for (size_t i = 0; i < todo.size(); ++i) {
        const auto [from, to] = todo[i];
        const double slice = budget.left() / static_cast<double>(todo.size() - i);
        PairMeasurement m = measure_pair(h, from, to, slice, chases);
        say(fmt::format("[{}/{}] node {} -> node {}: latency {}, read {}, write {}{}", i + 1,
                        todo.size(), from, to, spread(m.latency_ns, "ns"),
                        spread(m.read_gbs, "GB/s"), spread(m.write_gbs, "GB/s"),
                        m.placement.empty() ? "" : "; " + m.placement));
        c.pairs.push_back(std::move(m));
    }
    // The host's base page; a 64 KiB page keeps the baseline's MMU, which sets the THP size.
    if (sysconf(_SC_PAGESIZE) == static_cast<long>(kPages64KRadix.size()))
        t.hw.pages = baseline.hw.pages == kPages64KHash ? kPages64KHash : kPages64KRadix;
    MachineFileComments comments;
    comments.keys = apply_measurements(t, baseline, c.pairs);
    t.name = "calibrated-host";
    t.description =
        fmt::format("this host as numasim calibrate measured it: {}, {}",
                    plural(t.nr_nodes(), "node", "nodes"), plural(t.nr_cpus(), "CPU", "CPUs"));
    t.source = fmt::format(
        "Topology from hwloc. Latency: idle load-to-use latency, a pointer chase from one CPU of "
        "the node along a random cycle of cache lines (Sattolo order) over a buffer of at least "
        "{}x the node's LLCs bound to the memory node with mbind; read and write bandwidth: "
        "one thread on every CPU of the node streaming over its share of that buffer (reading "
        "64-bit words, or memset), summed; each the median of repeated runs. Figures not "
        "measured are {}. Not controlled: hardware prefetchers, sub-NUMA clustering, turbo and "
        "frequency scaling, other load on the host.",
        kLlcMultiple, baseline.name);
    comments.header.push_back(fmt::format("Measured by numasim calibrate (numasim {}, {}).",
                                          numasim_version(), numasim_git_revision()));
    comments.header.push_back(
        "Per node pair (CPUs of the first node, memory of the second): median (runs, min..max).");
    for (const PairMeasurement& m : c.pairs)
        comments.header.push_back(fmt::format(
            "node {} -> node {}: latency {}, read {}, write {}{}", m.from, m.to,
            spread(m.latency_ns, "ns"), spread(m.read_gbs, "GB/s"), spread(m.write_gbs, "GB/s"),
            m.placement.empty() ? "" : "; " + m.placement));
    t.validate("numasim calibrate");
    c.text = machine_file_text(t, comments);
    c.seconds = budget.elapsed();
    return c;
}

}  // namespace numasim
