// numasim machines [show MACHINE] | workloads | policies | profiles [show NAME [SCENARIO]]: what
// is registered.
#include <fmt/format.h>

#include <cstdio>
#include <functional>

#include "cli/commands.h"
#include "cli/policy_plugin_option.h"
#include "cli/scenario_options.h"
#include "cli/value_hints.h"
#include "config/input_error.h"
#include "config/toml_reader.h"
#include "experiment/scenario.h"
#include "machine/presets.h"
#include "mm/memory_tiers.h"
#include "numab/profile.h"
#include "policy/registry.h"
#include "report/knob_report.h"
#include "report/machine_report.h"
#include "workload/registry.h"

namespace numasim {

namespace {

void print(const std::string& s) {
    std::fwrite(s.data(), 1, s.size(), stdout);
}

class ListCommand : public Command {
  public:
    ListCommand(std::string name, std::string help, std::function<std::string()> body)
        : name_(std::move(name)), help_(std::move(help)), body_(std::move(body)) {}
    void add_to(CLI::App& app) override { sub_ = app.add_subcommand(name_, help_); }
    int execute() override {
        print(body_());
        return 0;
    }

  private:
    std::string name_, help_;
    std::function<std::string()> body_;
};

// `profiles` lists the profiles; `profiles show NAME [SCENARIO]` prints every knob, its value
// and what set it: the default, the profile, the scenario or an override.
class ProfilesCommand : public Command {
  public:
    void add_to(CLI::App& app) override {
        sub_ = app.add_subcommand("profiles", "list the kernel profiles");
        show_ = sub_->add_subcommand(
            "show",
            "every knob of a profile, its value and what set it (default, profile, "
            "scenario, command line)");
        hint_words(show_->add_option("profile", profile_, "kernel profile"), profile_names())
            ->required();
        hint_file(show_->add_option("scenario", path_, "scenario TOML file whose knobs to apply"),
                  "toml");
        add_knob_options(*show_, set_, params_);
    }

    int execute() override {
        if (!show_->parsed()) {
            std::string s;
            for (const auto& p : profile_names())
                s += p + "\n";
            print(s);
            return 0;
        }
        const ScenarioOverrides ov = knob_overrides(set_, params_);
        if (!path_.empty()) {
            ScenarioOverrides all = {string_override("profile", profile_, "profiles show")};
            all.insert(all.end(), ov.begin(), ov.end());
            const Scenario sc = load_scenario_file(path_, all);
            print(knobs_text(sc.knobs, sc.knob_origins));
            return 0;
        }
        KnobOrigins origins;
        NumaBalancingKnobs k = load_profile(profile_, &origins);
        const TomlTable doc = TomlTable::parse_text("", "command line", ov);
        if (auto nb = doc.table("numa_balancing")) {
            apply_knobs(k, *nb, &origins);
            nb->finish();
        }
        doc.finish();
        print(knobs_text(k, origins));
        return 0;
    }

  private:
    CLI::App* show_ = nullptr;
    std::string profile_, path_;
    std::vector<std::string> set_, params_;
};

// `machines` lists the presets; `machines show MACHINE [--profile P]` prints one in numactl -H
// and lstopo style with its hardware figures and the memory tiers P's kernel forms on it.
class MachinesCommand : public Command {
  public:
    void add_to(CLI::App& app) override {
        sub_ = app.add_subcommand("machines", "list the machine presets");
        show_ = sub_->add_subcommand("show",
                                     "nodes, CPUs, SLIT, LLCs, SMT siblings and hardware "
                                     "figures of a machine");
        hint_machine(show_->add_option("machine", spec_,
                                       "a preset, a machine file, hwloc:FILE.xml or hwloc:host"))
            ->required();
        show_->add_option("--profile", profile_,
                          "kernel profile whose memory tiers to show (default: " +
                              std::string(kDefaultProfile) + ")");
    }

    int execute() override {
        if (!show_->parsed()) {
            print(list_presets_text());
            return 0;
        }
        const Topology m = resolve_machine(spec_, "", "machines show");
        std::string release;
        try {
            release = profile_release(profile_);
        } catch (const InputError& e) {
            throw InputError("--profile " + profile_, "", e.problem());
        }
        const MemoryTiers tiers = establish_memory_tiers(m, memtier_kernel_of_release(release));
        print(machine_text(m, &tiers));
        return 0;
    }

  private:
    CLI::App* show_ = nullptr;
    std::string spec_;
    std::string profile_ = kDefaultProfile;
};

// `policies [--policy-plugin PATH.so]...`: the registered policies, with those the plugins add.
class PoliciesCommand : public Command {
  public:
    void add_to(CLI::App& app) override {
        sub_ = app.add_subcommand("policies", "list the placement policies");
        add_policy_plugin_option(*sub_, plugins_);
    }
    int execute() override {
        load_policy_plugins(plugins_);
        std::string s;
        for (const auto& p : policy_registry())
            s += fmt::format("{:<20} {}\n", p.name, p.description);
        print(s);
        return 0;
    }

  private:
    std::vector<std::string> plugins_;
};

}  // namespace

std::unique_ptr<Command> make_machines_command() {
    return std::make_unique<MachinesCommand>();
}

std::unique_ptr<Command> make_workloads_command() {
    return std::make_unique<ListCommand>("workloads", "list the workload models", [] {
        std::string s;
        for (const auto& w : workload_registry())
            s += fmt::format("{:<20} {}\n", w.name, w.description);
        return s;
    });
}

std::unique_ptr<Command> make_policies_command() {
    return std::make_unique<PoliciesCommand>();
}

std::unique_ptr<Command> make_profiles_command() {
    return std::make_unique<ProfilesCommand>();
}

}  // namespace numasim
