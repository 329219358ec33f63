// `numasim man`: a page per command with every option, rendered by groff without a warning, and
// the sections man-pages(7) asks for.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "cli/cli.h"
#include "cli/command_tree.h"
#include "numasim_process.h"

namespace {

using numasim::CommandDoc;
using numasim::test::Output;
using numasim::test::run_numasim;
using numasim::test::scratch_path;
using numasim::test::shell;

// The page as man shows it, as plain text (no hyphenation, so that options stay whole words).
std::string rendered(const std::string& page) {
    const Output o = shell("groff -man -Tascii -rHY=0 -P-cbu " + page);
    EXPECT_EQ(o.status, 0) << o.out;
    return o.out;
}

TEST(ManPage, OnePerCommandEveryOptionListed) {
    const std::string dir = scratch_path("man");
    const Output o = run_numasim("man --out-dir " + dir);
    ASSERT_EQ(o.status, 0) << o.out;
    const numasim::CommandLine cl;
    const CommandDoc root = numasim::describe_command_line(cl.app);
    std::vector<const CommandDoc*> pages = {&root};
    for (const CommandDoc& c : root.subcommands)
        pages.push_back(&c);
    size_t files = 0;
    for (const auto& e : std::filesystem::directory_iterator(dir))
        files += e.path().extension() == ".1";
    EXPECT_EQ(files, pages.size());
    for (const CommandDoc* page : pages) {
        SCOPED_TRACE(page->page_name());
        const std::string text = rendered(dir + "/" + page->page_name() + ".1");
        for (const char* section : {"NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "EXIT STATUS",
                                    "FILES", "EXAMPLES", "SEE ALSO"})
            EXPECT_NE(text.find(std::string("\n") + section + "\n"), std::string::npos) << section;
        std::vector<const CommandDoc*> commands = {page};
        if (page != &root)
            for (const CommandDoc& s : page->subcommands)
                commands.push_back(&s);
        for (const CommandDoc* c : commands)
            for (const auto& opt : c->options)
                for (const auto& n : opt.names)
                    EXPECT_NE(text.find(n), std::string::npos) << c->name() << " " << n;
        if (page == &root) {
            for (const CommandDoc& c : root.subcommands)
                EXPECT_NE(text.find(c.page_name() + "(1)"), std::string::npos) << c.page_name();
        }
    }
}

TEST(ManPage, GroffRendersWithoutWarnings) {
    const std::string dir = scratch_path("man");
    ASSERT_EQ(run_numasim("man --out-dir " + dir).status, 0);
    for (const auto& e : std::filesystem::directory_iterator(dir)) {
        const Output o = shell("groff -ww -z -man " + e.path().string());
        EXPECT_EQ(o.status, 0) << e.path();
        EXPECT_EQ(o.out, "") << e.path();
    }
}

TEST(ManPage, OnePageToStandardOutput) {
    const Output o = run_numasim("man run");
    ASSERT_EQ(o.status, 0) << o.out;
    EXPECT_NE(o.out.find(".TH NUMASIM-RUN 1"), std::string::npos) << o.out;
    EXPECT_NE(run_numasim("man").out.find(".TH NUMASIM 1"), std::string::npos);
}

TEST(ManPage, UnknownCommandIsBadInput) {
    const Output o = run_numasim("man frobnicate");
    EXPECT_EQ(o.status, 2);
    EXPECT_EQ(o.out.rfind("numasim: error: man: frobnicate: no such command (there are: run,", 0),
              0u)
        << o.out;
    EXPECT_EQ(run_numasim("man run --out-dir " + scratch_path("man")).status, 2);
}

}  // namespace
