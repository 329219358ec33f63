// `numasim oracle` and `validate --oracle`: input errors before any boot, and the checks
// skipped without qemu.
#include <gtest/gtest.h>

#include <string>

#include "numasim_process.h"

namespace numasim {
namespace {

using test::Output;
using test::run_numasim;

TEST(OracleCli, InputErrorsBeforeAnyBoot) {
    auto o = run_numasim("oracle examples/streams.toml --qemu /nonexistent/qemu");
    EXPECT_EQ(o.status, 2) << o.out;
    EXPECT_NE(o.out.find("scripts/setup.sh --oracle"), std::string::npos) << o.out;
    o = run_numasim("oracle examples/streams.toml --boots 0");
    EXPECT_EQ(o.status, 2) << o.out;
    EXPECT_NE(o.out.find("--boots"), std::string::npos) << o.out;
    o = run_numasim("oracle examples/perf-bench-numa.toml");
    EXPECT_EQ(o.status, 2) << o.out;
    EXPECT_NE(o.out.find("no program for 'perf-bench-numa'"), std::string::npos) << o.out;
    o = run_numasim("oracle experiments/oracle-numa01tl-2n.toml --variant nosuch");
    EXPECT_EQ(o.status, 2) << o.out;
    EXPECT_NE(o.out.find("no [[variant]] named 'nosuch'"), std::string::npos) << o.out;
    o = run_numasim("oracle examples/streams.toml --kernel /nonexistent/bzImage");
    EXPECT_EQ(o.status, 2) << o.out;
    EXPECT_NE(o.out.find("--kernel"), std::string::npos) << o.out;
    // --kernel-package and --damon-record: the user's typing, before qemu or apt is asked.
    o = run_numasim("oracle examples/streams.toml --kernel-package bash --qemu /nonexistent/qemu");
    EXPECT_EQ(o.status, 2) << o.out;
    EXPECT_NE(o.out.find("--kernel-package: 'bash' is not a Debian kernel image package"),
              std::string::npos)
        << o.out;
    o = run_numasim(
        "oracle examples/streams.toml --kernel /nonexistent/bzImage --kernel-package "
        "linux-image-6.12-amd64");
    EXPECT_EQ(o.status, 2) << o.out;
    EXPECT_NE(o.out.find("either --kernel or --kernel-package"), std::string::npos) << o.out;
    o = run_numasim("oracle examples/streams.toml --damon-record d.txt --boots 2");
    EXPECT_EQ(o.status, 2) << o.out;
    EXPECT_NE(o.out.find("--damon-record: records one boot"), std::string::npos) << o.out;
}

TEST(OracleCli, ValidateSkipsOracleChecksWithoutQemu) {
    // No qemu in PATH: the [[oracle]] rows say so, and --strict does not count them as misses.
    const auto o = run_numasim("validate --quick --strict --oracle --only oracle-numa01tl-2n -j 2",
                               "PATH=/nonexistent");
    EXPECT_EQ(o.status, 0) << o.out;
    EXPECT_NE(o.out.find("skipped: qemu-system-x86_64 is not installed"), std::string::npos)
        << o.out;
    EXPECT_NE(o.out.find("numasim within 2x of the real pages migrated"), std::string::npos)
        << o.out;
}

}  // namespace
}  // namespace numasim
