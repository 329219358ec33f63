// numasim oracle SCENARIO [--kernel PATH | --kernel-package NAME] [--damon-record FILE] [--boots N]
// [--json] [--sample INTERVAL] ...
#include <fmt/format.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>

#include "cli/commands.h"
#include "cli/output_file.h"
#include "cli/scenario_options.h"
#include "cli/value_hints.h"
#include "config/input_error.h"
#include "config/limits.h"
#include "config/toml_reader.h"
#include "experiment/oracle.h"
#include "report/oracle_report.h"

namespace numasim {

namespace {

class OracleCommand : public Command {
  public:
    void add_to(CLI::App& app) override {
        sub_ = app.add_subcommand(
            "oracle",
            "run the scenario on a real Linux kernel under qemu (emulated NUMA nodes) and print "
            "its counters beside the model's");
        hint_file(sub_->add_option("scenario", o_.scenario, "scenario TOML file"), "toml")
            ->required();
        hint_file(sub_->add_option("--kernel", o_.kernel,
                                   "boot this bzImage instead of Debian's kernel package"));
        // Debian 12's default kernel and its bookworm-security 6.12 one (which has DAMON).
        hint_words(sub_->add_option("--kernel-package", o_.kernel_package,
                                    "boot this Debian kernel package instead of linux-image-amd64 "
                                    "(e.g. linux-image-6.12-amd64; fetched with apt-get download, "
                                    "cached)"),
                   {kDebianDefaultKernelPackage, "linux-image-6.12-amd64"});
        hint_file(
            sub_->add_option("--damon-record", damon_record_,
                             "monitor the guest's workload with DAMON and write its record "
                             "(trace text for `numasim import damon`); needs a DAMON kernel"));
        sub_->add_option("--boots", o_.boots,
                         fmt::format("boots of the real kernel, 1..{} (min/median/max over them)",
                                     kMaxOracleBoots))
            ->check(CLI::Range(1, kMaxOracleBoots));
        sub_->add_option("--variant", o_.variant, "apply the scenario's [[variant]] of this name");
        sub_->add_option("--sample", sample_,
                         "read the guest's /proc/vmstat every INTERVAL (e.g. 1s) during the run");
        one_of(
            sub_->add_option("--accel", o_.accel, "auto (KVM if a probe boot works), kvm or tcg"),
            {"auto", "kvm", "tcg"});
        sub_->add_option("--max-vcpus", o_.limits.max_vcpus,
                         "scale the machine down to at most this many vCPUs")
            ->check(CLI::Range(int64_t{1}, kMaxCpus));
        sub_->add_option("--guest-memory", memory_,
                         "scale the machine down to at most this much guest memory (e.g. 6GiB)");
        hint_directory(sub_->add_option(
            "--cache", o_.cache_dir, "kernel and probe cache (default ~/.cache/numasim/oracle)"));
        hint_file(sub_->add_option("--guest", o_.guest_binary,
                                   "the numasim-guest executable (default: beside numasim, else "
                                   "../libexec/numasim/ from it, where cmake --install puts it)"));
        hint_file(sub_->add_option("--busybox", o_.busybox, "a static busybox"));
        hint_file(sub_->add_option("--qemu", o_.qemu, "the qemu-system-x86_64 executable"));
        hint_directory(
            sub_->add_option("--log-dir", o_.log_dir, "keep each boot's console log here"));
        sub_->add_option("--timeout", o_.timeout_s, "seconds per boot before qemu is killed")
            ->check(CLI::Range(1.0, static_cast<double>(kMaxDurationSeconds)));
        sub_->add_flag("--json", json_, "print one JSON object");
        opts_.add_to(*sub_);
    }

    int execute() override {
        o_.overrides = opts_.overrides();
        o_.jobs = opts_.workers();
        // CLI::Range lets NaN through (every comparison with it is false).
        if (std::isnan(o_.timeout_s)) throw InputError("--timeout", "", "not a number");
        if (!sample_.empty()) {
            const auto ns = parse_duration_ns(sample_);
            if (!ns || *ns <= 0)
                throw InputError("command line", "--sample", "not a duration: " + sample_);
            o_.sample = *ns;
        }
        if (!memory_.empty()) {
            const auto b = parse_size(memory_);
            if (!b || *b == 0)
                throw InputError("command line", "--guest-memory", "not a size: " + memory_);
            o_.limits.max_mem_bytes = *b;
        }
        // Progress goes to a terminal only, so that logs and pipes keep just the report.
        if (isatty(2)) o_.status = [](const std::string& s) { fmt::print(stderr, "{}\n", s); };
        o_.write_log = [this](const std::string& path, const std::string& text) {
            write_output_file(o_.log_dir.empty() ? "--cache" : "--log-dir", path, text,
                              {o_.scenario});
        };
        if (!damon_record_.empty())
            o_.write_damon_record = [this](const std::string& text) {
                write_output_file("--damon-record", damon_record_, text, {o_.scenario});
            };
        const OracleResult r = run_oracle(o_);
        const std::string out = json_ ? oracle_json(r).dump(2) + "\n" : oracle_text(r);
        std::fwrite(out.data(), 1, out.size(), stdout);
        return 0;
    }

  private:
    OracleOptions o_;
    std::string sample_, memory_, damon_record_;
    bool json_ = false;
    ScenarioOptions opts_;
};

}  // namespace

std::unique_ptr<Command> make_oracle_command() {
    return std::make_unique<OracleCommand>();
}

}  // namespace numasim
