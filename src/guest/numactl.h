// Static bindings on the real kernel: with `policy = "numactl"` each process the workloads start
// from outside runs under its `[policy.numactl] processes` line (policy/numactl_args.h), as
// `numactl OPTIONS PROGRAM` would start it. busybox has no numactl, so the guest runner makes the
// two calls numactl makes before exec(): sched_setaffinity() and set_mempolicy().
//
// The k-th process started takes line k (the list repeating from its start), counted over the
// workloads in order as the model counts them (engine/process.cpp, `nr_exec_processes`): a
// streams workload starts each instance of each process from outside, autonumabench and cowsum
// start one process whose children fork from it and inherit its binding.
#pragma once

#include <string>
#include <vector>

#include "policy/numactl_args.h"

namespace numasim {
class TomlTable;
struct Topology;
}  // namespace numasim

namespace numasim::guest {

struct Context;

// The scenario's numactl lines parsed for `topo` when its [scenario] policy is "numactl" (with
// the overrides already applied); empty for any other policy. Throws NumactlError or InputError.
std::vector<NumactlBinding> read_numactl_bindings(const TomlTable& doc, const Topology& topo);

// How many processes workload table `t` (of type `type`) starts from outside.
int exec_processes(const TomlTable& t, const Topology& topo);

// The line for the process counted `process` from the run's start (nullptr: no bindings).
const NumactlBinding* binding_for(const std::vector<NumactlBinding>& lines, int process);

// Makes the calling process's affinity and task memory policy the binding's.
void apply_binding(const NumactlBinding& b, int nr_cpus);

// In a process just forked: binds it as the `k`-th process its workload starts from outside
// (ctx.first_process + k from the run's start); nothing without bindings.
void bind_as_started(const Context& ctx, int k);

}  // namespace numasim::guest
