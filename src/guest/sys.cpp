#include "guest/sys.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <time.h>
#include <cerrno>
#include <fstream>
#include <sstream>
#include <system_error>

#include "guest/protocol.h"

namespace numasim::guest {

namespace {

// The kernel reads maxnode - 1 bits of the mask (get_nodes() in mm/mempolicy.c), so one more
// than the 64 bits numasim's masks hold.
constexpr unsigned long kMaxNode = 65;

[[noreturn]] void fail(const char* what) {
    throw std::system_error(errno, std::generic_category(), what);
}

}  // namespace

int mpol_mode_number(MpolMode m) {
    switch (m) {
        case MpolMode::Default:
            return 0;  // MPOL_DEFAULT
        case MpolMode::Preferred:
            return 1;  // MPOL_PREFERRED
        case MpolMode::Bind:
            return 2;  // MPOL_BIND
        case MpolMode::Interleave:
            return 3;  // MPOL_INTERLEAVE
        case MpolMode::Local:
            return 4;  // MPOL_LOCAL (v3.8+)
    }
    return 0;
}

void set_mempolicy(const MemPolicy& p) {
    const unsigned long mask = p.nodes;
    const bool no_nodes = p.mode == MpolMode::Default || p.mode == MpolMode::Local;
    // The one mode flag numasim's policies carry from user space (numactl --balancing); the
    // others in `flags` are the kernel's internal ones, which set_mempolicy() refuses.
    const int mode = mpol_mode_number(p.mode) | (p.flags & MPOL_F_NUMA_BALANCING);
    if (syscall(SYS_set_mempolicy, mode, no_nodes ? nullptr : &mask, no_nodes ? 0 : kMaxNode) != 0)
        fail("set_mempolicy");
}

void mbind(void* addr, uint64_t bytes, const MemPolicy& p) {
    const unsigned long mask = p.nodes;
    const bool no_nodes = p.mode == MpolMode::Default || p.mode == MpolMode::Local;
    if (syscall(SYS_mbind, addr, bytes, mpol_mode_number(p.mode), no_nodes ? nullptr : &mask,
                no_nodes ? 0 : kMaxNode, 0) != 0)
        fail("mbind");
}

void set_affinity(const std::vector<int>& cpus, int nr_cpus) {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (cpus.empty())
        for (int c = 0; c < nr_cpus; ++c)
            CPU_SET(c, &set);
    for (int c : cpus)
        CPU_SET(c, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0) fail("sched_setaffinity");
}

char* map_region(uint64_t bytes, bool shared, int fd, bool thp) {
    const long page = sysconf(_SC_PAGESIZE);
    const uint64_t len = (bytes + page - 1) / page * page;
    // Reserve the region and its guard page inaccessible, then open the region itself.
    void* p = fd >= 0 ? mmap(nullptr, len + page, PROT_NONE, MAP_PRIVATE, fd, 0)
                      : mmap(nullptr, len + page, PROT_NONE,
                             (shared ? MAP_SHARED : MAP_PRIVATE) | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) fail("mmap");
    if (mprotect(p, len, PROT_READ | PROT_WRITE) != 0) fail("mprotect");
    if (thp && madvise(p, len, MADV_HUGEPAGE) != 0) fail("madvise(MADV_HUGEPAGE)");
    return static_cast<char*>(p);
}

Nanos monotonic_ns() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return Nanos{ts.tv_sec} * NSEC_PER_SEC + ts.tv_nsec;
}

Nanos thread_cpu_ns() {
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return Nanos{ts.tv_sec} * NSEC_PER_SEC + ts.tv_nsec;
}

void sleep_until(Nanos until) {
    timespec ts{static_cast<time_t>(until / NSEC_PER_SEC), static_cast<long>(until % NSEC_PER_SEC)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR) {
    }
}

void say(std::string_view text) {
    std::string line(guest_line::kPrefix);
    line += text;
    line += '\n';
    size_t done = 0;
    while (done < line.size()) {
        const ssize_t n = write(1, line.data() + done, line.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return;  // the console is gone: nothing left to tell
        done += static_cast<size_t>(n);
    }
}

std::string read_file(const std::string& path) {
    std::ifstream in(path);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

}  // namespace numasim::guest
