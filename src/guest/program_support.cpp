#include <fmt/format.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <exception>

#include "guest/proc_report.h"
#include "guest/programs.h"
#include "guest/sys.h"

namespace numasim::guest {

int fork_child(const std::function<int()>& body) {
    const pid_t pid = fork();
    if (pid < 0) throw std::system_error(errno, std::generic_category(), "fork");
    if (pid > 0) return pid;
    int rc = 1;
    try {
        rc = body();
    } catch (const std::exception& e) {
        say(fmt::format("error pid {}: {}", getpid(), e.what()));
    }
    _exit(rc);
}

int wait_children(const std::vector<int>& pids) {
    int first = 0;
    for (int pid : pids) {
        int status = 0;
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
        const int rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        if (rc && !first) first = rc;
    }
    return first;
}

void set_comm(const std::string& name) {
    prctl(PR_SET_NAME, name.substr(0, 15).c_str(), 0, 0, 0);
}

void report_task(const Context& ctx, const std::string& process, int instance, int thread,
                 uint64_t bytes, const std::string& extra) {
    const int cpu = sched_getcpu();
    const int node = cpu >= 0 && cpu < ctx.topo.nr_cpus() ? ctx.topo.node_of(cpu) : -1;
    say(
        fmt::format("task workload={} process={} instance={} thread={} pid={} tid={} cpu={} "
                    "node={} bytes={} {}{}{}",
                    ctx.workload, process, instance, thread, getpid(), gettid(), cpu, node, bytes,
                    words(sched_fields(read_file("/proc/thread-self/sched"))),
                    extra.empty() ? "" : " ", extra));
}

void report_region(const Context& ctx, const std::string& process, int instance,
                   const std::string& name, const char* when, const void* addr) {
    const uintptr_t start =
        mapping_start(read_file("/proc/self/maps"), reinterpret_cast<uintptr_t>(addr));
    const auto nodes = numa_maps_nodes(read_file("/proc/self/numa_maps"), start);
    std::string pages;
    for (const auto& n : ctx.topo.nodes) {
        const auto it = nodes.find(fmt::format("N{}", n.id));
        pages += fmt::format(" N{}={}", n.id, it == nodes.end() ? 0 : it->second);
    }
    say(fmt::format("region workload={} process={} instance={} name={} when={}{}", ctx.workload,
                    process, instance, name, when, pages));
}

}  // namespace numasim::guest
