#include "experiment/cpu_budget.h"

#include <sched.h>

#include <algorithm>
#include <cerrno>
#include <fstream>
#include <sstream>
#include <vector>

namespace numasim {

namespace {

std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> out;
    std::string item;
    std::istringstream in(s);
    while (std::getline(in, item, sep))
        out.push_back(item);
    return out;
}

std::vector<std::string> lines(const std::string& s) {
    return split(s, '\n');
}

bool has_word(const std::string& list, const std::string& word) {
    const auto words = split(list, ',');
    return std::find(words.begin(), words.end(), word) != words.end();
}

// A cgroup hierarchy mounted in this namespace: where, and which cgroup path its root is.
struct Mount {
    std::string root, point;
};

// The mount of cgroup v2 (`v1_controller` empty) or of the v1 hierarchy with that controller.
std::optional<Mount> find_mount(const std::string& mountinfo, const std::string& v1_controller) {
    for (const auto& line : lines(mountinfo)) {
        // "ID PARENT MAJ:MIN ROOT POINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPER_OPTIONS"
        const auto dash = line.find(" - ");
        if (dash == std::string::npos) continue;
        std::istringstream head(line.substr(0, dash)), tail(line.substr(dash + 3));
        std::string id, parent, dev, root, point, fstype, source, super;
        head >> id >> parent >> dev >> root >> point;
        tail >> fstype >> source >> super;
        if (v1_controller.empty() ? fstype == "cgroup2"
                                  : fstype == "cgroup" && has_word(super, v1_controller))
            return Mount{root, point};
    }
    return std::nullopt;
}

// The directories from this process's cgroup up to the mount point.
std::vector<std::string> cgroup_dirs(const Mount& m, std::string path) {
    // Outside a cgroup namespace the path includes the mount's root; inside one it starts at it.
    if (m.root != "/" && path.rfind(m.root, 0) == 0) path.erase(0, m.root.size());
    std::vector<std::string> dirs;
    while (true) {
        while (path.size() > 1 && path.back() == '/')
            path.pop_back();
        std::string dir = m.point;
        if (!path.empty() && path != "/") dir.append(path);
        dirs.push_back(std::move(dir));
        const size_t slash = path.rfind('/');
        if (slash == std::string::npos || path == "/") break;
        if (slash == 0)
            path = "/";
        else
            path.resize(slash);
    }
    return dirs;
}

std::optional<double> number(const std::optional<std::string>& text) {
    if (!text) return std::nullopt;
    std::istringstream in(*text);
    double v;
    if (!(in >> v)) return std::nullopt;
    return v;
}

int cpus_of(double quota, double period) {
    return std::max(1, static_cast<int>((quota + period - 1) / period));
}

}  // namespace

int affinity_cpus() {
    // Grow the mask until it holds every CPU the kernel knows (EINVAL: too small).
    for (int n = CPU_SETSIZE; n <= (1 << 20); n *= 2) {
        cpu_set_t* set = CPU_ALLOC(n);
        if (!set) break;
        const size_t size = CPU_ALLOC_SIZE(n);
        CPU_ZERO_S(size, set);
        const int rc = sched_getaffinity(0, size, set);
        const int count = rc == 0 ? CPU_COUNT_S(size, set) : 0;
        CPU_FREE(set);
        if (rc == 0) return std::max(count, 1);
        if (errno != EINVAL) break;
    }
    return 1;
}

std::optional<int> cgroup_cpu_limit(const std::string& proc_self_cgroup,
                                    const std::string& proc_self_mountinfo, const ReadFile& read) {
    std::optional<int> limit;
    auto tighten = [&](int cpus) { limit = limit ? std::min(*limit, cpus) : cpus; };
    for (const auto& line : lines(proc_self_cgroup)) {
        // "ID:CONTROLLERS:PATH"; v2 is "0::PATH".
        const auto a = line.find(':');
        const auto b = a == std::string::npos ? a : line.find(':', a + 1);
        if (b == std::string::npos) continue;
        const std::string controllers = line.substr(a + 1, b - a - 1);
        const std::string path = line.substr(b + 1);
        if (controllers.empty()) {
            const auto m = find_mount(proc_self_mountinfo, "");
            if (!m) continue;
            for (const auto& dir : cgroup_dirs(*m, path)) {
                // "max 100000" or "QUOTA PERIOD" (microseconds).
                const auto text = read(dir + "/cpu.max");
                if (!text) continue;
                std::istringstream in(*text);
                std::string quota;
                double period = 0;
                if (in >> quota >> period && quota != "max" && period > 0)
                    if (const auto q = number(quota); q && *q > 0) tighten(cpus_of(*q, period));
            }
        } else if (has_word(controllers, "cpu")) {
            const auto m = find_mount(proc_self_mountinfo, "cpu");
            if (!m) continue;
            for (const auto& dir : cgroup_dirs(*m, path)) {
                const auto quota = number(read(dir + "/cpu.cfs_quota_us"));  // -1: none
                const auto period = number(read(dir + "/cpu.cfs_period_us"));
                if (quota && period && *quota > 0 && *period > 0) tighten(cpus_of(*quota, *period));
            }
        }
    }
    return limit;
}

int available_cpus() {
    const ReadFile read = [](const std::string& path) -> std::optional<std::string> {
        std::ifstream f(path);
        if (!f) return std::nullopt;
        std::ostringstream s;
        s << f.rdbuf();
        return s.str();
    };
    const int cpus = affinity_cpus();
    const auto limit = cgroup_cpu_limit(read("/proc/self/cgroup").value_or(""),
                                        read("/proc/self/mountinfo").value_or(""), read);
    return std::max(1, limit ? std::min(cpus, *limit) : cpus);
}

}  // namespace numasim
