#include "guest/context.h"

#include <sys/mman.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <new>
#include <sstream>
#include <stdexcept>

#include "guest/sys.h"

namespace numasim::guest {

ProgressBoard* ProgressBoard::create() {
    void* p = mmap(nullptr, sizeof(ProgressBoard), PROT_READ | PROT_WRITE,
                   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::runtime_error("mmap of the progress board failed");
    return new (p) ProgressBoard();
}

ProgressSlot* ProgressBoard::claim(const std::string& name) {
    const int i = next_++;
    if (i >= kSlots) return nullptr;
    ProgressSlot& s = slots_[i];
    name.copy(s.name, sizeof s.name - 1);
    s.state = 1;
    return &s;
}

double Context::elapsed_s() const {
    return ns_to_s(monotonic_ns() - start);
}

std::vector<int> parse_cpu_list(const std::string& text) {
    std::vector<int> out;
    std::istringstream in(text);
    std::string part;
    while (std::getline(in, part, ',')) {
        if (part.empty() || part == "\n") continue;
        const auto dash = part.find('-');
        const int lo = std::stoi(part.substr(0, dash));
        const int hi = dash == std::string::npos ? lo : std::stoi(part.substr(dash + 1));
        for (int c = lo; c <= hi; ++c)
            out.push_back(c);
    }
    return out;
}

Topology sysfs_topology(const std::string& root) {
    namespace fs = std::filesystem;
    std::vector<int> ids;
    for (const auto& e : fs::directory_iterator(root)) {
        const std::string n = e.path().filename().string();
        if (n.rfind("node", 0) == 0 && n.size() > 4 &&
            std::all_of(n.begin() + 4, n.end(), ::isdigit))
            ids.push_back(std::stoi(n.substr(4)));
    }
    if (ids.empty()) throw std::runtime_error("no NUMA nodes under " + root);
    std::sort(ids.begin(), ids.end());
    Topology t;
    t.name = "guest";
    int max_cpu = -1;
    for (int id : ids) {
        const std::string dir = root + "/node" + std::to_string(id);
        NodeInfo n;
        n.id = id;
        n.cpus = parse_cpu_list(read_file(dir + "/cpulist"));
        std::istringstream mem(read_file(dir + "/meminfo"));
        std::string w;
        while (mem >> w)
            if (w == "MemTotal:") {
                uint64_t kb = 0;
                mem >> kb;
                n.mem_bytes = kb * 1024;
                break;
            }
        std::istringstream dist(read_file(dir + "/distance"));
        std::vector<int> row;
        for (int d; dist >> d;)
            row.push_back(d);
        t.distance.push_back(row);
        for (int c : n.cpus)
            max_cpu = std::max(max_cpu, c);
        t.nodes.push_back(std::move(n));
    }
    t.cpus.resize(static_cast<size_t>(max_cpu + 1));
    for (int c = 0; c <= max_cpu; ++c)
        t.cpus[c] = {.id = c, .node = 0, .package = 0, .core = c, .llc = 0};
    for (const auto& n : t.nodes)
        for (int c : n.cpus)
            t.cpus[c].node = t.cpus[c].package = t.cpus[c].llc = n.id;
    return t;
}

}  // namespace numasim::guest
