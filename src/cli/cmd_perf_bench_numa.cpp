// numasim perf-bench-numa mem [perf bench numa options]
//
// Accepts `perf bench numa mem`'s options (tools/perf/bench/numa.c), runs the perf-bench-numa
// workload model on the chosen machine and kernel profile, and prints perf's result lines.
#include <fmt/format.h>

#include <cstdio>

#include "cli/commands.h"
#include "cli/runner.h"
#include "cli/scenario.h"
#include "cli/scenario_options.h"
#include "config/input_error.h"
#include "report/perf_bench_numa_print.h"

namespace numasim {

namespace {

// perf bench numa's defaults (init_params in numa.c): mb_global "1", one process, one thread,
// 5 seconds, reads, writes, backwards and random walk on.
struct PerfOptions {
    int nr_proc = 1, nr_threads = 1;
    double mb_global = 1, mb_proc = 0, mb_proc_locked = 0, mb_thread = 0;
    int64_t nr_loops = -1;
    double nr_secs = 5;
    bool zero_memset = false, bzero = false, init_cpu0 = false, measure_convergence = false;
    bool show_convergence = false, rand_walk = false, no_rand_walk = false, reads = false;
    bool writes = false, backwards = false, quiet = false;
    int thp = 0, perturb_secs = 0;
};

class PerfBenchNumaCommand : public Command {
  public:
    void add_to(CLI::App& app) override {
        sub_ = app.add_subcommand("perf-bench-numa",
                                  "perf bench numa mem on the simulated machine (perf's options)");
        sub_->add_option("collection", collection_, "benchmark (only \"mem\")")
            ->required()
            ->check(CLI::IsMember({"mem"}));
        auto* s = sub_;
        s->add_option("-p,--nr_proc", o_.nr_proc, "number of processes");
        s->add_option("-t,--nr_threads", o_.nr_threads, "number of threads per process");
        s->add_option("-G,--mb_global", o_.mb_global, "global memory (MBs)");
        s->add_option("-P,--mb_proc", o_.mb_proc, "process memory (MBs)");
        s->add_option("-L,--mb_proc_locked", o_.mb_proc_locked,
                      "process serialized/locked memory access (MBs), <= process_memory");
        s->add_option("-T,--mb_thread", o_.mb_thread, "thread memory (MBs)");
        s->add_option("-l,--nr_loops", o_.nr_loops,
                      "max number of loops to run (default: unlimited)");
        s->add_option("-s,--nr_secs", o_.nr_secs, "max number of seconds to run (default: 5 secs)");
        s->add_flag("-z,--init_zero", o_.zero_memset, "bzero the initial allocations");
        s->add_flag("-Z,--bzero", o_.bzero, "bzero the memory instead of reading/writing");
        s->add_flag("-0,--init_cpu0", o_.init_cpu0, "do the initial allocations on CPU#0");
        s->add_flag("-m,--measure_convergence", o_.measure_convergence,
                    "measure convergence latency");
        s->add_flag("-c,--show_convergence", o_.show_convergence, "show convergence details");
        s->add_flag("-r,--data_rand_walk", o_.rand_walk, "access the data via random walk");
        s->add_flag("--no-data_rand_walk", o_.no_rand_walk, "no random walk");
        s->add_flag("-R,--data_reads", o_.reads,
                    "access the data via reads (can be mixed with -W)");
        s->add_flag("-W,--data_writes", o_.writes,
                    "access the data via writes (can be mixed with -R)");
        s->add_flag("-B,--data_backwards", o_.backwards, "access the data backwards as well");
        s->add_option("-H,--thp", o_.thp, "MADV_NOHUGEPAGE < 0 < MADV_HUGEPAGE");
        s->add_option("-x,--perturb_secs", o_.perturb_secs, "perturb thread 0/0 every X secs");
        s->add_flag("-q,--quiet", o_.quiet, "quiet mode");
        s->add_flag("--json", json_, "print one JSON object instead of perf's lines");
        opts_.add_to(*s);
    }

    int execute() override {
        // Explicit -R/-W/-B/-r select those access kinds only, as in numa.c.
        const bool explicit_kind = o_.reads || o_.writes || o_.backwards || o_.rand_walk;
        std::string text = fmt::format(
            "[scenario]\nname = \"perf bench numa mem\"\nmachine = \"tiny-2n\"\nduration = "
            "\"{}s\"\n"
            "[[workload]]\ntype = \"perf-bench-numa\"\n"
            "nr_proc = {}\nnr_threads = {}\nmb_global = {}\nmb_proc = {}\nmb_proc_locked = {}\n"
            "mb_thread = {}\nnr_loops = {}\nnr_secs = {}\nzero_memset = {}\nbzero = {}\n"
            "init_cpu0 = {}\nmeasure_convergence = {}\nshow_convergence = {}\n"
            "data_rand_walk = {}\ndata_reads = {}\ndata_writes = {}\ndata_backwards = {}\n"
            "serialize_startup = {}\nthp = {}\nperturb_secs = {}\n",
            o_.nr_secs + 60, o_.nr_proc, o_.nr_threads, o_.mb_global, o_.mb_proc, o_.mb_proc_locked,
            o_.mb_thread, o_.nr_loops, o_.nr_secs, o_.zero_memset, o_.bzero, o_.init_cpu0,
            o_.measure_convergence, o_.show_convergence,
            explicit_kind ? o_.rand_walk : !o_.no_rand_walk, explicit_kind ? o_.reads : true,
            explicit_kind ? o_.writes : true, explicit_kind ? o_.backwards : true,
            true /* numa.c starts tasks serialized by default */, o_.thp, o_.perturb_secs);
        ScenarioOverrides ov = opts_.overrides();
        if (!ov.machine) ov.machine = "tiny-2n";
        const Scenario sc = load_scenario_text(text, "perf-bench-numa options", ov);
        const RunResult r = run_once(sc, sc.seed);
        const nlohmann::json& m = r.workloads.front();
        std::string out;
        if (json_) {
            out = result_json(sc, r).dump(2) + "\n";
        } else {
            PerfBenchNumaRaw raw;
            raw.name = m.value("name", "main,");
            raw.measure_convergence = o_.measure_convergence;
            raw.runtime_sec_max = m.value("runtime_sec_max", 0.0);
            raw.runtime_sec_min = m.value("runtime_sec_min", 0.0);
            raw.runtime_sec_avg = m.value("runtime_sec_avg", 0.0);
            raw.bytes = m.value("bytes", 0.0);
            raw.nr_tasks = m.value("nr_tasks", int64_t{1});
            out = fmt::format(" # Running 'numa/mem' benchmark on {} (profile {}):\n\n",
                              sc.machine.name, sc.profile);
            out += render_perf_bench_numa(raw, o_.quiet);
        }
        std::fwrite(out.data(), 1, out.size(), stdout);
        return 0;
    }

  private:
    std::string collection_;
    PerfOptions o_;
    bool json_ = false;
    ScenarioOptions opts_;
};

}  // namespace

std::unique_ptr<Command> make_perf_bench_numa_command() {
    return std::make_unique<PerfBenchNumaCommand>();
}

}  // namespace numasim
