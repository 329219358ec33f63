#include "guest/damon.h"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <map>
#include <sstream>
#include <stdexcept>

#include "guest/sys.h"

namespace numasim::guest {

namespace {

constexpr const char* kAdmin = "/sys/kernel/mm/damon/admin";
constexpr const char* kContext = "/sys/kernel/mm/damon/admin/kdamonds/0/contexts/0";
// The trace buffer per CPU: a damon_aggregated event takes about 56 bytes in the ring buffer
// (its fields and the event header), so 16 MiB hold about 300,000 regions x windows, a minute
// of monitoring at 500 regions. Lost events are reported, never passed on silently.
constexpr int kTraceBufferKb = 16384;
// The tracefs directories: mounted by the init script, or under debugfs on older kernels.
constexpr std::array<const char*, 2> kTracefs = {"/sys/kernel/tracing",
                                                 "/sys/kernel/debug/tracing"};

bool exists(const std::string& path) {
    return access(path.c_str(), F_OK) == 0;
}

// One write of a sysfs or tracefs attribute; the kernel's refusal names the file.
void put(const std::string& path, const std::string& value) {
    const int fd = open(path.c_str(), O_WRONLY | O_TRUNC);
    if (fd < 0) throw std::runtime_error(path + ": " + std::strerror(errno));
    const ssize_t n = write(fd, value.data(), value.size());
    const int err = errno;
    close(fd);
    if (n != static_cast<ssize_t>(value.size()))
        throw std::runtime_error(fmt::format("{}: writing '{}': {}", path, value,
                                             n < 0 ? std::strerror(err) : "short write"));
}

std::string first_line(const std::string& text) {
    return text.substr(0, text.find('\n'));
}

}  // namespace

std::vector<int> leaf_descendants(int root, const std::vector<std::pair<int, int>>& pid_ppid) {
    std::map<int, std::vector<int>> children;
    for (const auto& [pid, ppid] : pid_ppid)
        children[ppid].push_back(pid);
    std::vector<int> leaves, todo = {root};
    while (!todo.empty()) {
        const int p = todo.back();
        todo.pop_back();
        const auto it = children.find(p);
        if (it == children.end()) {
            if (p != root) leaves.push_back(p);
            continue;
        }
        todo.insert(todo.end(), it->second.begin(), it->second.end());
    }
    std::sort(leaves.begin(), leaves.end());
    return leaves;
}

std::vector<std::pair<int, int>> process_parents() {
    std::vector<std::pair<int, int>> out;
    DIR* d = opendir("/proc");
    if (!d) return out;
    while (const dirent* e = readdir(d)) {
        const std::string name = e->d_name;
        if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
        // "PID (COMM) STATE PPID ...": COMM may hold spaces and parentheses, so read after the
        // last ')'.
        const std::string stat = read_file("/proc/" + name + "/stat");
        const size_t close_paren = stat.rfind(')');
        if (close_paren == std::string::npos) continue;  // exited meanwhile
        std::istringstream rest(stat.substr(close_paren + 1));
        std::string state;
        int ppid = 0;
        if (rest >> state >> ppid) out.emplace_back(std::stoi(name), ppid);
    }
    closedir(d);
    return out;
}

DamonMonitor::DamonMonitor(std::vector<int> pids, const DamonAttrs& a) : attrs_(a) {
    if (!exists(kAdmin))
        throw std::runtime_error(
            "this kernel has no /sys/kernel/mm/damon/admin (CONFIG_DAMON_SYSFS is off)");
    for (const char* t : kTracefs)
        if (exists(std::string(t) + "/events/damon/damon_aggregated")) tracing_ = t;
    if (tracing_.empty())
        throw std::runtime_error(
            "this kernel has no damon:damon_aggregated tracepoint in tracefs (CONFIG_FTRACE?)");
    if (pids.empty()) throw std::runtime_error("DAMON: the workload started no process");
    for (int pid : pids)
        targets_.push_back({pid, first_line(read_file(fmt::format("/proc/{}/comm", pid))), 0, {}});
    snapshot_targets();

    // The trace buffer first, so that the first window is kept: the tracepoint's events alone,
    // on a clock that is monotonic across CPUs (kdamond may move between them).
    put(tracing_ + "/tracing_on", "0");
    put(tracing_ + "/trace", "");
    put(tracing_ + "/trace_clock", "mono");
    put(tracing_ + "/buffer_size_kb", std::to_string(kTraceBufferKb));
    put(tracing_ + "/events/damon/damon_aggregated/enable", "1");
    put(tracing_ + "/tracing_on", "1");

    const std::string ctx = kContext;
    put(std::string(kAdmin) + "/kdamonds/nr_kdamonds", "1");
    put(std::string(kAdmin) + "/kdamonds/0/contexts/nr_contexts", "1");
    if (read_file(ctx + "/avail_operations").find("vaddr") == std::string::npos)
        throw std::runtime_error(
            "this kernel's DAMON has no vaddr operations (CONFIG_DAMON_VADDR)");
    put(ctx + "/operations", "vaddr");
    const std::string attrs = ctx + "/monitoring_attrs";
    put(attrs + "/intervals/sample_us", std::to_string(a.sample_us));
    put(attrs + "/intervals/aggr_us", std::to_string(a.aggr_us));
    put(attrs + "/intervals/update_us", std::to_string(a.update_us));
    put(attrs + "/nr_regions/max", std::to_string(a.max_nr_regions));
    put(attrs + "/nr_regions/min", std::to_string(a.min_nr_regions));
    put(ctx + "/targets/nr_targets", std::to_string(targets_.size()));
    for (size_t i = 0; i < targets_.size(); ++i)
        put(fmt::format("{}/targets/{}/pid_target", ctx, i), std::to_string(targets_[i].pid));
    put(std::string(kAdmin) + "/kdamonds/0/state", "on");
}

void DamonMonitor::snapshot_targets() {
    for (Target& t : targets_) {
        const std::string maps = read_file(fmt::format("/proc/{}/maps", t.pid));
        if (maps.empty()) continue;  // exited: keep the last reading
        std::istringstream in(maps);
        t.maps.clear();
        for (std::string line; std::getline(in, line);)
            t.maps.push_back(line);
        std::istringstream status(read_file(fmt::format("/proc/{}/status", t.pid)));
        for (std::string line; std::getline(status, line);)
            if (line.rfind("Threads:", 0) == 0)
                t.threads = std::max(t.threads, std::stoi(line.substr(8)));
    }
}

bool DamonMonitor::finish() {
    try {
        put(std::string(kAdmin) + "/kdamonds/0/state", "off");
    } catch (const std::runtime_error&) {
        // Already off: a vaddr kdamond stops when its last target has exited.
    }
    put(tracing_ + "/tracing_on", "0");
    say(fmt::format(
        "damon # numasim oracle --damon-record: DAMON vaddr monitoring (sysfs) on "
        "the real kernel, the damon_aggregated tracepoint's events from the trace buffer"));
    say(
        fmt::format("damon # sample_us={} aggr_us={} update_us={} min_nr_regions={} "
                    "max_nr_regions={}",
                    attrs_.sample_us, attrs_.aggr_us, attrs_.update_us, attrs_.min_nr_regions,
                    attrs_.max_nr_regions));
    for (size_t i = 0; i < targets_.size(); ++i) {
        const Target& t = targets_[i];
        say(fmt::format("damon # target_id={} pid={} comm={} threads={}", i, t.pid, t.comm,
                        t.threads));
        for (const std::string& m : t.maps)
            say(fmt::format("damon # maps target_id={} {}", i, m));
    }
    std::istringstream trace(read_file(tracing_ + "/trace"));
    for (std::string line; std::getline(trace, line);)
        if (line.find("damon_aggregated:") != std::string::npos) say("damon " + line);
    // Events the ring buffer overwrote or dropped, per CPU.
    int64_t lost = 0;
    for (int cpu = 0;; ++cpu) {
        const std::string stats = fmt::format("{}/per_cpu/cpu{}/stats", tracing_, cpu);
        if (!exists(stats)) break;
        std::istringstream in(read_file(stats));
        for (std::string line; std::getline(in, line);)
            if (line.rfind("overrun:", 0) == 0 || line.rfind("dropped events:", 0) == 0)
                lost += std::stoll(line.substr(line.find(':') + 1));
    }
    if (lost > 0) {
        say(
            fmt::format("error DAMON's trace buffer lost {} damon_aggregated events ({} KiB per "
                        "CPU): the record is incomplete",
                        lost, kTraceBufferKb));
        return false;
    }
    return true;
}

}  // namespace numasim::guest
