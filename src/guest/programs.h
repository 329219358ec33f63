// The programs the guest runner can run, one file each, each reading the same description the
// model reads (program/*_spec.h) and doing what the real program does: fork, pthread_create,
// mmap, first touch, set_mempolicy/mbind, sched_setaffinity, then its access loops. Each runs in
// the calling process and returns 0 once every process it forked has exited.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "guest/context.h"

namespace numasim {
struct StreamsSpec;
struct AutonumabenchSpec;
struct CowsumSpec;
}  // namespace numasim

namespace numasim::guest {

int run_streams(const StreamsSpec& spec, const Context& ctx);
int run_autonumabench(const AutonumabenchSpec& spec, const Context& ctx);
int run_cowsum(const CowsumSpec& spec, const Context& ctx);

// --- shared by the programs -----------------------------------------------------------------

// Forks; the child runs `body` and exits with its return value (1, with an `error` line, if it
// throws). Returns the child's pid.
int fork_child(const std::function<int()>& body);
// Waits for every pid; returns 0 if all exited with 0, else the first failure's code.
int wait_children(const std::vector<int>& pids);

// Names this process for /proc/<pid>/comm (the kernel keeps 15 characters).
void set_comm(const std::string& name);

// The `task` line of the calling thread: who it is, where it ran last, what it moved, and its
// /proc/thread-self/sched NUMA fields. `extra` is appended ("passes=123").
void report_task(const Context& ctx, const std::string& process, int instance, int thread,
                 uint64_t bytes, const std::string& extra = "");

// The `region` line: pages per node of the mapping containing `addr` in this process.
void report_region(const Context& ctx, const std::string& process, int instance,
                   const std::string& name, const char* when, const void* addr);

}  // namespace numasim::guest
