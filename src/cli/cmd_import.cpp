// numasim import damon PROFILE [--format json|trace|sysfs] [--phase 1s] [--blocks N]
//                              [--threads N | --sched FILE] [--maps FILE] [--machine M]
//                              [-o OUT.toml]
// numasim import perf-mem SAMPLES [--period N] [--phase 1s] [--blocks N] [--maps FILE]
//                                 [--machine M] [--cpus-from-samples] [-o OUT.toml]
#include <fmt/format.h>

#include <cstdio>

#include "cli/commands.h"
#include "cli/output_file.h"
#include "cli/value_hints.h"
#include "config/input_error.h"
#include "config/limits.h"
#include "config/toml_reader.h"
#include "machine/presets.h"
#include "machine/topology.h"
#include "replay/damon_import.h"
#include "replay/perf_mem_import.h"

namespace numasim {

namespace {

// The longest phase: a phase is the grain of the replay; an hour of one unchanging phase says
// no more than a scenario written by hand.
constexpr int64_t kMaxPhaseNs = int64_t{3600} * 1000000000;

class ImportCommand : public Command {
  public:
    void add_to(CLI::App& app) override {
        sub_ = app.add_subcommand("import",
                                  "turn an access profile recorded on a real machine into a "
                                  "scenario (docs/replay.md)");
        sub_->require_subcommand(1);
        damon_ = sub_->add_subcommand(
            "damon",
            "a DAMON profile (damo record's JSON, compressed or not, the damon_aggregated trace "
            "text, a sysfs tried_regions directory) as a streams scenario");
        hint_file(damon_->add_option("profile", path_, "the profile file or directory"))
            ->required();
        hint_words(damon_->add_option("--format", format_,
                                      "json | trace | sysfs (default: from the content)"),
                   {"json", "trace", "sysfs"})
            ->check(CLI::IsMember({"json", "trace", "sysfs"}));
        damon_
            ->add_option("--sample-us", o_.sample_us,
                         "DAMON's sampling interval in us, for trace and sysfs (default 5000)")
            ->check(CLI::Range(int64_t{1}, int64_t{1} << 40));
        damon_
            ->add_option("--aggr-us", o_.aggr_us,
                         "DAMON's aggregation interval in us, for trace and sysfs (default "
                         "100000)")
            ->check(CLI::Range(int64_t{1}, int64_t{1} << 40));
        damon_->add_option("--phase", phase_, "length of one scenario phase (default 1s)");
        damon_
            ->add_option("--blocks", o_.blocks,
                         "memory regions per target over its address ranges (default 16)")
            ->check(CLI::Range(int64_t{1}, kMaxReplayBlocks));
        damon_
            ->add_option("--threads", o_.threads,
                         "threads per process (default: from --sched, else 1)")
            ->check(CLI::Range(int64_t{1}, kMaxTasks));
        hint_file(damon_->add_option("--sched", o_.sched_file,
                                     "a copy of /proc/PID/sched: the process's comm and "
                                     "thread count"));
        hint_file(damon_->add_option("--maps", o_.maps_file,
                                     "a copy of /proc/PID/maps or /proc/PID/numa_maps: blocks "
                                     "cut at the mappings and named after them"));
        hint_machine(damon_->add_option("--machine", o_.machine,
                                        "the scenario's machine (default cascadelake-2s)"));
        hint_file(damon_->add_option("-o,--output", out_,
                                     "the scenario file (default: standard "
                                     "output)"),
                  "toml");

        perf_ = sub_->add_subcommand(
            "perf-mem",
            "the samples of perf mem record or perf c2c record, as perf script prints them "
            "(its default fields, or -F with tid,time,addr,data_src and period), as a streams "
            "scenario");
        hint_file(perf_->add_option("samples", perf_path_, "the perf script text"))->required();
        perf_
            ->add_option("--period", perf_o_.period,
                         "events per sample, for samples printed without the period field "
                         "(perf mem record -c N)")
            ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 40));
        perf_->add_option("--phase", perf_phase_, "length of one scenario phase (default 1s)");
        perf_
            ->add_option("--blocks", perf_o_.blocks,
                         "memory regions per process over its address ranges (default 16)")
            ->check(CLI::Range(int64_t{1}, kMaxReplayBlocks));
        hint_file(perf_->add_option("--maps", perf_o_.maps_file,
                                    "a copy of /proc/PID/maps or /proc/PID/numa_maps: blocks "
                                    "cut at the mappings and named after them"));
        hint_machine(perf_->add_option("--machine", perf_o_.machine,
                                       "the scenario's machine (default cascadelake-2s)"));
        perf_->add_flag("--cpus-from-samples", perf_cpus_,
                        "pin each thread whose samples all came from CPUs of one node of "
                        "--machine to that node (for samples recorded on that machine)");
        hint_file(
            perf_->add_option("-o,--output", out_, "the scenario file (default: standard output)"),
            "toml");
    }

    int execute() override {
        if (perf_->parsed()) return execute_perf_mem();
        if (format_ == "json") o_.format = DamonFormat::kJson;
        if (format_ == "trace") o_.format = DamonFormat::kTrace;
        if (format_ == "sysfs") o_.format = DamonFormat::kSysfs;
        o_.phase_ns = phase_ns(phase_);
        if (o_.sample_us > o_.aggr_us)
            throw InputError("--sample-us", "", "longer than the aggregation interval");
        // The whole text is made before anything is written: a bad profile leaves no file.
        const std::string text = import_damon(path_, o_);
        std::vector<std::string> inputs = {path_};
        if (!o_.sched_file.empty()) inputs.push_back(o_.sched_file);
        if (!o_.maps_file.empty()) inputs.push_back(o_.maps_file);
        write_output_file("--output", out_, text, inputs);
        return 0;
    }

  private:
    int execute_perf_mem() {
        perf_o_.phase_ns = phase_ns(perf_phase_);
        if (perf_cpus_) {
            const Topology topo = resolve_machine(perf_o_.machine, "", "--machine", false);
            for (int c = 0; c < topo.nr_cpus(); ++c)
                perf_o_.cpu_nodes.push_back(topo.node_of(c));
        }
        // The whole text is made before anything is written: bad samples leave no file.
        const std::string text = import_perf_mem(perf_path_, perf_o_);
        std::vector<std::string> inputs = {perf_path_};
        if (!perf_o_.maps_file.empty()) inputs.push_back(perf_o_.maps_file);
        write_output_file("--output", out_, text, inputs);
        return 0;
    }

    static int64_t phase_ns(const std::string& text) {
        const auto ns = parse_duration_ns(text);
        if (!ns || *ns <= 0 || *ns > kMaxPhaseNs)
            throw InputError("--phase", "", "not a duration from 1ns to 1h: " + text);
        return *ns;
    }

    CLI::App* damon_ = nullptr;
    CLI::App* perf_ = nullptr;
    std::string perf_path_, perf_phase_ = "1s";
    PerfMemImportOptions perf_o_;
    bool perf_cpus_ = false;
    std::string path_, format_, phase_ = "1s", out_ = "-";
    DamonImportOptions o_;
};

}  // namespace

std::unique_ptr<Command> make_import_command() {
    return std::make_unique<ImportCommand>();
}

}  // namespace numasim
