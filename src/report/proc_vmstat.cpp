#include "report/proc_vmstat.h"

#include <fmt/format.h>

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
    std::pair<int, int> v;
    return !parse_release(release, v) || v >= since;
}

std::string proc_vmstat_text(const Counters& c, std::string_view release) {
    std::string s;
    for (const auto& [name, id] : kProcVmstatOrder) {
        if (proc_vmstat_lists(name, release)) s += fmt::format("{} {}\n", name, c[id]);
        if (name != kLastNumaStat) continue;
        for (const auto& [stat, per_node] : kNodeStats)
            if (proc_vmstat_lists(stat, release))
                s += fmt::format("{} {}\n", stat, node_stat_total(c.*per_node));
    }
    return s;
}

}  // namespace numasim
