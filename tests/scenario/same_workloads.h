// The workloads that more than one same-outcome test (same_outcome.h) runs twice, once with an
// engine or scheduler shortcut and once without: each stresses a different way a settled CPU
// is disturbed.
#pragma once

namespace numasim::sametest {

// NUMA01_THREADLOCAL: one thread per CPU, each over its own part of the buffer. Under v6.6 the
// VMA selection leaves the buffer alone once the threads settle, so nothing disturbs them; the
// v6.12 scanner marks their memory again and again.
inline constexpr const char* kThreadlocal =
    "[[workload]]\ntype='autonumabench'\ntest='NUMA01_THREADLOCAL'\nsize='256MiB'\n";

// NUMA01: every thread sweeps the whole shared buffer, so pages migrate under the others' feet.
inline constexpr const char* kNuma01 =
    "[[workload]]\ntype='autonumabench'\ntest='NUMA01'\nsize='256MiB'\n";

// perf bench numa mem -p 2 -t 4 -P 128 sweeping: faults, migrations and TLB shootdowns.
inline constexpr const char* kPerfBenchSweep =
    "[[workload]]\ntype='perf-bench-numa'\nnr_proc=2\nnr_threads=4\nmb_proc=128\n"
    "data_rand_walk=false\n";

// Four threads settle on the four CPUs of tiny-2n; then two more wake every few seconds and
// run for a while: they are placed on settled CPUs, and the balancer moves tasks off and onto
// them.
inline constexpr const char* kLateArrivals = R"([[workload]]
type = "streams"
[[workload.process]]
name = "settled"
threads = 4
[[workload.process.region]]
name = "own"
size = "32MiB"
[[workload.process.thread]]
loop = true
phases = [ { streams = [ { region = "own", per_thread = true } ], rate_gbs = 4.0, cpu_time = "10s" } ]
[[workload.process]]
name = "late"
threads = 2
[[workload.process.region]]
name = "buf"
size = "16MiB"
[[workload.process.thread]]
loop = true
phases = [ { sleep = "2500ms" }, { streams = [ { region = "buf", per_thread = true } ], rate_gbs = 4.0, cpu_time = "700ms" } ]
)";

}  // namespace numasim::sametest
