#include "workload/common.h"

#include <algorithm>

#include "kernel/system.h"

namespace numasim {

MemPolicy make_policy(MpolMode mode, uint64_t nodes) {
    MemPolicy p;
    p.mode = mode;
    p.nodes = nodes;
    return p;
}

Nanos task_clock(const System& sys, const Task& p) {
    return std::max(sys.now, sys.rqs[p.cpu].clock);
}

std::vector<const Task*> workload_tasks(const System& sys, int index) {
    std::vector<const Task*> out;
    for (const auto& t : sys.tasks)
        if (t->workload == index) out.push_back(t.get());
    return out;
}

TaskFigures task_figures(const System& sys, const Task& p) {
    TaskFigures f;
    f.pid = p.pid;
    f.tgid = p.tgid;
    f.comm = p.comm;
    f.thread_index = p.thread_index;
    f.user_s = ns_to_s(p.utime);
    f.system_s = ns_to_s(p.stime);
    f.start_s = ns_to_s(p.start_time);
    if (p.exit_time >= 0) f.exit_s = ns_to_s(p.exit_time);
    f.bytes = p.total_bytes;
    f.ops = p.total_ops;
    f.nr_migrations = p.nr_migrations;
    f.numa_pages_migrated = p.numa_pages_migrated;
    f.numa_preferred_nid = p.numa_preferred_nid;
    f.last_node = sys.cpu_to_node(p.cpu);
    return f;
}

RunTimes run_times(const System& sys, const std::vector<const Task*>& tasks) {
    RunTimes r;
    if (tasks.empty()) return r;
    r.start = tasks.front()->start_time;
    for (const Task* t : tasks) {
        r.start = std::min(r.start, t->start_time);
        if (t->exit_time < 0) r.finished = false;
        r.end = std::max(r.end, t->exit_time < 0 ? sys.now : t->exit_time);
        r.user_s += ns_to_s(t->utime);
        r.sys_s += ns_to_s(t->stime);
    }
    return r;
}

void make_wait_phase(Phase& ph, Nanos sleep) {
    ph.streams.clear();
    ph.cpu_time = NSEC_PER_USEC;
    ph.sleep_after = sleep;
}

}  // namespace numasim
