#include "replay/damon_trace.h"

#include <fmt/format.h>

#include <charconv>
#include <map>
#include <string_view>

#include "config/input_error.h"

namespace numasim {

namespace {

constexpr std::string_view kEvent = "damon_aggregated:";

// Splits off the next blank-separated token.
std::string_view next_token(std::string_view& s) {
    const size_t b = s.find_first_not_of(" \t");
    if (b == std::string_view::npos) {
        s = {};
        return {};
    }
    s.remove_prefix(b);
    const size_t e = s.find_first_of(" \t");
    const std::string_view t = s.substr(0, e);
    s.remove_prefix(e == std::string_view::npos ? s.size() : e);
    return t;
}

bool parse_u64(std::string_view t, uint64_t& v) {
    const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    return ec == std::errc() && end == t.data() + t.size() && !t.empty();
}

// "82877.315633:" (seconds, as perf and trace-cmd print them) to nanoseconds, without rounding
// through a double.
bool parse_timestamp(std::string_view t, int64_t& ns) {
    if (t.empty() || t.back() != ':') return false;
    t.remove_suffix(1);
    const size_t dot = t.find('.');
    uint64_t sec = 0, frac = 0;
    if (!parse_u64(t.substr(0, dot), sec) || sec > uint64_t{1} << 32) return false;
    uint64_t scale = 1000000000;
    if (dot != std::string_view::npos) {
        const std::string_view f = t.substr(dot + 1);
        if (f.size() > 9 || !parse_u64(f, frac)) return false;
        for (size_t i = 0; i < f.size(); ++i)
            scale /= 10;
    }
    ns = static_cast<int64_t>(sec * 1000000000 + frac * scale);
    return true;
}

bool parse_field(std::string_view t, std::string_view name, uint64_t& v) {
    if (t.substr(0, name.size()) != name) return false;
    return parse_u64(t.substr(name.size()), v);
}

struct Pending {
    DamonSnapshot snap;
    uint64_t nr_regions = 0;
    int64_t last_end_ns = -1;  // of the target's previous window
};

}  // namespace

void read_damon_trace(ProfileInput& in, int64_t sample_us, int64_t aggr_us,
                      const SnapshotHandler& on_snapshot) {
    std::map<uint64_t, Pending> targets;
    std::string line;
    bool truncated = false;
    int64_t lines_with_events = 0;
    while (true) {
        const int64_t line_no = in.line();
        if (!in.getline(line, truncated)) break;
        const std::string where = fmt::format("line {}", line_no);
        auto fail = [&](const std::string& problem) {
            throw InputError(in.path(), where, problem);
        };
        if (truncated) fail("the last line has no end of line: the file is truncated");
        std::string_view s = line;
        const size_t at = s.find(kEvent);
        if (at == std::string_view::npos) continue;  // other events, headers
        ++lines_with_events;
        // The timestamp is the token just before the event name ("damon:damon_aggregated:" from
        // perf, "damon_aggregated:" from trace-cmd).
        std::string_view head = s.substr(0, at);
        while (!head.empty() && head.back() != ' ' && head.back() != '\t')
            head.remove_suffix(1);
        while (!head.empty() && (head.back() == ' ' || head.back() == '\t'))
            head.remove_suffix(1);
        const size_t ts_begin = head.find_last_of(" \t");
        const std::string_view ts =
            head.substr(ts_begin == std::string_view::npos ? 0 : ts_begin + 1);
        int64_t end_ns = 0;
        if (!parse_timestamp(ts, end_ns))
            fail(fmt::format("'{}': not a timestamp in seconds before the event name", ts));
        s.remove_prefix(at + kEvent.size());
        uint64_t target = 0, nr_regions = 0, start = 0, end = 0, nr_accesses = 0, age = 0;
        if (!parse_field(next_token(s), "target_id=", target) ||
            !parse_field(next_token(s), "nr_regions=", nr_regions))
            fail("expected target_id=N nr_regions=N after damon_aggregated");
        const std::string_view range = next_token(s);
        const size_t dash = range.find('-');
        if (range.empty() || range.back() != ':' || dash == std::string_view::npos ||
            !parse_u64(range.substr(0, dash), start) ||
            !parse_u64(range.substr(dash + 1, range.size() - dash - 2), end))
            fail("expected START-END: after nr_regions");
        if (!parse_u64(next_token(s), nr_accesses)) fail("expected nr_accesses after START-END:");
        const std::string_view age_text = next_token(s);
        const bool has_age = !age_text.empty();
        if (has_age && !parse_u64(age_text, age)) fail("age: not a number");
        if (!next_token(s).empty()) fail("unexpected text after the age");
        if (nr_regions == 0 || nr_regions > kMaxDamonRegionsPerSnapshot)
            fail(fmt::format("nr_regions={}: must be 1 to {}", nr_regions,
                             kMaxDamonRegionsPerSnapshot));

        auto it = targets.find(target);
        if (it == targets.end()) {
            if (targets.size() == kMaxDamonTargets)
                fail(fmt::format("more than {} targets", kMaxDamonTargets));
            it = targets.emplace(target, Pending{}).first;
        }
        Pending& p = it->second;
        if (end_ns < p.last_end_ns)
            fail(
                fmt::format("time goes backwards: the window ends at {}, before the previous "
                            "window of target {}",
                            ts, target));
        if (p.snap.regions.empty()) {
            p.nr_regions = nr_regions;
            p.snap.target_id = target;
            p.snap.end_ns = end_ns;
            p.snap.start_ns = p.last_end_ns >= 0 ? p.last_end_ns : end_ns - aggr_us * int64_t{1000};
            p.snap.sample_us = sample_us;
            p.snap.aggr_us = aggr_us;
            p.snap.where = where;
        } else if (nr_regions != p.nr_regions || start < p.snap.regions.back().end) {
            fail(fmt::format("a window of target {} ends after {} of its {} regions", target,
                             p.snap.regions.size(), p.nr_regions));
        }
        p.snap.regions.push_back(
            DamonRegion{start, end, nr_accesses, has_age ? static_cast<int64_t>(age) : -1});
        if (p.snap.regions.size() == p.nr_regions) {
            on_snapshot(p.snap);
            p.last_end_ns = p.snap.end_ns;
            p.snap.regions.clear();
        }
    }
    for (const auto& [target, p] : targets)
        if (!p.snap.regions.empty())
            throw InputError(in.path(), p.snap.where,
                             fmt::format("the file ends inside a window of target {}: {} of its "
                                         "{} regions (truncated)",
                                         target, p.snap.regions.size(), p.nr_regions));
    if (lines_with_events == 0) throw InputError(in.path(), "", "no damon:damon_aggregated events");
}

}  // namespace numasim
