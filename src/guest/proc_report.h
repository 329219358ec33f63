// What the guest runner reports about its tasks and memory from the real kernel's /proc: each
// thread's /proc/thread-self/sched NUMA fields as it finishes, and each region's pages per node
// from /proc/self/numa_maps.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

namespace numasim::guest {

// The fields of a /proc/<pid>/sched text the oracle compares: "se.nr_migrations" ->
// "nr_migrations", "numa_pages_migrated", "numa_preferred_nid", "total_numa_faults",
// "nr_voluntary_switches", "nr_involuntary_switches", and "faults_N<node>" (the task's private
// plus shared faults on that node from the numa_faults lines).
std::map<std::string, std::string> sched_fields(std::string_view proc_sched);

// Pages per node ("N0" -> 65536) of the numa_maps line whose mapping starts at `start`; empty
// if there is none.
std::map<std::string, uint64_t> numa_maps_nodes(std::string_view numa_maps, uintptr_t start);

// The start of the mapping in a /proc/<pid>/maps text that contains `addr`; 0 if none.
uintptr_t mapping_start(std::string_view maps, uintptr_t addr);

// "key=value key=value" of a map, in key order.
std::string words(const std::map<std::string, std::string>& kv);

}  // namespace numasim::guest
