// The system calls the guest runner makes on the real kernel, as thin wrappers that throw
// std::system_error on failure: memory policies (set_mempolicy(2) and mbind(2) as raw syscalls,
// so no libnuma is needed), CPU affinity, THP advice, clocks, and one-write console lines.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "mm/mempolicy.h"
#include "sim/clock.h"

namespace numasim::guest {

// include/uapi/linux/mempolicy.h mode numbers for numasim's MpolMode.
int mpol_mode_number(MpolMode m);

void set_mempolicy(const MemPolicy& p);
void mbind(void* addr, uint64_t bytes, const MemPolicy& p);
// CPUs ids; an empty list means every CPU the machine has (`nr_cpus`).
void set_affinity(const std::vector<int>& cpus, int nr_cpus);

// An anonymous (or, with fd >= 0, file) mapping followed by one PROT_NONE guard page, so that
// the kernel never merges it with a neighbour and /proc/<pid>/numa_maps shows it on a line of
// its own. `thp` applies MADV_HUGEPAGE.
char* map_region(uint64_t bytes, bool shared, int fd, bool thp);

Nanos monotonic_ns();
Nanos thread_cpu_ns();
// Sleeps until monotonic time `until` (returns at once if it has passed).
void sleep_until(Nanos until);

// Writes "NUMASIM <text>\n" with a single write(2), so lines of concurrent tasks never mix.
void say(std::string_view text);

std::string read_file(const std::string& path);

}  // namespace numasim::guest
