// The host-facing half of `numasim calibrate` (calibrate.h): a buffer placed on one NUMA node,
// and the two measurements over it, an idle pointer chase from one CPU and a stream from a set
// of CPUs. CPU and node numbers here are Linux's (HostMachine's os indices). Needs no root:
// binding memory and pinning threads to allowed CPUs are ordinary calls.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace numasim {

// An anonymous mapping bound to one node with mbind(MPOL_BIND), asked for transparent huge pages
// (so that a chase over it measures memory, not page walks) and written whole, so that every page
// is allocated before any timing. The writing runs on `touch_cpu` (a CPU of the node, or -1: the
// calling thread), so that where mbind is refused first touch still places the pages there.
class NodeBuffer {
  public:
    NodeBuffer(size_t bytes, int node, int touch_cpu = -1);
    ~NodeBuffer();
    NodeBuffer(const NodeBuffer&) = delete;
    NodeBuffer& operator=(const NodeBuffer&) = delete;

    char* data() const { return data_; }
    size_t size() const { return size_; }
    // Why the memory may not be where it was asked for: mbind's error (e.g. EPERM under a
    // seccomp filter), or empty.
    const std::string& bind_error() const { return bind_error_; }
    // The share of the buffer's pages (a sample of one per 2 MiB) that move_pages() reports on
    // the node; -1 if the kernel cannot say.
    double share_on_node() const;

  private:
    char* data_ = nullptr;
    size_t size_ = 0;
    int node_ = 0;
    std::string bind_error_;
};

// Lays the chase out in `buf`: one pointer per 64-byte cache line, slot i pointing to slot
// next[i] (a Sattolo cycle, calibrate_stats.h). buf.size() / 64 must equal next.size().
void lay_out_chase(const NodeBuffer& buf, const std::vector<uint32_t>& next);

// Why a thread cannot be pinned to `cpu` (sched_setaffinity refused it, e.g. a CPU outside the
// process's cpuset), or empty. The probes below then run where the scheduler puts them.
std::string pin_error(int cpu);

// Nanoseconds per dependent load of a chase along the layout in `buf`, from one thread pinned to
// `cpu`, over about `seconds`: `runs` timed runs after one untimed warm-up of the same length.
// The loads are timed in the thread's CPU time, which time spent preempted does not add to.
std::vector<double> chase_ns_per_load(const NodeBuffer& buf, int cpu, double seconds, int runs);

enum class StreamKind { kRead, kWrite };

// GB/s (1e9 bytes per second) of one thread per CPU in `cpus`, each pinned and streaming over
// its own share of `buf` (reading and summing 64-bit words, or writing it with memset), summed
// over the threads: `runs` timed runs of about `seconds` each. Each thread's share must hold at
// least one cache line.
std::vector<double> stream_gbs(const NodeBuffer& buf, const std::vector<int>& cpus, StreamKind kind,
                               double seconds, int runs);

}  // namespace numasim
