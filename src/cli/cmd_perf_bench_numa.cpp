// numasim perf-bench-numa mem [perf bench numa options]
//
// Accepts `perf bench numa mem`'s options (tools/perf/bench/numa.c) straight into the
// perf-bench-numa workload's parameters, runs it on the chosen machine and kernel profile, and
// prints perf's result lines.
#include <fmt/format.h>

#include <cstdio>
#include <variant>

#include "cli/commands.h"
#include "cli/scenario_options.h"
#include "cli/value_hints.h"
#include "experiment/perf_bench_numa.h"
#include "report/perf_bench_numa_print.h"
#include "report/run_report.h"

namespace numasim {

namespace {

class PerfBenchNumaCommand : public Command {
  public:
    void add_to(CLI::App& app) override {
        sub_ = app.add_subcommand("perf-bench-numa",
                                  "perf bench numa mem on the simulated machine (perf's options)");
        one_of(sub_->add_option("collection", collection_, "benchmark (only \"mem\")"), {"mem"})
            ->required();
        auto* s = sub_;
        s->add_option("-p,--nr_proc", p_.nr_proc, "number of processes");
        s->add_option("-t,--nr_threads", p_.nr_threads, "number of threads per process");
        s->add_option("-G,--mb_global", p_.mb_global, "global memory (MBs)");
        s->add_option("-P,--mb_proc", p_.mb_proc, "process memory (MBs)");
        s->add_option("-L,--mb_proc_locked", p_.mb_proc_locked,
                      "process serialized/locked memory access (MBs), <= process_memory");
        s->add_option("-T,--mb_thread", p_.mb_thread, "thread memory (MBs)");
        s->add_option("-l,--nr_loops", p_.nr_loops,
                      "max number of loops to run (default: unlimited)");
        s->add_option("-s,--nr_secs", p_.nr_secs, "max number of seconds to run (default: 5 secs)");
        s->add_flag("-z,--init_zero", p_.zero_memset, "bzero the initial allocations");
        s->add_flag("-Z,--bzero", p_.bzero, "bzero the memory instead of reading/writing");
        s->add_flag("-0,--init_cpu0", p_.init_cpu0, "do the initial allocations on CPU#0");
        s->add_flag("-m,--measure_convergence", p_.measure_convergence,
                    "measure convergence latency");
        s->add_flag("-c,--show_convergence", p_.show_convergence, "show convergence details");
        s->add_flag("-r,--data_rand_walk", rand_walk_, "access the data via random walk");
        s->add_flag("--no-data_rand_walk", no_rand_walk_, "no random walk");
        s->add_flag("-R,--data_reads", reads_, "access the data via reads (can be mixed with -W)");
        s->add_flag("-W,--data_writes", writes_,
                    "access the data via writes (can be mixed with -R)");
        s->add_flag("-B,--data_backwards", backwards_, "access the data backwards as well");
        s->add_option("-H,--thp", p_.thp, "MADV_NOHUGEPAGE < 0 < MADV_HUGEPAGE");
        s->add_option("-x,--perturb_secs", p_.perturb_secs, "perturb thread 0/0 every X secs");
        s->add_flag("-q,--quiet", quiet_, "quiet mode");
        s->add_flag("--json", json_, "print one JSON object instead of perf's lines");
        opts_.add_to(*s);
    }

    int execute() override {
        // Explicit -R/-W/-B/-r select those access kinds only, as in numa.c.
        const bool explicit_kind = reads_ || writes_ || backwards_ || rand_walk_;
        p_.data_rand_walk = explicit_kind ? rand_walk_ : !no_rand_walk_;
        p_.data_reads = !explicit_kind || reads_;
        p_.data_writes = !explicit_kind || writes_;
        p_.data_backwards = !explicit_kind || backwards_;
        const PerfBenchNumaRun run = run_perf_bench_numa(p_, opts_.overrides());
        std::string out;
        if (json_) {
            out = result_json(run.scenario, run.result).dump(2) + "\n";
        } else {
            out = fmt::format(" # Running 'numa/mem' benchmark on {} (profile {}):\n\n",
                              run.scenario.machine.name, run.scenario.profile);
            out += render_perf_bench_numa(
                std::get<PerfBenchNumaRaw>(run.result.workloads.front().extra), quiet_);
        }
        std::fwrite(out.data(), 1, out.size(), stdout);
        return 0;
    }

  private:
    std::string collection_;
    PerfBenchNumaParams p_;
    bool rand_walk_ = false, no_rand_walk_ = false, reads_ = false, writes_ = false;
    bool backwards_ = false, quiet_ = false, json_ = false;
    ScenarioOptions opts_;
};

}  // namespace

std::unique_ptr<Command> make_perf_bench_numa_command() {
    return std::make_unique<PerfBenchNumaCommand>();
}

}  // namespace numasim
