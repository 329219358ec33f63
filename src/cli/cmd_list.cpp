// numasim machines | workloads | profiles: what is registered, one line each.
#include <fmt/format.h>

#include <functional>

#include "cli/commands.h"
#include "machine/presets.h"
#include "numab/profile.h"
#include "workload/registry.h"

namespace numasim {

namespace {

class ListCommand : public Command {
  public:
    ListCommand(std::string name, std::string help, std::function<std::string()> body)
        : name_(std::move(name)), help_(std::move(help)), body_(std::move(body)) {}
    void add_to(CLI::App& app) override { sub_ = app.add_subcommand(name_, help_); }
    int execute() override {
        const std::string s = body_();
        std::fwrite(s.data(), 1, s.size(), stdout);
        return 0;
    }

  private:
    std::string name_, help_;
    std::function<std::string()> body_;
};

}  // namespace

std::unique_ptr<Command> make_machines_command() {
    return std::make_unique<ListCommand>("machines", "list the machine presets", list_presets_text);
}

std::unique_ptr<Command> make_workloads_command() {
    return std::make_unique<ListCommand>("workloads", "list the workload models", [] {
        std::string s;
        for (const auto& w : workload_registry())
            s += fmt::format("{:<20} {}\n", w.name, w.description);
        return s;
    });
}

std::unique_ptr<Command> make_profiles_command() {
    return std::make_unique<ListCommand>("profiles", "list the kernel profiles", [] {
        std::string s;
        for (const auto& p : profile_names())
            s += p + "\n";
        return s;
    });
}

}  // namespace numasim
