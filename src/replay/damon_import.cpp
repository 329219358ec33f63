#include "replay/damon_import.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <vector>

#include "config/input_error.h"
#include "config/limits.h"
#include "replay/damo_json.h"
#include "replay/damon_sysfs.h"
#include "replay/damon_trace.h"
#include "replay/process_maps.h"
#include "replay/profile_input.h"
#include "replay/scenario_text.h"

namespace numasim {

namespace {

// The mapping rule's figures (docs/replay.md). DAMON checks one page per region per sampling
// interval through its Accessed bit; an access the check sees moved at least one cache line of
// that page. So a region whose sampled pages were found accessed in a fraction f of the sampling
// intervals is taken to move f x (its pages) x one line per sampling interval: a lower bound on
// its traffic, the least the profile proves.
constexpr double kPageBytes = 4096;     // the base page DAMON's vaddr/paddr ops check
constexpr double kCacheLineBytes = 64;  // x86-64, arm64, POWER's L1 sector
constexpr int64_t kNsPerSecond = 1000000000;

struct Range {
    uint64_t start, end;
};

struct Target {
    uint64_t id = 0;
    std::vector<Range> ranges;  // sorted, disjoint: the union of every window's regions
    int64_t first_ns = 0, last_ns = 0;
    int64_t windows = 0;
    std::vector<Range> blocks;             // the scenario's regions
    std::vector<std::string> block_names;  // the mapping each lies in (with a layout)
    size_t first_cell = 0;                 // index of its first block in the grid's rows
};

DamonFormat detect(const std::string& path) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) return DamonFormat::kSysfs;
    std::ifstream in(path, std::ios::binary);
    if (!in) return DamonFormat::kTrace;  // ProfileInput names the open error
    for (int c; (c = in.get()) != EOF;) {
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r') continue;
        // A JSON object is not damo's format either, but the JSON reader says why.
        if (c == '[' || c == '{') return DamonFormat::kJson;
        // A zlib header (RFC 1950: CMF 0x78, deflate with a 32 KiB window, and a flag byte that
        // makes the pair a multiple of 31): damo's default json_compressed, inflated as read.
        if (c == 0x78 && (0x78 * 256 + in.peek()) % 31 == 0) return DamonFormat::kJson;
        return DamonFormat::kTrace;
    }
    throw InputError(path, "", "empty file");
}

const char* format_name(DamonFormat f) {
    switch (f) {
        case DamonFormat::kJson:
            return "damo JSON record";
        case DamonFormat::kTrace:
            return "damon_aggregated trace text";
        case DamonFormat::kSysfs:
            return "DAMON sysfs tried_regions snapshot";
        case DamonFormat::kAuto:
            break;
    }
    return "";
}

// Reads the profile once, calling `on` per window; returns the file's SHA-256 (of the
// directory's region files for sysfs: empty).
std::string read_profile(const std::string& path, DamonFormat f, const DamonImportOptions& o,
                         const SnapshotHandler& on) {
    if (f == DamonFormat::kSysfs) {
        read_damon_sysfs(path, o.sample_us, o.aggr_us, on);
        return "";
    }
    ProfileInput in(path);
    if (f == DamonFormat::kJson)
        read_damo_json(in, on);
    else
        read_damon_trace(in, o.sample_us, o.aggr_us, on);
    return in.sha256();
}

std::string seconds(int64_t ns) {
    return fmt::format("{:.6g}", static_cast<double>(ns) / kNsPerSecond);
}

// The checks every format shares, and the first pass's bookkeeping.
class Survey {
  public:
    Survey(const std::string& path, const std::vector<ProcessMapping>& maps)
        : path_(path), maps_(maps) {}

    void add(const DamonSnapshot& s) {
        auto fail = [&](const std::string& problem) { throw InputError(path_, s.where, problem); };
        if (s.end_ns <= s.start_ns)
            fail(fmt::format("the window ends ({} s) before it starts ({} s)", seconds(s.end_ns),
                             seconds(s.start_ns)));
        if (s.sample_us <= 0 || s.aggr_us < s.sample_us)
            fail(
                fmt::format("sampling interval {} us, aggregation interval {} us: the "
                            "aggregation interval must hold at least one sample",
                            s.sample_us, s.aggr_us));
        if (s.regions.empty()) fail("a window without regions");
        auto it = std::find_if(targets_.begin(), targets_.end(),
                               [&](const Target& t) { return t.id == s.target_id; });
        if (it == targets_.end()) {
            if (targets_.size() == kMaxDamonTargets)
                fail(fmt::format("more than {} targets", kMaxDamonTargets));
            Target t;
            t.id = s.target_id;
            t.first_ns = s.start_ns;
            targets_.push_back(std::move(t));
            it = targets_.end() - 1;
        } else if (s.start_ns < it->last_ns) {
            fail(
                fmt::format("time goes backwards: the window starts at {} s, before the "
                            "previous window of target {} ended ({} s)",
                            seconds(s.start_ns), s.target_id, seconds(it->last_ns)));
        }
        it->last_ns = s.end_ns;
        ++it->windows;
        const uint64_t max_accesses = static_cast<uint64_t>(s.aggr_us / s.sample_us);
        uint64_t prev_end = 0;
        for (size_t i = 0; i < s.regions.size(); ++i) {
            const DamonRegion& r = s.regions[i];
            if (r.end <= r.start)
                fail(fmt::format("region {}: end {:#x} is not above start {:#x}", i, r.end,
                                 r.start));
            if (i > 0 && r.start < prev_end)
                fail(
                    fmt::format("region {} starts at {:#x}, inside or before region {} "
                                "(DAMON's regions are sorted and disjoint)",
                                i, r.start, i - 1));
            if (r.nr_accesses > max_accesses)
                fail(
                    fmt::format("region {}: nr_accesses {} is more than the {} sampling "
                                "intervals of an aggregation interval ({} us / {} us)",
                                i, r.nr_accesses, max_accesses, s.aggr_us, s.sample_us));
            prev_end = r.end;
            if (!maps_.empty() && r.nr_accesses > 0 && !in_a_mapping(r))
                fail(
                    fmt::format("region {} ({:#x}-{:#x}) was seen accessed but lies outside "
                                "every mapping of the layout: the layout is not this "
                                "process's",
                                i, r.start, r.end));
            add_range(*it, s, Range{r.start, r.end});
        }
    }

    std::vector<Target>& targets() { return targets_; }

  private:
    bool in_a_mapping(const DamonRegion& r) const {
        const auto m =
            std::lower_bound(maps_.begin(), maps_.end(), r.start,
                             [](const ProcessMapping& a, uint64_t x) { return a.end <= x; });
        return m != maps_.end() && m->start < r.end;
    }

    // Merges [start, end) into the target's sorted, disjoint ranges (touching ranges join).
    void add_range(Target& t, const DamonSnapshot& s, Range r) {
        auto& v = t.ranges;
        auto first = std::lower_bound(v.begin(), v.end(), r.start,
                                      [](const Range& a, uint64_t x) { return a.end < x; });
        auto last = first;
        while (last != v.end() && last->start <= r.end) {
            r.start = std::min(r.start, last->start);
            r.end = std::max(r.end, last->end);
            ++last;
        }
        if (first == last && static_cast<int64_t>(v.size()) >= kMaxReplayRanges)
            throw InputError(path_, s.where,
                             fmt::format("more than {} disjoint address ranges in target {}",
                                         kMaxReplayRanges, t.id));
        v.insert(v.erase(first, last), r);
    }

    std::string path_;
    const std::vector<ProcessMapping>& maps_;
    std::vector<Target> targets_;
};

// With a layout, a target's ranges are cut at the mappings' edges and what lies in no mapping is
// dropped (DAMON's ranges include small unmapped gaps); each piece keeps its mapping's name.
void clip_to_mappings(Target& t, const std::vector<ProcessMapping>& maps,
                      std::vector<std::string>& names) {
    std::vector<Range> clipped;
    for (const Range& r : t.ranges)
        for (const ProcessMapping& m : maps)
            if (m.start < r.end && r.start < m.end) {
                clipped.push_back(Range{std::max(r.start, m.start), std::min(r.end, m.end)});
                names.push_back(m.name);
            }
    t.ranges = std::move(clipped);
}

// Splits each target's ranges into page-aligned blocks, about `budget` per target in proportion
// to the ranges' sizes, at least one per range.
void make_blocks(std::vector<Target>& targets, int64_t budget,
                 const std::vector<std::string>& range_names) {
    size_t next = 0;
    for (Target& t : targets) {
        uint64_t total = 0;
        for (const Range& r : t.ranges)
            total += r.end - r.start;
        for (size_t ri = 0; ri < t.ranges.size(); ++ri) {
            const Range& r = t.ranges[ri];
            const double part = static_cast<double>(r.end - r.start) / static_cast<double>(total);
            const auto n = std::max<uint64_t>(1, std::llround(part * static_cast<double>(budget)));
            const uint64_t pages = (r.end - r.start + 4095) / 4096;
            const uint64_t step = std::max<uint64_t>(1, (pages + n - 1) / n) * 4096;
            for (uint64_t a = r.start; a < r.end; a += step) {
                t.blocks.push_back(Range{a, std::min(r.end, a + step)});
                t.block_names.push_back(ri < range_names.size() ? range_names[ri] : "");
            }
        }
        t.first_cell = next;
        next += t.blocks.size();
    }
}

struct SchedFacts {
    std::string comm;
    int64_t threads = 0;
};

// The first line of /proc/PID/sched: "COMM (PID, #threads: N)" (kernel/sched/debug.c,
// proc_sched_show_task()).
SchedFacts read_sched(const std::string& path) {
    std::ifstream in(path);
    std::string line;
    if (!in || !std::getline(in, line)) throw InputError(path, "line 1", "cannot read");
    const size_t open = line.rfind(" (");
    const size_t key = line.find("#threads: ");
    if (open == std::string::npos || key == std::string::npos)
        throw InputError(path, "line 1",
                         "expected 'COMM (PID, #threads: N)', the first line of /proc/PID/sched");
    SchedFacts f;
    f.comm = sanitize_name(line.substr(0, open));
    try {
        f.threads = std::stoll(line.substr(key + 10));
    } catch (const std::exception&) {
        throw InputError(path, "line 1", "#threads: not a number");
    }
    if (f.threads < 1 || f.threads > kMaxTasks)
        throw InputError(path, "line 1",
                         fmt::format("#threads: {}: must be 1 to {}", f.threads, kMaxTasks));
    return f;
}

}  // namespace

std::string import_damon(const std::string& path, const DamonImportOptions& o) {
    const DamonFormat format = o.format == DamonFormat::kAuto ? detect(path) : o.format;
    SchedFacts sched;
    if (!o.sched_file.empty()) sched = read_sched(o.sched_file);
    const int64_t threads = o.threads > 0 ? o.threads : sched.threads > 0 ? sched.threads : 1;

    std::vector<ProcessMapping> maps;
    if (!o.maps_file.empty()) maps = read_process_maps(o.maps_file);

    // Pass 1: check every window, learn the ranges and the span.
    Survey survey(path, maps);
    const std::string sha =
        read_profile(path, format, o, [&](const DamonSnapshot& s) { survey.add(s); });
    std::vector<Target>& targets = survey.targets();
    if (targets.empty()) throw InputError(path, "", "no monitoring windows (snapshots)");
    std::vector<std::string> range_names;
    if (!maps.empty()) {
        if (targets.size() > 1)
            throw InputError(
                o.maps_file, "",
                fmt::format("one process's layout, for a profile of {} targets", targets.size()));
        clip_to_mappings(targets.front(), maps, range_names);
    }
    make_blocks(targets, o.blocks, range_names);
    size_t nblocks = 0;
    int64_t t0 = targets.front().first_ns, t1 = targets.front().last_ns;
    int64_t windows = 0;
    for (const Target& t : targets) {
        nblocks += t.blocks.size();
        t0 = std::min(t0, t.first_ns);
        t1 = std::max(t1, t.last_ns);
        windows += t.windows;
    }
    if (static_cast<int64_t>(nblocks) > kMaxReplayBlocks)
        throw InputError(path, "",
                         fmt::format("{} blocks (the targets' disjoint ranges need at least one "
                                     "each): more than {}",
                                     nblocks, kMaxReplayBlocks));
    const int64_t span = t1 - t0;
    if (span > kMaxDurationSeconds * kNsPerSecond)
        throw InputError(path, "",
                         fmt::format("the profile spans {} s, more than the {} s a "
                                     "scenario may run",
                                     seconds(span), kMaxDurationSeconds));
    const int64_t nphases = (span + o.phase_ns - 1) / o.phase_ns;
    if (nphases * static_cast<int64_t>(nblocks) > kMaxReplayGridCells)
        throw InputError(path, "",
                         fmt::format("{} phases x {} blocks is more than {} cells: use a longer "
                                     "--phase or fewer --blocks",
                                     nphases, nblocks, kMaxReplayGridCells));

    // Pass 2: bytes moved per phase and block.
    std::vector<double> grid(static_cast<size_t>(nphases) * nblocks, 0.0);
    const std::string sha2 = read_profile(path, format, o, [&](const DamonSnapshot& s) {
        const auto it = std::find_if(targets.begin(), targets.end(),
                                     [&](const Target& t) { return t.id == s.target_id; });
        const double max_accesses = static_cast<double>(s.aggr_us / s.sample_us);
        const double sample_s = static_cast<double>(s.sample_us) * 1e-6;
        for (const DamonRegion& r : s.regions) {
            if (r.nr_accesses == 0) continue;
            const double f = static_cast<double>(r.nr_accesses) / max_accesses;
            auto b = std::lower_bound(it->blocks.begin(), it->blocks.end(), r.start,
                                      [](const Range& a, uint64_t x) { return a.end <= x; });
            for (; b != it->blocks.end() && b->start < r.end; ++b) {
                const double bytes =
                    static_cast<double>(std::min(r.end, b->end) - std::max(r.start, b->start));
                const double rate = f * bytes / kPageBytes * kCacheLineBytes / sample_s;
                const size_t col = it->first_cell + static_cast<size_t>(b - it->blocks.begin());
                for (int64_t p = (s.start_ns - t0) / o.phase_ns;
                     p < nphases && t0 + p * o.phase_ns < s.end_ns; ++p) {
                    const int64_t a = std::max(s.start_ns, t0 + p * o.phase_ns);
                    const int64_t e = std::min(s.end_ns, t0 + (p + 1) * o.phase_ns);
                    grid[static_cast<size_t>(p) * nblocks + col] +=
                        rate * static_cast<double>(e - a) / kNsPerSecond;
                }
            }
        }
    });
    if (sha2 != sha) throw InputError(path, "", "the file changed while it was being read");

    const int64_t max_accesses_shown = o.aggr_us / o.sample_us;
    std::string out;
    out += fmt::format("# Imported by `numasim import damon` from {} ({}{}).\n",
                       comment_text(std::filesystem::path(path).filename().string()),
                       format_name(format), sha.empty() ? "" : ", sha256 " + sha);
    out += fmt::format("# {} windows of {} target(s) over {} s; phases of {} s; {} block(s).\n",
                       windows, targets.size(), seconds(span), seconds(o.phase_ns), nblocks);
    if (!maps.empty())
        out += fmt::format("# Layout: {} mappings from {}.\n", maps.size(),
                           comment_text(std::filesystem::path(o.maps_file).filename().string()));
    if (format != DamonFormat::kJson)
        out += fmt::format(
            "# Monitoring intervals as given: sample {} us, aggregation {} us "
            "(nr_accesses up to {}).\n",
            o.sample_us, o.aggr_us, max_accesses_shown);
    out +=
        "# Rules (docs/replay.md): each window's regions become traffic on fixed blocks of the\n"
        "# target's address ranges: nr_accesses / (aggr / sample) of the block's pages, one\n"
        "# 64-byte line each per sampling interval; a phase without traffic is a sleep. DAMON\n"
        "# monitors a process, not its threads: every thread runs every phase on every block,\n"
        "# with an equal part of the traffic, so pages go to the node of the thread that first\n"
        "# touches them in the simulation (first_touch = none). Loads and stores cannot be\n"
        "# told apart (the Accessed bit): streams are loads. Blocks never accessed are left "
        "out.\n";
    out += fmt::format("\n[scenario]\nmachine = \"{}\"\n", o.machine);
    // Twice the profile's span: a replay slowed by remote memory still finishes.
    out += fmt::format(
        "duration = \"{}s\"\nseed = 1\n",
        std::min<int64_t>(kMaxDurationSeconds,
                          std::max<int64_t>(1, (2 * span + kNsPerSecond - 1) / kNsPerSecond)));
    out += "\n[[workload]]\ntype = \"streams\"\nname = \"replay\"\n";

    for (size_t ti = 0; ti < targets.size(); ++ti) {
        const Target& t = targets[ti];
        std::vector<bool> used(t.blocks.size(), false);
        for (int64_t p = 0; p < nphases; ++p)
            for (size_t b = 0; b < t.blocks.size(); ++b)
                if (grid[static_cast<size_t>(p) * nblocks + t.first_cell + b] > 0) used[b] = true;
        const std::string name =
            !sched.comm.empty() && targets.size() == 1 ? sched.comm : fmt::format("target{}", ti);
        out += fmt::format("\n# target_id {}: {} window(s), {} range(s)\n", t.id, t.windows,
                           t.ranges.size());
        out += fmt::format("[[workload.process]]\nname = \"{}\"\nthreads = {}\n", name, threads);
        bool any = false;
        for (size_t b = 0; b < t.blocks.size(); ++b) {
            if (!used[b]) continue;
            any = true;
            const std::string label = comment_text(t.block_names[b]);
            out += fmt::format(
                "\n[[workload.process.region]]  # {:#x}-{:#x}{}{}\nname = \"b{}\"\nsize = {}\n"
                "kind = \"private\"\n",
                t.blocks[b].start, t.blocks[b].end, label.empty() ? "" : " ", label, b,
                t.blocks[b].end - t.blocks[b].start);
        }
        out += fmt::format("\n[[workload.process.thread]]\ncount = {}\nphases = [\n", threads);
        PhaseRuns runs(out);
        for (int64_t p = 0; p < nphases; ++p) {
            const int64_t len = std::min(o.phase_ns, span - p * o.phase_ns);
            double total = 0;
            for (size_t b = 0; b < t.blocks.size(); ++b)
                total += grid[static_cast<size_t>(p) * nblocks + t.first_cell + b];
            std::string body;
            // Less than a line per thread is no traffic.
            if (!any || total / static_cast<double>(threads) < kCacheLineBytes) {
                body = fmt::format("sleep = \"{}us\"", len / 1000);
            } else {
                const double per_thread = total / static_cast<double>(threads);
                body = fmt::format("rate_gbs = {:.6g}, work = {}, streams = [",
                                   per_thread / (static_cast<double>(len) / kNsPerSecond) / 1e9,
                                   std::llround(per_thread));
                bool first = true;
                for (size_t b = 0; b < t.blocks.size(); ++b) {
                    const double v = grid[static_cast<size_t>(p) * nblocks + t.first_cell + b];
                    if (v <= 0) continue;
                    body +=
                        fmt::format("{} {{ region = \"b{}\", pattern = \"random\", share = {} }}",
                                    first ? "" : ",", b, share_text(v / total));
                    first = false;
                }
                body += " ]";
            }
            runs.add(std::move(body));
        }
        runs.finish();
        out += "]\n";
        if (!any) out += "# (no accesses in any window: the threads only sleep)\n";
    }
    if (out.size() > kMaxInputFileBytes)
        throw InputError(path, "",
                         fmt::format("the scenario would be {} bytes, more than the {} a scenario "
                                     "may have: use a longer --phase or fewer --blocks",
                                     out.size(), kMaxInputFileBytes));
    return out;
}

}  // namespace numasim
