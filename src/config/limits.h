// Upper bounds on what an input may ask for. Each is checked before anything is allocated, so
// that no scenario, machine file or option can exhaust memory, overflow the stack or keep the
// simulator busy for hours before saying no. docs/scenario.md lists them for users; a value
// beyond a bound is an InputError that names the key and the bound.
#pragma once

#include <cstdint>

namespace numasim {

// A TOML input (scenario, machine file, profile). The largest shipped file is ~10 KB; 4 MiB
// leaves room for generated sweeps and stops `numasim run /dev/zero` from reading forever.
inline constexpr uint64_t kMaxInputFileBytes = uint64_t{4} << 20;
// Nesting of arrays and inline tables, and parts of one dotted key, in a TOML input. The TOML
// parser recurses once per level; the deepest shipped structure is 4 levels, and 32 keeps
// 50 000-part headers from overflowing the stack.
inline constexpr int kMaxTomlNesting = 32;
inline constexpr int kMaxTomlKeyParts = 32;

// Tasks (processes times threads) one workload may create. Linux's default pid_max is 32768
// (include/linux/threads.h PID_MAX_DEFAULT); the largest machine a file may describe has 8192
// CPUs, and every task costs per-tick scheduler work, so 16384 (two per CPU) bounds both the
// setup memory and the simulated time per tick.
inline constexpr int64_t kMaxTasks = 16384;

// Simulated duration of one run. Simulation cost grows with NUMA events, and the scan and tick
// events grow with simulated time: a day of simulated time is far beyond any benchmark in
// mmtests (the longest, specjbb sweeps, run well under an hour) and still finishes.
inline constexpr int64_t kMaxDurationSeconds = 24 * 3600;

// Program phases the tasks of one workload may start per simulated second, on average over the
// run. The engine does a phase's work at each start (the task's access mix and its share of the
// machine are computed again), so a phase of 1 ns repeated 2^63 times, or a loop of phases that
// take no time, kept the simulator busy without end. A million a second is a phase change every
// 16 ms for each of 16384 tasks, four ticks at HZ=250 (the finest grain at which the kernel's
// tick-driven balancing could tell phases apart), and at most a tenth of a second of host time
// per simulated second (measured: 500,000 starts of a 2 us streams phase in 0.08 s).
inline constexpr double kMaxPhaseStartsPerSecond = 1e6;

// A phase's rate: ten times the bandwidth of a whole HBM3 stack (~800 GB/s); more is a typo,
// and near-infinite rates make a phase's bytes per nanosecond overflow.
inline constexpr double kMaxRateGbs = 10000;
// A phase's own memory-level parallelism. No core keeps more than a few dozen cache misses in
// flight (its line fill buffers and L2 miss queue; the machine's `line_fill_buffers` caps a
// core's sum in the cost model), so 1024 is past any real figure; without a bound, the sum over
// a core's tasks overflowed to infinity and the cost model divided infinity by itself.
inline constexpr double kMaxPhaseMlp = 1024;

// A machine. CPUs: Linux's largest x86 configuration (CONFIG_MAXSMP: NR_CPUS 8192). Nodes: the
// largest single-system-image NUMA machines Linux runs on have 256 (SGI UV 3000, 256 sockets);
// setup grows faster than the square of the node count (SLIT, sched domains), so 256 nodes take
// ~2 s and 1024 (NODES_SHIFT 10) took minutes.
inline constexpr int64_t kMaxCpus = 8192;
inline constexpr int64_t kMaxNodes = 256;
// A memory policy's node mask is one 64-bit word (MemPolicy::nodes in mm/mempolicy.h), so a
// policy or a bound first touch can name nodes 0..63 only; larger machines run with policies
// over their first 64 nodes.
inline constexpr int64_t kMaxPolicyNodes = 64;
// An lstopo XML export: one of an 8192-CPU machine is a few MiB.
inline constexpr uint64_t kMaxHwlocXmlBytes = uint64_t{64} << 20;
// Time libhwloc may take to load one (in a child process, machine/hwloc_child.h). A 6 MB export
// of a 256-node, 8192-PU machine loads in about 0.3 s, so a file at the size limit takes a few
// seconds; a loader still busy after a minute is stuck.
inline constexpr int kMaxHwlocLoadSeconds = 60;

// Memory of one NUMA node: 64 TiB is the physical address space of 4-level x86-64 paging
// (46 bits); the model keeps a few bits per page, so larger figures would exhaust the host.
inline constexpr uint64_t kMaxNodeMemoryBytes = uint64_t{64} << 40;

// Draws of `compare --uncertainty N` and `validate --uncertainty N` (experiment/uncertainty.h).
// Each draw runs the whole comparison again, so N multiplies its cost: a thousand draws of the
// quickest shipped comparison is already hours of CPU, and more is a typing slip (1e6 for 16)
// rather than a study.
inline constexpr int kMaxUncertaintyDraws = 1000;
// The draws of `validate --uncertainty` without a count: the least and greatest of 8 independent
// draws bracket the median of an effect's distribution over the ranges with probability
// 1 - 2 * 0.5^8 > 99 %, at 8 times the validation's cost.
inline constexpr int kDefaultUncertaintyDraws = 8;

}  // namespace numasim
