#include "report/proc_vmstat.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <utility>

namespace numasim {

namespace {

// The first release that counts thp_migration_success, _fail and _split.
constexpr std::pair<int, int> kThpMigrationCountersSince = {5, 9};
// The memory-tiering node stats: pgpromote_success came with the tiering mode (v5.18),
// pgpromote_candidate with the hot page selection series (v6.0).
constexpr std::pair<int, int> kPgpromoteSuccessSince = {5, 18};
constexpr std::pair<int, int> kPgpromoteCandidateSince = {6, 0};
// vmstat_text lists the node stats after the NUMA event counters (numa_hit ... numa_other) and
// before the vm events (pgalloc_normal ...); numa_other is the last of the former.
constexpr std::string_view kLastNumaStat = "numa_other";
// Reclaim's counters (Counters::reclaim_reported): pgscan_anon and pgsteal_anon came in v5.8,
// the demotion counters in v5.15 (668e4147d885), the khugepaged ones in v6.3 (Johannes Weiner's
// "mm: vmscan: split khugepaged stats from direct reclaim stats"); pgdemote_* became node stats
// in v6.11 ("mm,memcg: provide per-cgroup counters for NUMA balancing operations"), printed
// after pgpromote_candidate.
constexpr std::pair<int, int> kAnonScanSince = {5, 8};
constexpr std::pair<int, int> kPgdemoteSince = {5, 15};
constexpr std::pair<int, int> kKhugepagedSince = {6, 3};
constexpr std::pair<int, int> kPgdemoteNodeStatSince = {6, 11};

// (major, minor) of "vMAJOR.MINOR[...]"; nothing when it does not read so.
bool parse_release(std::string_view r, std::pair<int, int>& out) {
    if (r.empty() || r.front() != 'v') return false;
    const char* p = r.data() + 1;
    const char* end = r.data() + r.size();
    auto a = std::from_chars(p, end, out.first);
    if (a.ec != std::errc() || a.ptr == end || *a.ptr != '.') return false;
    auto b = std::from_chars(a.ptr + 1, end, out.second);
    return b.ec == std::errc();
}

}  // namespace

bool proc_vmstat_lists(std::string_view name, std::string_view release) {
    std::pair<int, int> since{0, 0};
    if (name.starts_with("thp_migration_"))
        since = kThpMigrationCountersSince;
    else if (name == "pgpromote_success")
        since = kPgpromoteSuccessSince;
    else if (name == "pgpromote_candidate")
        since = kPgpromoteCandidateSince;
    if (name.ends_with("_khugepaged")) since = std::max(since, kKhugepagedSince);
    if (name.starts_with("pgdemote_"))
        since = std::max(since, kPgdemoteSince);
    else if (name == "pgscan_anon" || name == "pgsteal_anon")
        since = kAnonScanSince;
    std::pair<int, int> v;
    return !parse_release(release, v) || v >= since;
}

namespace {

bool at_least(std::string_view release, std::pair<int, int> since) {
    std::pair<int, int> v;
    return !parse_release(release, v) || v >= since;
}

// The reclaim counters from `from` up to (not including) `to` in kReclaimCounters, those that
// `release` lists where it lists them: pgdemote_* only when `node_stats` says they are where
// its kernel prints them.
std::string reclaim_lines(const Counters& c, std::string_view release, std::string_view from,
                          std::string_view to, bool node_stats) {
    std::string s;
    bool in = false;
    for (const auto& [name, field] : kReclaimCounters) {
        if (name == from) in = true;
        if (name == to) in = false;
        if (!in || !proc_vmstat_lists(name, release)) continue;
        const bool node_stat = at_least(release, kPgdemoteNodeStatSince);
        if (name.starts_with("pgdemote_") && node_stat != node_stats) continue;
        if (!name.starts_with("pgdemote_") && node_stats) continue;
        s += fmt::format("{} {}\n", name, c.*field);
    }
    return s;
}

}  // namespace

std::string proc_vmstat_text(const Counters& c, std::string_view release) {
    std::string s;
    for (const auto& [name, id] : kProcVmstatOrder) {
        if (proc_vmstat_lists(name, release)) s += fmt::format("{} {}\n", name, c[id]);
        if (c.reclaim_reported && name == "pgfree")
            s += reclaim_lines(c, release, "pgactivate", "pgrefill", false);
        if (c.reclaim_reported && name == "pgfault")
            s += reclaim_lines(c, release, "pgrefill", "", false);
        // vmstat_text's next line after thp_fault_alloc; listed once the run has one.
        if (c.thp_fault_fallback && name == "thp_fault_alloc")
            s += fmt::format("thp_fault_fallback {}\n", c.thp_fault_fallback);
        if (name != kLastNumaStat) continue;
        for (const auto& [stat, per_node] : kNodeStats)
            if (proc_vmstat_lists(stat, release))
                s += fmt::format("{} {}\n", stat, node_stat_total(c.*per_node));
        if (c.reclaim_reported) s += reclaim_lines(c, release, "pgdemote_kswapd", "", true);
    }
    // pghot's (a series on a newer tree than any profile's): its node stat and vm events, at
    // the end, since where the series' tree prints them among the others is not modelled.
    if (c.pghot_reported)
        for (const auto& [name, field] : kPghotCounters)
            s += fmt::format("{} {}\n", name, c.*field);
    return s;
}

}  // namespace numasim
