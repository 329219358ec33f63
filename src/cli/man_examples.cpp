#include "cli/man_examples.h"

#include <map>

namespace numasim {

const std::vector<ManExample>& man_examples(const std::string& page) {
    static const std::map<std::string, std::vector<ManExample>> examples = {
        {"numasim",
         {{"numasim run", "Run the built-in default scenario on a 2-node machine."},
          {"numasim compare experiments/inactive-vma-numa01-threadlocal.toml",
           "A/B a policy change: the scenario under its variants, as mmtests compare tables."},
          {"numasim machines show haswell-2s",
           "A machine preset as numactl -H prints it, with its hardware figures."}}},
        {"numasim-run",
         {{"numasim run examples/knobs.toml --duration 10s --sample 500ms --out-dir knobs-run",
           "Run a scenario for 10 simulated seconds and record its time series under knobs-run/."},
          {"numasim run examples/cowsum.toml --proc-vmstat --iterations 1",
           "Print the run's /proc/vmstat, for diff against a real kernel's."},
          {"numasim run examples/knobs.toml --duration 2s --trace run.dat --trace-format "
           "trace-dat --iterations 1",
           "Record the scheduler and NUMA tracepoints as a trace.dat for trace-cmd report."},
          {"numasim run --duration 30s --damon-record run.json",
           "Write what DAMON's virtual-address monitoring would have recorded of the run, as "
           "damo's JSON record, for numasim import damon."},
          {"numasim run --duration 30s --perf-mem-record run.txt --perf-mem-freq 1000",
           "Write the samples perf mem record would have taken of each thread, 1000 a second, "
           "as perf script prints them, for numasim import perf-mem."},
          {"numasim run examples/knobs.toml --duration 10s --latency --latency-per process",
           "Histograms of the time NUMA balancing takes from each process, as bcc's funclatency "
           "prints them, with p50, p90, p99 and p99.9."}}},
        {"numasim-compare",
         {{"numasim compare experiments/inactive-vma-numa01-threadlocal.toml",
           "The scenario under its [[variant]] tables, N iterations each."},
          {"numasim compare examples/knobs.toml --set smallimp=0,1 --naming dot",
           "Each value of a knob as a column, best-mean rows named as mmtests does today."},
          {"numasim compare experiments/inactive-vma-numa01-threadlocal.toml --uncertainty 8",
           "The same, then each effect's range over 8 draws of the model's cost figures from "
           "their published ranges, and whether its sign holds in all of them."},
          {"numasim compare examples/variants.toml --latency",
           "The percentiles of what balancing takes from the tasks, as mmtests' Lat rows."},
          {"numasim compare examples/request-serving.toml",
           "A service's request latency percentiles and throughput with numa_balancing on, off "
           "and the service bound to one node."}}},
        {"numasim-sweep",
         {{"numasim sweep examples/sweeps/smallimp-threshold.toml -o smallimp",
           "Every case of a sweep spec, one JSON per case, sweep.csv and compare tables."},
          {"numasim sweep examples/knobs.toml --seeds 1..20 --shard 1/4 -o part1",
           "The first of four slices of a seed sweep, for a batch system."}}},
        {"numasim-gather",
         {{"numasim gather part1 part2 part3 part4 -o whole",
           "The shards of a sweep combined into the directory one run of it writes."}}},
        {"numasim-validate",
         {{"numasim validate --quick --strict",
           "The seed postings' experiments at reduced scale; exit 1 on a missed direction."},
          {"numasim validate --quick --uncertainty",
           "The same with each effect's predicted range over 8 draws of the cost figures, and "
           "whether the published figure lies inside it."}}},
        {"numasim-oracle",
         {{"numasim oracle experiments/oracle-numa01tl-2n.toml",
           "Boot Debian's kernel under qemu on the scenario's machine, run the workload in it "
           "and print its counters beside the model's."},
          {"numasim oracle experiments/oracle-numa01tl-2n.toml --kernel-package "
           "linux-image-6.12-amd64 --damon-record tl-damon.txt",
           "The same on Debian's 6.12 kernel (the model runs profile v6.12), with DAMON "
           "monitoring the workload; numasim import damon reads the record."}}},
        {"numasim-import",
         {{"numasim import damon damon.data -o replay.toml",
           "A damo record (its default zlib-compressed JSON) as a streams scenario."},
          {"perf script -i perf.data > mem.txt && numasim import perf-mem mem.txt -o replay.toml",
           "The samples of perf mem record (or perf c2c record), with perf script's default "
           "fields, as a streams scenario."},
          {"perf script -F pid,tid,time,addr,data_src > mem.txt && numasim import perf-mem "
           "mem.txt --period 5000 --maps maps.txt",
           "Samples printed without their period, recorded with perf mem record -c 5000, and "
           "the process's /proc/PID/maps."},
          {"numasim import perf-mem mem.txt --machine cascadelake-2s --cpus-from-samples",
           "Samples recorded on a cascadelake-2s: each thread sampled on one node's CPUs is "
           "pinned there."}}},
        {"numasim-import-damon",
         {{"numasim import damon damon.json --sched sched.txt --phase 10s -o replay.toml",
           "A damo JSON record in 10-second phases, with the thread count of /proc/PID/sched."},
          {"perf script -i perf.data > damon.txt && numasim import damon damon.txt --aggr-us "
           "100000",
           "The damon:damon_aggregated tracepoint as perf prints it."}}},
        {"numasim-perf-bench-numa",
         {{"numasim perf-bench-numa mem -p 2 -t 4 -P 512 -zZ0qcm",
           "perf bench numa mem with perf's options, on the simulated machine."}}},
        {"numasim-machines",
         {{"numasim machines", "The machine presets."},
          {"numasim machines show hwloc:examples/machines/two-nodes.xml",
           "A machine from an lstopo XML file, imported through hwloc."},
          {"numasim machines show hwloc:host", "The machine numasim runs on, through hwloc."}}},
        {"numasim-calibrate",
         {{"numasim calibrate -o host.toml",
           "Measure this host's latency and bandwidth per node pair (under a minute) into a "
           "machine file."},
          {"numasim calibrate --like cascadelake-2s --time-budget 2min -o host.toml",
           "Measure for two minutes; the figures it cannot measure come from cascadelake-2s."},
          {"numasim run examples/knobs.toml --machine host.toml",
           "Run a scenario on the measured machine."}}},
        {"numasim-workloads", {{"numasim workloads", "The workload models and what each is."}}},
        {"numasim-policies",
         {{"numasim policies", "The placement policies and what each decides."},
          {"numasim compare examples/placement-policies.toml -V kernel:policy=mainline -V "
           "bound:policy=numactl",
           "The kernel's NUMA balancing beside static numactl bindings."},
          {"numasim compare examples/policy-plugin/scenario.toml --policy-plugin "
           "build/libsecond_fault.so",
           "A policy built outside the tree (examples/policy-plugin) beside mainline."}}},
        {"numasim-profiles",
         {{"numasim profiles", "The kernel profiles."},
          {"numasim profiles show v6.1 --set smallimp=0",
           "Every knob of v6.1 with smallimp overridden, and what set each."}}},
        {"numasim-report",
         {{"numasim report knobs-run", "Write knobs-run/report.html from a sampled run."}}},
        {"numasim-completion",
         {{"numasim completion bash > ~/.local/share/bash-completion/completions/numasim",
           "Complete numasim's commands, options and values in bash."},
          {"numasim completion zsh > ~/.zfunc/_numasim",
           "The same for zsh (with ~/.zfunc in fpath)."}}},
        {"numasim-man",
         {{"numasim man run | man -l -", "Read numasim-run(1) without installing it."},
          {"numasim man --out-dir man1", "Write every page, as the build does."}}},
    };
    static const std::vector<ManExample> none;
    const auto it = examples.find(page);
    return it == examples.end() ? none : it->second;
}

}  // namespace numasim
