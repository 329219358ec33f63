#include "replay/process_maps.h"

#include <fmt/format.h>

#include <charconv>
#include <string_view>

#include "config/input_error.h"
#include "replay/damon_import.h"
#include "replay/profile_input.h"

namespace numasim {

namespace {

bool parse_hex(std::string_view t, uint64_t& v) {
    const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v, 16);
    return ec == std::errc() && end == t.data() + t.size() && !t.empty();
}

std::vector<std::string_view> fields(std::string_view s) {
    std::vector<std::string_view> out;
    while (true) {
        const size_t b = s.find_first_not_of(" \t");
        if (b == std::string_view::npos) return out;
        s.remove_prefix(b);
        const size_t e = s.find_first_of(" \t");
        out.push_back(s.substr(0, e));
        if (e == std::string_view::npos) return out;
        s.remove_prefix(e);
    }
}

}  // namespace

std::vector<ProcessMapping> read_process_maps(const std::string& path) {
    ProfileInput in(path);
    std::vector<ProcessMapping> maps;
    std::vector<uint64_t> numa_bytes;  // numa_maps: resident bytes of each mapping
    std::string line;
    bool truncated = false, numa_maps = false;
    while (true) {
        const int64_t line_no = in.line();
        if (!in.getline(line, truncated)) break;
        const std::string where = fmt::format("line {}", line_no);
        const auto f = fields(line);
        if (f.empty()) continue;
        if (static_cast<int64_t>(maps.size()) == kMaxReplayRanges)
            throw InputError(path, where, fmt::format("more than {} mappings", kMaxReplayRanges));
        ProcessMapping m;
        const size_t dash = f[0].find('-');
        const bool this_numa = dash == std::string_view::npos;
        if (!maps.empty() && this_numa != numa_maps)
            throw InputError(path, where, "a mix of /proc/PID/maps and numa_maps lines");
        numa_maps = this_numa;
        if (!numa_maps) {
            // START-END PERMS OFFSET DEV INODE [PATH]
            if (f.size() < 5 || !parse_hex(f[0].substr(0, dash), m.start) ||
                !parse_hex(f[0].substr(dash + 1), m.end) || m.end <= m.start)
                throw InputError(path, where,
                                 "expected START-END PERMS OFFSET DEV INODE [PATH] "
                                 "(/proc/PID/maps) or START POLICY ... (/proc/PID/numa_maps)");
            m.name = f.size() > 5 ? std::string(f[5]) : "anon";
        } else {
            // START POLICY [file=PATH | heap | stack] ... N<node>=<pages> ... kernelpagesize_kB=K
            if (f.size() < 2 || !parse_hex(f[0], m.start))
                throw InputError(path, where, "expected START POLICY ... (/proc/PID/numa_maps)");
            m.name = "anon";
            uint64_t pages = 0, kb = 4;
            for (size_t i = 2; i < f.size(); ++i) {
                const std::string_view t = f[i];
                if (t.substr(0, 5) == "file=") m.name = std::string(t.substr(5));
                if (t == "heap") m.name = "[heap]";
                if (t == "stack") m.name = "[stack]";
                uint64_t v = 0;
                const size_t eq = t.find('=');
                const std::string_view value = eq == std::string_view::npos ? "" : t.substr(eq + 1);
                const bool num =
                    std::from_chars(value.data(), value.data() + value.size(), v).ec == std::errc();
                if (t.size() > 1 && t[0] == 'N' && std::isdigit(static_cast<unsigned char>(t[1])) &&
                    num)
                    pages += v;
                if (t.substr(0, 18) == "kernelpagesize_kB=" && num) kb = v;
            }
            numa_bytes.push_back(pages * kb * 1024);
        }
        if (!maps.empty() && m.start < maps.back().end && !numa_maps)
            throw InputError(path, where, "mappings out of order or overlapping");
        if (!maps.empty() && numa_maps && m.start <= maps.back().start)
            throw InputError(path, where, "mappings out of order");
        maps.push_back(m);
    }
    if (truncated) throw InputError(path, "", "the last line has no end of line: truncated");
    if (maps.empty()) throw InputError(path, "", "no mappings");
    if (numa_maps)
        for (size_t i = 0; i < maps.size(); ++i)
            maps[i].end = i + 1 < maps.size()
                              ? maps[i + 1].start
                              : maps[i].start + std::max<uint64_t>(numa_bytes[i], 4096);
    return maps;
}

}  // namespace numasim
