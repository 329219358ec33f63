#include "replay/perf_mem_import.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <functional>
#include <map>
#include <vector>

#include "config/input_error.h"
#include "config/limits.h"
#include "replay/damon_import.h"
#include "replay/perf_mem_sample.h"
#include "replay/process_maps.h"
#include "replay/profile_input.h"
#include "replay/scenario_text.h"

namespace numasim {

namespace {

// The mapping rule's figures (docs/replay.md). A sampled access stands for `period` accesses of
// its event; an access served from beyond the core's own caches moved one cache line.
constexpr double kCacheLineBytes = 64;  // x86-64, arm64, POWER's L1 sector
constexpr int64_t kNsPerSecond = 1000000000;
constexpr uint64_t kPageBytes = 4096;
// Without a layout, a sampled address stands for the 2 MiB extent around it: what one PMD maps
// on x86-64 (and arm64 with 4 KiB pages), the grain of transparent huge pages. Samples are
// sparse; the extents holding them, joined where they touch, are the process's address ranges.
constexpr uint64_t kExtentBytes = uint64_t{2} << 20;
// User addresses: the kernel's half of the address space has the top bit set (x86-64, arm64).
constexpr uint64_t kKernelHalf = uint64_t{1} << 63;

struct Range {
    uint64_t start, end;
};

// Thread::node before its first sample, and once its samples came from CPUs of two nodes.
constexpr int kNodeUnseen = -2, kNodeMixed = -1;

struct Thread {
    int64_t tid = 0;
    std::string comm;
    int64_t first_ns = 0, last_ns = 0;
    int node = kNodeUnseen;  // with --cpus-from-samples: the node of the CPUs it was sampled on
};

struct Process {
    int64_t pid = -1;  // -1: the samples carry no pid (perf script's default fields)
    std::vector<Thread> threads;
    std::map<int64_t, size_t> thread_index;  // tid -> index in threads
    std::vector<Range> ranges;               // sorted, disjoint
    std::vector<std::string> range_names;    // the mapping each lies in (with a layout)
    std::vector<Range> blocks;
    std::vector<std::string> block_names;
    size_t first_block = 0;  // its first block in the import's block arrays
    size_t first_col = 0;    // its first column of the grid: threads x blocks
};

using Sources = std::array<double, kMemSourceCount>;

// Each line once: comments skipped, samples parsed, the file's SHA-256 returned.
std::string read_samples(const std::string& path,
                         const std::function<void(const PerfMemSample&, int64_t line)>& on) {
    ProfileInput in(path);
    std::string line;
    bool truncated = false;
    while (true) {
        const int64_t line_no = in.line();
        if (!in.getline(line, truncated)) break;
        const std::string where = fmt::format("line {}", line_no);
        if (truncated)
            throw InputError(path, where,
                             "the last line has no end of line: the file is truncated");
        if (perf_mem_line_is_comment(line)) continue;
        on(parse_perf_mem_line(line, path, where), line_no);
    }
    return in.sha256();
}

std::string seconds(int64_t ns) {
    return fmt::format("{:.6g}", static_cast<double>(ns) / kNsPerSecond);
}

bool user_address(uint64_t a) {
    return a != 0 && a < kKernelHalf;
}

// The first pass: every sample checked; processes, threads, ranges and the span learnt.
class Survey {
  public:
    Survey(const std::string& path, const PerfMemImportOptions& o,
           const std::vector<ProcessMapping>& maps)
        : path_(path), o_(o), maps_(maps) {}

    void add(const PerfMemSample& s, int64_t line) {
        auto fail = [&](const std::string& problem) {
            throw InputError(path_, fmt::format("line {}", line), problem);
        };
        if (samples_ == 0) first_ns_ = s.time_ns;
        if (s.time_ns < last_ns_)
            fail(fmt::format(
                "time goes backwards: {} s, before the previous sample's {} s (perf script "
                "prints samples in time order)",
                seconds(s.time_ns), seconds(last_ns_)));
        last_ns_ = s.time_ns;
        ++samples_;
        if (s.period == 0) {
            if (o_.period == 0)
                fail(
                    "no period: the samples need perf script's `period` field (-F ...,period), "
                    "or give --period");
            ++by_option_;
        } else {
            ++by_field_;
        }
        Process& p = process(s.pid, fail);
        auto [it, added] = p.thread_index.try_emplace(s.tid, p.threads.size());
        if (added) {
            if (threads_ == kMaxPerfMemThreads)
                fail(fmt::format("more than {} threads", kMaxPerfMemThreads));
            ++threads_;
            Thread t;
            t.tid = s.tid;
            t.comm = sanitize_name(std::string(s.comm.substr(0, 15)));
            t.first_ns = s.time_ns;
            p.threads.push_back(std::move(t));
        }
        Thread& th = p.threads[it->second];
        th.last_ns = s.time_ns;
        if (!o_.cpu_nodes.empty()) {
            if (s.cpu < 0)
                fail("no CPU: --cpus-from-samples needs perf script's `cpu` field ([CPU])");
            if (static_cast<size_t>(s.cpu) >= o_.cpu_nodes.size())
                fail(fmt::format(
                    "CPU {} is not a CPU of --machine {} (0-{}): --cpus-from-samples needs the "
                    "machine the samples were recorded on",
                    s.cpu, o_.machine, o_.cpu_nodes.size() - 1));
            const int node = o_.cpu_nodes[static_cast<size_t>(s.cpu)];
            th.node = th.node == kNodeUnseen || th.node == node ? node : kNodeMixed;
        }
        const double events = static_cast<double>(s.period != 0 ? s.period : o_.period);
        if (!user_address(s.addr)) {
            (s.addr == 0 ? no_address_ : kernel_) += events;
            return;
        }
        sources_[static_cast<size_t>(s.source)] += events;
        if (s.hitm) hitm_ += events;
        if (s.store) stores_ += events;
        if (!maps_.empty() && !in_a_mapping(s.addr))
            fail(fmt::format(
                "data address {:#x} lies outside every mapping of the layout: the layout is "
                "not this process's",
                s.addr));
        const uint64_t start = s.addr & ~(kExtentBytes - 1);
        add_range(p, Range{start, start + kExtentBytes}, fail);
    }

    std::vector<Process>& processes() { return processes_; }
    int64_t samples() const { return samples_; }
    int64_t first_ns() const { return first_ns_; }
    int64_t last_ns() const { return last_ns_; }
    int64_t by_field() const { return by_field_; }
    int64_t by_option() const { return by_option_; }
    size_t threads() const { return threads_; }
    const Sources& sources() const { return sources_; }
    double hitm() const { return hitm_; }
    double stores() const { return stores_; }
    double no_address() const { return no_address_; }
    double kernel() const { return kernel_; }

  private:
    template <typename Fail>
    Process& process(int64_t pid, const Fail& fail) {
        for (Process& p : processes_)
            if (p.pid == pid) return p;
        if (processes_.size() == kMaxPerfMemProcesses)
            fail(fmt::format("more than {} processes", kMaxPerfMemProcesses));
        processes_.emplace_back();
        processes_.back().pid = pid;
        return processes_.back();
    }

    bool in_a_mapping(uint64_t a) const {
        const auto m =
            std::lower_bound(maps_.begin(), maps_.end(), a,
                             [](const ProcessMapping& x, uint64_t v) { return x.end <= v; });
        return m != maps_.end() && m->start <= a;
    }

    // Merges r into the process's sorted, disjoint ranges (touching ranges join).
    template <typename Fail>
    void add_range(Process& p, Range r, const Fail& fail) {
        auto& v = p.ranges;
        auto first = std::lower_bound(v.begin(), v.end(), r.start,
                                      [](const Range& a, uint64_t x) { return a.end < x; });
        if (first != v.end() && first->start <= r.start && r.end <= first->end) return;
        auto last = first;
        while (last != v.end() && last->start <= r.end) {
            r.start = std::min(r.start, last->start);
            r.end = std::max(r.end, last->end);
            ++last;
        }
        if (first == last && static_cast<int64_t>(v.size()) >= kMaxReplayRanges)
            fail(fmt::format(
                "more than {} disjoint address ranges of 2 MiB extents: give the layout "
                "(--maps)",
                kMaxReplayRanges));
        v.insert(v.erase(first, last), r);
    }

    std::string path_;
    const PerfMemImportOptions& o_;
    const std::vector<ProcessMapping>& maps_;
    std::vector<Process> processes_;
    int64_t samples_ = 0, first_ns_ = 0, last_ns_ = 0, by_field_ = 0, by_option_ = 0;
    size_t threads_ = 0;
    Sources sources_{};
    double hitm_ = 0, stores_ = 0, no_address_ = 0, kernel_ = 0;
};

// With a layout, ranges are cut at the mappings' edges, what lies in no mapping is dropped (the
// extents reach past a mapping's end), and each piece keeps its mapping's name.
void clip_to_mappings(Process& p, const std::vector<ProcessMapping>& maps) {
    std::vector<Range> clipped;
    for (const Range& r : p.ranges)
        for (const ProcessMapping& m : maps)
            if (m.start < r.end && r.start < m.end) {
                clipped.push_back(Range{std::max(r.start, m.start), std::min(r.end, m.end)});
                p.range_names.push_back(m.name);
            }
    p.ranges = std::move(clipped);
}

// Splits a process's ranges into page-aligned blocks, about `budget` in proportion to the ranges'
// sizes, at least one per range.
void make_blocks(Process& p, int64_t budget) {
    uint64_t total = 0;
    for (const Range& r : p.ranges)
        total += r.end - r.start;
    for (size_t ri = 0; ri < p.ranges.size(); ++ri) {
        const Range& r = p.ranges[ri];
        const double part = static_cast<double>(r.end - r.start) / static_cast<double>(total);
        const auto n = std::max<uint64_t>(1, std::llround(part * static_cast<double>(budget)));
        const uint64_t pages = (r.end - r.start + kPageBytes - 1) / kPageBytes;
        const uint64_t step = std::max<uint64_t>(1, (pages + n - 1) / n) * kPageBytes;
        for (uint64_t a = r.start; a < r.end; a += step) {
            p.blocks.push_back(Range{a, std::min(r.end, a + step)});
            p.block_names.push_back(ri < p.range_names.size() ? p.range_names[ri] : "");
        }
    }
}

std::string events_text(double x) {
    return fmt::format("{:.4g}", x);
}

}  // namespace

std::string import_perf_mem(const std::string& path, const PerfMemImportOptions& o,
                            PerfMemImportStats* stats) {
    std::vector<ProcessMapping> maps;
    if (!o.maps_file.empty()) maps = read_process_maps(o.maps_file);

    // Pass 1: check every sample, learn the processes, threads, ranges and the span.
    Survey survey(path, o, maps);
    const std::string sha =
        read_samples(path, [&](const PerfMemSample& s, int64_t line) { survey.add(s, line); });
    std::vector<Process>& procs = survey.processes();
    if (survey.samples() == 0) throw InputError(path, "", "no memory samples");
    if (!maps.empty() && procs.size() > 1)
        throw InputError(
            o.maps_file, "",
            fmt::format("one process's layout, for samples of {} processes", procs.size()));
    size_t nblocks = 0, ncols = 0;
    for (Process& p : procs) {
        // The main thread (tid = pid) first: thread 0 of the scenario, the one that first-touches.
        std::stable_sort(p.threads.begin(), p.threads.end(), [&](const Thread& a, const Thread& b) {
            if ((a.tid == p.pid) != (b.tid == p.pid)) return a.tid == p.pid;
            return a.tid < b.tid;
        });
        for (size_t i = 0; i < p.threads.size(); ++i)
            p.thread_index[p.threads[i].tid] = i;
        if (!maps.empty()) clip_to_mappings(p, maps);
        make_blocks(p, o.blocks);
        p.first_block = nblocks;
        p.first_col = ncols;
        nblocks += p.blocks.size();
        ncols += p.blocks.size() * p.threads.size();
    }
    if (static_cast<int64_t>(nblocks) > kMaxReplayBlocks)
        throw InputError(path, "",
                         fmt::format("{} blocks (the processes' disjoint ranges need at least "
                                     "one each): more than {}",
                                     nblocks, kMaxReplayBlocks));
    const int64_t t0 = survey.first_ns();
    const int64_t span = survey.last_ns() - t0;
    if (span > kMaxDurationSeconds * kNsPerSecond)
        throw InputError(path, "",
                         fmt::format("the samples span {} s, more than the {} s a scenario may run",
                                     seconds(span), kMaxDurationSeconds));
    // Samples are instants: the phases run from the first to past the last.
    const int64_t nphases = span / o.phase_ns + 1;
    if (nphases * static_cast<int64_t>(std::max<size_t>(ncols, 1)) > kMaxReplayGridCells)
        throw InputError(path, "",
                         fmt::format("{} phases x {} (thread, block) pairs is more than {} cells: "
                                     "use a longer --phase or fewer --blocks",
                                     nphases, ncols, kMaxReplayGridCells));

    // Pass 2: bytes (and stored bytes) per phase and (thread, block); samples per block by source.
    std::vector<double> grid(static_cast<size_t>(nphases) * ncols, 0.0);
    std::vector<double> stored(grid.size(), 0.0);
    std::vector<Sources> block_sources(nblocks, Sources{});
    std::vector<double> block_hitm(nblocks, 0.0);
    const std::string sha2 = read_samples(path, [&](const PerfMemSample& s, int64_t line) {
        if (!user_address(s.addr)) return;
        const auto changed = [&] {
            return InputError(path, fmt::format("line {}", line),
                              "the file changed while it was being read");
        };
        const auto pi = std::find_if(procs.begin(), procs.end(),
                                     [&](const Process& p) { return p.pid == s.pid; });
        if (pi == procs.end()) throw changed();
        const auto ti = pi->thread_index.find(s.tid);
        const auto b = std::lower_bound(pi->blocks.begin(), pi->blocks.end(), s.addr,
                                        [](const Range& a, uint64_t x) { return a.end <= x; });
        if (ti == pi->thread_index.end() || b == pi->blocks.end() || b->start > s.addr ||
            s.time_ns < t0 || s.time_ns - t0 >= nphases * o.phase_ns)
            throw changed();
        const size_t bi = static_cast<size_t>(b - pi->blocks.begin());
        const double events = static_cast<double>(s.period != 0 ? s.period : o.period);
        block_sources[pi->first_block + bi][static_cast<size_t>(s.source)] += events;
        if (s.hitm) block_hitm[pi->first_block + bi] += events;
        if (s.source == MemSource::kCache) return;  // served by the core's caches: no traffic
        const size_t col = pi->first_col + ti->second * pi->blocks.size() + bi;
        const size_t cell = static_cast<size_t>((s.time_ns - t0) / o.phase_ns) * ncols + col;
        grid[cell] += events * kCacheLineBytes;
        if (s.store) stored[cell] += events * kCacheLineBytes;
    });
    if (sha2 != sha) throw InputError(path, "", "the file changed while it was being read");
    if (stats) {
        stats->samples = survey.samples();
        int64_t ranges = 0;
        for (const Process& p : procs)
            ranges += static_cast<int64_t>(p.ranges.size() + p.blocks.size());
        stats->retained =
            static_cast<int64_t>(procs.size() + survey.threads() + grid.size() + stored.size() +
                                 block_sources.size() + block_hitm.size()) +
            ranges;
    }

    const Sources& src = survey.sources();
    auto source = [&](MemSource m) { return events_text(src[static_cast<size_t>(m)]); };
    std::string out;
    out += fmt::format(
        "# Imported by `numasim import perf-mem` from {} (perf script text of perf mem/c2c "
        "samples, sha256 {}).\n",
        comment_text(std::filesystem::path(path).filename().string()), sha);
    out += fmt::format(
        "# {} samples of {} process(es), {} thread(s) over {} s; phases of {} s; {} block(s).\n",
        survey.samples(), procs.size(), survey.threads(), seconds(span), seconds(o.phase_ns),
        nblocks);
    if (survey.by_option() == 0)
        out += "# Period: each sample's own period field.\n";
    else if (survey.by_field() == 0)
        out += fmt::format("# Period: --period {} for every sample (no period field).\n", o.period);
    else
        out += fmt::format("# Period: the period field for {} samples, --period {} for {}.\n",
                           survey.by_field(), o.period, survey.by_option());
    out += fmt::format(
        "# Accesses (samples x period) by data source: local RAM {}, remote RAM {}, remote "
        "cache {}, {} {}, cache {}, level not given {}; HITM {}; stores {}.\n",
        source(MemSource::kLocalRam), source(MemSource::kRemoteRam),
        source(MemSource::kRemoteCache), mem_source_name(MemSource::kOtherMemory),
        source(MemSource::kOtherMemory), source(MemSource::kCache), source(MemSource::kUnknown),
        events_text(survey.hitm()), events_text(survey.stores()));
    if (survey.no_address() > 0 || survey.kernel() > 0)
        out += fmt::format(
            "# Left out: {} accesses without a data address, {} to kernel "
            "addresses.\n",
            events_text(survey.no_address()), events_text(survey.kernel()));
    if (!maps.empty())
        out += fmt::format("# Layout: {} mappings from {}.\n", maps.size(),
                           comment_text(std::filesystem::path(o.maps_file).filename().string()));
    else
        out += "# Layout: the 2 MiB extents holding sampled addresses, joined where they touch.\n";
    out +=
        "# Rules (docs/replay.md): a sample stands for `period` accesses by its thread; one\n"
        "# served beyond the core's own caches (RAM, a remote cache, PMEM/CXL, or a level not\n"
        "# given) moved one 64-byte line, a cache hit moved none. Each thread replays its\n"
        "# traffic per phase on the blocks it touched (random within a block, stores as\n"
        "# write_fraction), sleeps in phases without traffic and exits after its last sample.\n"
        "# The samples cannot show which thread first touched a page: a block whose RAM\n"
        "# accesses were mostly remote (remote RAM and remote cache over local RAM) is\n"
        "# first-touched by thread 0 (first_touch = \"thread\"), so that the other threads find\n"
        "# it remote as the profile did; every other block's pages go to the node of the thread\n"
        "# that touches them first in the simulation. Accesses perf did not sample are the\n"
        "# period's share of those it did.\n";
    if (!o.cpu_nodes.empty())
        out +=
            "# --cpus-from-samples: a thread whose samples all came from CPUs of one node of the\n"
            "# machine is pinned to that node from its first phase (affinity = \"node:N\"), as a\n"
            "# binding would have kept it; the others run where the scheduler puts them.\n";
    out += fmt::format("\n[scenario]\nmachine = \"{}\"\n", o.machine);
    // Twice the phases' span: a replay slowed by remote memory still finishes.
    out += fmt::format(
        "duration = \"{}s\"\nseed = 1\n",
        std::min<int64_t>(
            kMaxDurationSeconds,
            std::max<int64_t>(1, (2 * nphases * o.phase_ns + kNsPerSecond - 1) / kNsPerSecond)));
    out += "\n[[workload]]\ntype = \"streams\"\nname = \"replay\"\n";

    for (size_t pi = 0; pi < procs.size(); ++pi) {
        const Process& p = procs[pi];
        const size_t nb = p.blocks.size();
        auto cell = [&](int64_t phase, size_t thread, size_t b) {
            return static_cast<size_t>(phase) * ncols + p.first_col + thread * nb + b;
        };
        std::vector<bool> used(nb, false);
        for (int64_t ph = 0; ph < nphases; ++ph)
            for (size_t t = 0; t < p.threads.size(); ++t)
                for (size_t b = 0; b < nb; ++b)
                    if (grid[cell(ph, t, b)] > 0) used[b] = true;
        std::string name;
        for (const Thread& t : p.threads)
            if (t.tid == p.pid || name.empty()) name = t.comm;
        if (name.empty()) name = p.pid >= 0 ? fmt::format("pid{}", p.pid) : "proc";
        out += fmt::format("\n# {}: {} thread(s), {} range(s)\n",
                           p.pid >= 0 ? fmt::format("pid {}", p.pid) : "samples without a pid",
                           p.threads.size(), p.ranges.size());
        out += fmt::format("[[workload.process]]\nname = \"{}\"\nthreads = {}\n", name,
                           p.threads.size());
        for (size_t b = 0; b < nb; ++b) {
            if (!used[b]) continue;
            const Sources& bs = block_sources[p.first_block + b];
            const double local = bs[static_cast<size_t>(MemSource::kLocalRam)];
            const double remote = bs[static_cast<size_t>(MemSource::kRemoteRam)] +
                                  bs[static_cast<size_t>(MemSource::kRemoteCache)];
            const std::string label = comment_text(p.block_names[b]);
            out += fmt::format(
                "\n[[workload.process.region]]  # {:#x}-{:#x}{}{}: local RAM {}, remote RAM or "
                "cache {}, HITM {}\nname = \"b{}\"\nsize = {}\nkind = \"private\"\n{}",
                p.blocks[b].start, p.blocks[b].end, label.empty() ? "" : " ", label,
                events_text(local), events_text(remote), events_text(block_hitm[p.first_block + b]),
                b, p.blocks[b].end - p.blocks[b].start,
                remote > local ? "first_touch = \"thread\"  # mostly remote in the profile\n" : "");
        }
        for (size_t t = 0; t < p.threads.size(); ++t) {
            const Thread& th = p.threads[t];
            out += fmt::format(
                "\n[[workload.process.thread]]  # tid {}{}{}: samples from {} s to {} s{}\n"
                "phases = [\n",
                th.tid, th.comm.empty() ? "" : " ", th.comm, seconds(th.first_ns - t0),
                seconds(th.last_ns - t0),
                th.node >= 0 ? fmt::format(", all on CPUs of node {}", th.node) : "");
            PhaseRuns runs(out);
            const int64_t last_phase = (th.last_ns - t0) / o.phase_ns;
            for (int64_t ph = 0; ph <= last_phase; ++ph) {
                // Pinned where it was sampled, from its first phase on (affinity holds after).
                const std::string pin = ph == 0 && th.node >= 0
                                            ? fmt::format("affinity = \"node:{}\", ", th.node)
                                            : std::string();
                double total = 0;
                for (size_t b = 0; b < nb; ++b)
                    total += grid[cell(ph, t, b)];
                std::string body;
                if (total < kCacheLineBytes) {
                    body = fmt::format("{}sleep = \"{}us\"", pin, o.phase_ns / 1000);
                } else {
                    body =
                        fmt::format("{}rate_gbs = {:.6g}, work = {}, streams = [", pin,
                                    total / (static_cast<double>(o.phase_ns) / kNsPerSecond) / 1e9,
                                    std::llround(total));
                    bool first = true;
                    for (size_t b = 0; b < nb; ++b) {
                        const double v = grid[cell(ph, t, b)];
                        if (v <= 0) continue;
                        const double w = stored[cell(ph, t, b)];
                        body += fmt::format(
                            "{} {{ region = \"b{}\", pattern = \"random\", share = {}{} }}",
                            first ? "" : ",", b, share_text(v / total),
                            w > 0 ? ", write_fraction = " + share_text(w / v) : "");
                        first = false;
                    }
                    body += " ]";
                }
                runs.add(std::move(body));
            }
            runs.finish();
            out += "]\n";
        }
    }
    if (out.size() > kMaxInputFileBytes)
        throw InputError(path, "",
                         fmt::format("the scenario would be {} bytes, more than the {} a scenario "
                                     "may have: use a longer --phase or fewer --blocks",
                                     out.size(), kMaxInputFileBytes));
    return out;
}

}  // namespace numasim
