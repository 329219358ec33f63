#include "report/proc_vmstat.h"

#include <fmt/format.h>

#include <charconv>
#include <utility>

namespace numasim {

namespace {

// The first release that counts thp_migration_success, _fail and _split.
constexpr std::pair<int, int> kThpMigrationCountersSince = {5, 9};

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
    if (!name.starts_with("thp_migration_")) return true;
    std::pair<int, int> v;
    return !parse_release(release, v) || v >= kThpMigrationCountersSince;
}

std::string proc_vmstat_text(const Counters& c, std::string_view release) {
    std::string s;
    for (const auto& [name, id] : kProcVmstatOrder)
        if (proc_vmstat_lists(name, release)) s += fmt::format("{} {}\n", name, c[id]);
    return s;
}

}  // namespace numasim
