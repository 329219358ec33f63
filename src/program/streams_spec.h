// The `streams` program as the scenario describes it: processes (with instance counts), their
// memory regions, and per thread a list of phases of access streams. One description, read once
// from the scenario: the model (workload/streams.cpp) builds simulated tasks from it, and the
// oracle's guest runner (guest/streams.cpp) runs it as real processes and threads.
// docs/scenario-workloads.md documents the keys.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cost/access.h"
#include "mm/mempolicy.h"
#include "sim/clock.h"

namespace numasim {

class TomlTable;
struct Topology;

enum class RegionKind { Private, Shared, File };
enum class FirstTouch { None, Node, Thread };

struct RegionSpec {
    std::string name;
    uint64_t size = 0;
    RegionKind kind = RegionKind::Private;
    bool thp = false;
    std::optional<MemPolicy> policy;  // mbind() of the whole region
    FirstTouch first_touch = FirstTouch::None;
    int first_touch_node = 0;
    bool sliced = false;  // some stream uses per-thread slices of it
};

struct StreamSpec {
    int region = 0;
    AccessStream proto;  // everything but the region
    bool per_thread = false;
};

struct PhaseSpec {
    std::vector<StreamSpec> streams;
    double rate_gbs = 0;
    double work = 0;
    Nanos cpu_time = 0, sleep = 0;
    int64_t repeat = 1;
    std::optional<std::vector<int>> affinity;  // empty vector: all CPUs
    std::optional<MemPolicy> mempolicy;
    double ops_per_byte = 0, mlp = 0;
    bool exec = false;  // execve() at phase start: placed again by sched_exec()
};

struct ThreadSpec {
    std::vector<PhaseSpec> phases;
    bool loop = false;
};

struct ProcessSpec {
    std::string name;
    int count = 1;
    bool static_binary = false;  // image = "static" (gcc -static: no ld.so and shared libraries)
    std::vector<RegionSpec> regions;
    std::vector<ThreadSpec> threads;  // one per thread
    // [workload.process.main]: a main thread apart from `threads`, which writes the first_touch
    // regions, runs `before`, creates the threads, runs `after`, then joins them.
    bool join = false;
    std::vector<PhaseSpec> before, after;

    // Thread 0 (or the main thread) writes these regions before it starts the other threads.
    bool has_first_touch() const;
};

// The `affinity` key of table t: "node:N" -> node N's CPUs; [1, 2] -> those CPUs; "all" -> every
// CPU (an empty list). Anything else, or a node without CPUs, is an input error.
std::vector<int> read_affinity(const TomlTable& t, const Topology& topo);
// The memory policy of key `key` of table t with its `nodes`; nullopt if the key is absent.
std::optional<MemPolicy> read_policy(const TomlTable& t, const Topology& topo, const char* key);

struct StreamsSpec {
    std::string name;
    std::vector<ProcessSpec> processes;

    // The most phases the workload's tasks can start in `seconds` of simulated time, each phase
    // lasting at least its CPU time and sleep, and its work at the highest rate a phase may ask
    // for; infinite for phases that repeat or loop taking no time at all.
    double phase_starts(double seconds) const;
};

// Reads a [[workload]] table of type "streams"; `topo` resolves "node:N" affinities and checks
// node numbers. Errors are InputErrors naming the key.
StreamsSpec read_streams_spec(const TomlTable& t, const Topology& topo);

// Pages of thread `thread`'s slice of a region of `pages` pages shared out among `threads`:
// equal slices of max(1, pages / threads), the last ones clamped to the region's end.
struct PageSlice {
    uint64_t first = 0, count = 0;
};
PageSlice thread_slice(uint64_t pages, uint64_t threads, uint64_t thread);

// A sweep stores when most of its accesses are stores (the engine's rule for sweeps).
inline bool sweep_writes(const AccessStream& s) {
    return s.write_fraction >= 0.5;
}

}  // namespace numasim
