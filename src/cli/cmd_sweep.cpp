// numasim sweep [SPEC.toml | SCENARIO.toml] [-o DIR] [--resume] [--shard I/N] [--along AXIS]
//               [--metric NAME]... [-V ...] [--machine a,b] [--set k=v1,v2] [--seeds 1..20] ...
//
// Under an MPI launcher (`mpirun -n N numasim sweep ...`) the runs spread over the ranks; rank
// 0 writes the output (experiment/job_cluster.h).
#include <fmt/format.h>

#include <unistd.h>

#include <cstdio>
#include <exception>
#include <filesystem>
#include <map>
#include <optional>

#include "cli/commands.h"
#include "cli/output_file.h"
#include "cli/policy_plugin_option.h"
#include "cli/scenario_options.h"
#include "cli/sweep_dir.h"
#include "cli/value_hints.h"
#include "config/input_error.h"
#include "experiment/job_cluster.h"
#include "experiment/run.h"
#include "experiment/scenario.h"
#include "experiment/sweep.h"
#include "report/progress.h"
#include "report/run_report.h"
#include "report/sweep_report.h"

namespace numasim {

namespace {

void print(const std::string& s) {
    std::fwrite(s.data(), 1, s.size(), stdout);
}

// The root's jobs as (case, iteration), for say_lost_runs.
const std::vector<std::pair<size_t, int>>* g_jobs = nullptr;

// Appends `v` in decimal at `p`.
char* put_number(char* p, size_t v) {
    char digits[20];
    int n = 0;
    do {
        digits[n++] = static_cast<char>('0' + v % 10);
        v /= 10;
    } while (v);
    while (n)
        *p++ = digits[--n];
    return p;
}

char* put_text(char* p, const char* s) {
    while (*s)
        *p++ = *s++;
    return p;
}

// What the root of an MPI sweep says when a signal ends it, as mpirun's does when any rank dies:
// the runs under way on each rank, whose cases are lost and which --resume runs again. A signal
// handler calls it: no allocation, one write(2).
void say_lost_runs(int fd) {
    constexpr size_t kMax = 32;
    JobCluster::RunningJob running[kMax];
    const size_t n = JobCluster::running_jobs(running, kMax);
    if (n == 0 || !g_jobs) return;
    char line[kMax * 48 + 128];
    char* p = put_text(line, "numasim: the sweep was ended with runs under way on ");
    for (size_t i = 0; i < n; ++i) {
        const auto [k, it] = (*g_jobs)[running[i].id];
        p = put_text(p, i ? "; rank " : "rank ");
        p = put_number(p, static_cast<size_t>(running[i].rank));
        p = put_number(put_text(p, ": case "), k);
        p = put_number(put_text(p, " (iteration "), static_cast<size_t>(it));
        *p++ = ')';
    }
    p = put_text(p, "; the finished cases are kept, --resume runs the others\n");
    (void)!::write(fd, line, static_cast<size_t>(p - line));
}

// While alive, a signal that ends the process makes it say_lost_runs of `jobs`.
class LostRunsNote {
  public:
    explicit LostRunsNote(const std::vector<std::pair<size_t, int>>& jobs) {
        g_jobs = &jobs;
        set_signal_note(say_lost_runs);
    }
    ~LostRunsNote() {
        set_signal_note(nullptr);
        g_jobs = nullptr;
    }
    LostRunsNote(const LostRunsNote&) = delete;
    LostRunsNote& operator=(const LostRunsNote&) = delete;
};

class SweepCommand : public Command {
  public:
    void add_to(CLI::App& app) override {
        sub_ = app.add_subcommand(
            "sweep",
            "run the cartesian product of value lists, machines, profiles, variants and seeds; "
            "one JSON per case, a CSV and mmtests compare tables in a directory (docs/sweeps.md)");
        hint_file(sub_->add_option("file", path_,
                                   "sweep spec (a [sweep] table) or scenario TOML file; the "
                                   "command line's lists add axes to it"),
                  "toml")
            ->required();
        hint_directory(sub_->add_option("-o,--out", out_,
                                        "output directory (default: FILE's stem + \"-sweep\")"));
        sub_->add_flag("--resume", resume_,
                       "keep the finished cases already in the output directory, run the rest");
        sub_->add_option("--shard", shard_,
                         "I/N: run only the I-th of N slices of the cases (Slurm arrays, GNU "
                         "parallel); numasim gather combines the directories");
        sub_->add_option("--along", along_, "the axis the compare tables run along");
        sub_->add_option("--metric", metrics_,
                         "a CSV metric column (repeatable; default: every operation, time and "
                         "counter)");
        sub_->add_option("-V,--variant", variants_,
                         "NAME:KEY=VALUE[,KEY=VALUE] as for compare: an axis of variants");
        opts_.add_to(*sub_);
        add_policy_plugin_option(*sub_, plugins_);
    }

    int execute() override {
        load_policy_plugins(plugins_);
        JobCluster cluster;
        return run(cluster);
    }

  private:
    // What a rank needs to take part: every rank expands the sweep and loads its scenarios; the
    // root alone also prepares the output directory and lists the jobs still to run.
    struct Plan {
        std::vector<SweepCase> cases;
        nlohmann::json header;
        Shard shard;
        std::map<size_t, Scenario> scenarios;
        std::vector<std::pair<size_t, int>> jobs;  // (case, iteration), alike on every rank
        std::string out;
        std::vector<size_t> pending;  // root: the jobs of the cases not yet in `out`
    };

    Plan plan(bool root) const {
        SweepDefinition d;
        read_sweep_file(path_, d);
        std::vector<Variant> vs;
        for (const auto& s : variants_)
            vs.push_back(parse_variant(s));
        add_variant_axis(d, std::move(vs), false);
        opts_.add_to_sweep(d);
        if (!along_.empty()) d.along = along_;
        if (!metrics_.empty()) d.metrics = metrics_;
        check_sweep_metrics(d.metrics);
        Plan p;
        p.cases = expand_sweep(d);
        p.header = sweep_header(d, p.cases.size());
        if (!shard_.empty()) p.shard = parse_shard(shard_);
        for (const auto& c : p.cases)
            if (p.shard.contains(c.index))
                p.scenarios.emplace(c.index, load_scenario_file(c.scenario, c.overrides));
        for (const auto& [k, sc] : p.scenarios)
            for (int i = 0; i < sc.iterations; ++i)
                p.jobs.emplace_back(k, i);
        p.out = !out_.empty() ? out_ : std::filesystem::path(path_).stem().string() + "-sweep";
        if (root) p.pending = pending_jobs(p.out, p.header, p.jobs);
        return p;
    }

    int run(JobCluster& cluster) {
        Plan p;
        std::exception_ptr error;
        try {
            p = plan(cluster.root());
        } catch (const InputError&) {
            error = std::current_exception();
        }
        // Before any rank waits for jobs, every rank learns whether all could prepare. The
        // root reports its own error; another rank reports its own only if the root had none
        // (a bad option fails everywhere and is reported once).
        const bool root_ok = cluster.root_agrees(!error);
        if (!cluster.all_agree(!error)) {
            if (cluster.root()) {
                if (error) std::rethrow_exception(error);
                throw InputError("mpirun", "",
                                 "another rank could not prepare the sweep (its error is above)");
            }
            if (error && root_ok) {
                try {
                    std::rethrow_exception(error);
                } catch (const InputError& e) {
                    fmt::print(stderr, "numasim: rank {}: error: {}\n", cluster.rank(), e.what());
                }
            }
            return 2;
        }
        // References, not a structured binding: clang 14 (the fuzz build, which links this
        // layer) cannot capture a structured binding in the lambdas below.
        const auto& cases = p.cases;
        const auto& header = p.header;
        const auto& shard = p.shard;
        const auto& scenarios = p.scenarios;
        const auto& jobs = p.jobs;
        const auto& out = p.out;
        const auto& pending = p.pending;

        // Runs of a case arrive in any order; the case is written once all are in.
        std::map<size_t, std::vector<std::string>> partial;
        size_t written = 0;
        // Ctrl-C: no new run starts, the running ones finish and their cases are written.
        std::optional<StopOnFirstSigint> sigint;
        std::optional<ProgressReporter> progress;
        std::optional<LostRunsNote> lost_runs_note;
        if (cluster.root()) {
            sigint.emplace();
            progress.emplace(pending.size());
            if (cluster.size() > 1) lost_runs_note.emplace(jobs);
        }
        cluster.run(
            pending, opts_.workers(),
            [&](size_t id) {
                const auto [k, i] = jobs[id];
                const Scenario& sc = scenarios.at(k);
                return result_json(sc, run_once(sc, iteration_seed(sc, i))).dump();
            },
            [&](size_t id, std::string result) {
                const auto [k, i] = jobs[id];
                auto& runs = partial[k];
                runs.resize(static_cast<size_t>(scenarios.at(k).iterations));
                runs[static_cast<size_t>(i)] = std::move(result);
                bool all = true;
                for (const auto& r : runs)
                    all = all && !r.empty();
                if (all) {
                    write_case_file(out, case_file_name(k, cases.size()),
                                    case_file_text(header, cases[k], runs));
                    partial.erase(k);
                    ++written;
                }
                progress->advance();
            },
            sigint ? &sigint->requested() : nullptr);
        if (!cluster.root()) return 0;
        lost_runs_note.reset();
        progress->finish();
        const bool stopped = sigint->requested();
        sigint.reset();

        CaseFiles all;
        read_case_files(out, all, &header);
        std::string missing;
        if (!complete(all, &missing)) {
            if (stopped) {
                fmt::print(stderr,
                           "numasim: stopped: {} case(s) written to {}, {}; --resume continues\n",
                           written, out, missing);
                return 130;
            }
            fmt::print(stderr,
                       "numasim sweep: shard {}/{}: {} case(s) in {}/cases, {}; combine the "
                       "shards' directories with `numasim gather`\n",
                       shard.index, shard.count, all.texts.size(), out, missing);
            return 0;
        }
        const SweepOutputs outputs = sweep_outputs(all);
        write_sweep_outputs(out, outputs);
        print(outputs.tables);
        return 0;
    }

    // Prepares the output directory; the jobs of the cases it does not hold yet.
    std::vector<size_t> pending_jobs(const std::string& out, const nlohmann::json& header,
                                     const std::vector<std::pair<size_t, int>>& jobs) const {
        std::filesystem::create_directories(std::filesystem::path(out) / "cases");
        remove_partial_files(out);
        CaseFiles done;
        read_case_files(out, done, &header);
        if (!done.texts.empty() && !resume_)
            throw InputError(out, "",
                             "holds cases of this sweep already: --resume continues it; or "
                             "choose another directory");
        std::vector<size_t> pending;
        for (size_t id = 0; id < jobs.size(); ++id)
            if (!done.texts.count(jobs[id].first)) pending.push_back(id);
        return pending;
    }

    std::string path_, out_, shard_, along_;
    std::vector<std::string> metrics_, variants_;
    bool resume_ = false;
    ScenarioOptions opts_;
    std::vector<std::string> plugins_;  // --policy-plugin
};

}  // namespace

std::unique_ptr<Command> make_sweep_command() {
    return std::make_unique<SweepCommand>();
}

}  // namespace numasim
