// `numasim completion bash|zsh`: every option of every command is in both scripts, the scripts
// parse, and bash completes commands, options, fixed values and file names through them.
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "cli/cli.h"
#include "cli/command_tree.h"
#include "numasim_process.h"

namespace {

using numasim::CommandDoc;
using numasim::test::Output;
using numasim::test::run_numasim;
using numasim::test::shell;
using numasim::test::write_temp;

void for_each_command(const CommandDoc& c, const std::function<void(const CommandDoc&)>& f) {
    f(c);
    for (const CommandDoc& s : c.subcommands)
        for_each_command(s, f);
}

// `name` as a whole word of `text` (not as the prefix of a longer option).
bool has_word(const std::string& text, const std::string& name) {
    const auto word = [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_';
    };
    for (size_t at = text.find(name); at != std::string::npos; at = text.find(name, at + 1)) {
        const bool starts = at == 0 || !word(text[at - 1]);
        const size_t end = at + name.size();
        if (starts && (end == text.size() || !word(text[end]))) return true;
    }
    return false;
}

TEST(Completion, EveryOptionOfEveryCommand) {
    const Output bash = run_numasim("completion bash");
    const Output zsh = run_numasim("completion zsh");
    ASSERT_EQ(bash.status, 0) << bash.out;
    ASSERT_EQ(zsh.status, 0) << zsh.out;
    const numasim::CommandLine cl;
    int options = 0;
    for_each_command(numasim::describe_command_line(cl.app), [&](const CommandDoc& c) {
        SCOPED_TRACE(c.name());
        if (!c.path.empty()) {
            EXPECT_TRUE(has_word(bash.out, c.path.back()));
            EXPECT_TRUE(has_word(zsh.out, c.path.back()));
        }
        for (const auto& o : c.options) {
            if (o.positional) continue;
            for (const auto& n : o.names) {
                EXPECT_TRUE(has_word(bash.out, n)) << n;
                EXPECT_TRUE(has_word(zsh.out, n)) << n;
                ++options;
            }
        }
    });
    EXPECT_GT(options, 100);
}

TEST(Completion, ScriptsParse) {
    const std::string bash = write_temp("numasim.bash", run_numasim("completion bash").out);
    Output o = shell("bash -n " + bash);
    EXPECT_EQ(o.status, 0) << o.out;
    if (shell("command -v zsh").status != 0)
        GTEST_SKIP() << "zsh is not installed (scripts/setup.sh)";
    const std::string zsh = write_temp("_numasim", run_numasim("completion zsh").out);
    o = shell("zsh -n " + zsh);
    EXPECT_EQ(o.status, 0) << o.out;
}

// What bash offers for the command line WORDS (the last one being completed).
std::string bash_offers(const std::string& script, const std::string& words) {
    const Output o =
        shell("bash -c 'source /usr/share/bash-completion/bash_completion && source " + script +
              " && COMP_WORDS=(" + words + ") && COMP_CWORD=$((${#COMP_WORDS[@]} - 1)) && " +
              "COMP_LINE=\"${COMP_WORDS[*]}\" && COMP_POINT=${#COMP_LINE} && _numasim && " +
              "printf \"%s\\n\" \"${COMPREPLY[@]}\"'");
    EXPECT_EQ(o.status, 0) << o.out;
    return o.out;
}

TEST(Completion, BashOffersCommandsOptionsValuesAndFiles) {
    if (!std::filesystem::exists("/usr/share/bash-completion/bash_completion"))
        GTEST_SKIP() << "bash-completion is not installed (scripts/setup.sh)";
    const std::string script = write_temp("numasim.bash", run_numasim("completion bash").out);
    EXPECT_NE(bash_offers(script, "numasim co").find("compare\ncompletion\n"), std::string::npos);
    EXPECT_EQ(bash_offers(script, "numasim run --trace-f"), "--trace-format\n");
    EXPECT_EQ(bash_offers(script, "numasim run --trace-format p"), "perfetto\n");
    EXPECT_EQ(bash_offers(script, "numasim compare x.toml --naming \"\""), "dash\ndot\n");
    EXPECT_EQ(bash_offers(script, "numasim machines show hwloc:ho"), "host\n");
    EXPECT_EQ(bash_offers(script, "numasim run --machine hwloc:ho"), "host\n");
    EXPECT_EQ(bash_offers(script, "numasim run --trace-format=p"), "perfetto\n");
    EXPECT_NE(bash_offers(script, "numasim run --profile \"\"").find("v6.1\n"), std::string::npos);
    EXPECT_NE(bash_offers(script, "numasim run --set smalli").find("smallimp="), std::string::npos);
    EXPECT_NE(bash_offers(script, "numasim run --param workload.type=")
                  .find("workload.type=autonumabench\n"),
              std::string::npos);
    // Scenario files: the .toml files and directories under the working directory.
    const std::string files = bash_offers(script, "numasim run examples/k");
    EXPECT_NE(files.find("examples/knobs.toml"), std::string::npos) << files;
    EXPECT_EQ(bash_offers(script, "numasim completion \"\""), "bash\nzsh\n");
}

TEST(Completion, UnknownShellIsBadInput) {
    const Output o = run_numasim("completion fish");
    EXPECT_EQ(o.status, 2);
    EXPECT_EQ(o.out.rfind("numasim: error: ", 0), 0u) << o.out;
    EXPECT_NE(o.out.find("fish"), std::string::npos) << o.out;
    EXPECT_EQ(run_numasim("completion").status, 2);
}

}  // namespace
