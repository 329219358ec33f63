// The mapping layout of the monitored process, from a copy of /proc/PID/maps (each VMA's
// start-end and path) or /proc/PID/numa_maps (each VMA's start, its file, heap or stack, and its
// resident pages per node; the end is not printed, so a VMA is taken to reach the next one's
// start, and the last to cover its resident pages). The importer cuts its blocks at the
// mappings' edges, names them after the mappings, and refuses a profile whose accessed regions
// lie outside every mapping (the layout is then not that process's).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace numasim {

struct ProcessMapping {
    uint64_t start = 0, end = 0;
    std::string name;  // the path, "[heap]", "[stack]", or "anon"
};

// Sorted and disjoint; throws InputError naming the line for anything else.
std::vector<ProcessMapping> read_process_maps(const std::string& path);

}  // namespace numasim
