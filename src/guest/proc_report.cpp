#include "guest/proc_report.h"

#include <cctype>
#include <charconv>
#include <sstream>

namespace numasim::guest {

namespace {

std::string trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
        s.remove_suffix(1);
    return std::string(s);
}

uint64_t number(std::string_view s) {
    uint64_t v = 0;
    std::from_chars(s.data(), s.data() + s.size(), v);
    return v;
}

}  // namespace

std::map<std::string, std::string> sched_fields(std::string_view text) {
    // "key   :   value" lines (kernel/sched/debug.c proc_sched_show_task), plus
    // "numa_faults node=0 task_private=1 task_shared=2 group_private=3 group_shared=4".
    static const std::map<std::string, std::string> kKeep = {
        {"se.nr_migrations", "nr_migrations"},
        {"nr_voluntary_switches", "nr_voluntary_switches"},
        {"nr_involuntary_switches", "nr_involuntary_switches"},
        {"numa_pages_migrated", "numa_pages_migrated"},
        {"numa_preferred_nid", "numa_preferred_nid"},
        {"total_numa_faults", "total_numa_faults"}};
    std::map<std::string, std::string> out;
    std::istringstream in{std::string(text)};
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("numa_faults node=", 0) == 0) {
            std::istringstream w(line.substr(12));
            std::string word, node;
            uint64_t faults = 0;
            while (w >> word) {
                const auto eq = word.find('=');
                if (eq == std::string::npos) continue;
                const std::string k = word.substr(0, eq), v = word.substr(eq + 1);
                if (k == "node") node = v;
                if (k == "task_private" || k == "task_shared") faults += number(v);
            }
            if (!node.empty()) out["faults_N" + node] = std::to_string(faults);
            continue;
        }
        const auto colon = line.find(':');
        if (colon == std::string::npos) continue;
        const auto it = kKeep.find(trim(std::string_view(line).substr(0, colon)));
        if (it != kKeep.end()) out[it->second] = trim(std::string_view(line).substr(colon + 1));
    }
    return out;
}

std::map<std::string, uint64_t> numa_maps_nodes(std::string_view text, uintptr_t start) {
    std::map<std::string, uint64_t> out;
    std::istringstream in{std::string(text)};
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream w(line);
        std::string addr, word;
        if (!(w >> addr)) continue;
        uintptr_t a = 0;
        std::from_chars(addr.data(), addr.data() + addr.size(), a, 16);
        if (a != start) continue;
        while (w >> word)
            if (word.size() > 2 && word[0] == 'N' &&
                std::isdigit(static_cast<unsigned char>(word[1]))) {
                const auto eq = word.find('=');
                out[word.substr(0, eq)] = number(std::string_view(word).substr(eq + 1));
            }
        break;
    }
    return out;
}

uintptr_t mapping_start(std::string_view text, uintptr_t addr) {
    std::istringstream in{std::string(text)};
    std::string line;
    while (std::getline(in, line)) {
        const auto dash = line.find('-'), sp = line.find(' ');
        if (dash == std::string::npos || sp == std::string::npos || sp < dash) continue;
        uintptr_t lo = 0, hi = 0;
        std::from_chars(line.data(), line.data() + dash, lo, 16);
        std::from_chars(line.data() + dash + 1, line.data() + sp, hi, 16);
        if (addr >= lo && addr < hi) return lo;
    }
    return 0;
}

std::string words(const std::map<std::string, std::string>& kv) {
    std::string s;
    for (const auto& [k, v] : kv)
        s += (s.empty() ? "" : " ") + k + "=" + v;
    return s;
}

}  // namespace numasim::guest
