// numasim completion bash|zsh: the shell completion script, written from the command line.
#include <cstdio>

#include "cli/command_tree.h"
#include "cli/commands.h"
#include "cli/completion.h"
#include "cli/value_hints.h"

namespace numasim {

namespace {

class CompletionCommand : public Command {
  public:
    void add_to(CLI::App& app) override {
        sub_ = app.add_subcommand(
            "completion",
            "print the shell completion script for bash or zsh (commands, options, their "
            "values, file names)");
        one_of(sub_->add_option("shell", shell_, "the shell"), {"bash", "zsh"})->required();
    }

    int execute() override {
        const CommandDoc root = describe_command_line(*sub_->get_parent());
        const std::string s = shell_ == "bash" ? bash_completion(root) : zsh_completion(root);
        std::fwrite(s.data(), 1, s.size(), stdout);
        return 0;
    }

  private:
    std::string shell_;
};

}  // namespace

std::unique_ptr<Command> make_completion_command() {
    return std::make_unique<CompletionCommand>();
}

}  // namespace numasim
