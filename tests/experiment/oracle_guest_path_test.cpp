// Where numasim oracle looks for numasim-guest: beside numasim in a build tree, in
// ../libexec/numasim once installed (cmake/install.cmake), wherever the prefix has moved to.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "experiment/oracle.h"

namespace fs = std::filesystem;

namespace {

struct TempTree {
    fs::path root = fs::temp_directory_path() / ("numasim-guest-path-" + std::to_string(getpid()));
    TempTree() { fs::remove_all(root); }
    ~TempTree() { fs::remove_all(root); }
    fs::path touch(const fs::path& rel) const {
        fs::create_directories((root / rel).parent_path());
        std::ofstream(root / rel) << "x";
        return root / rel;
    }
};

TEST(OracleGuestPath, InstalledPrefixWhereverItIs) {
    const TempTree t;
    const fs::path exe = t.touch("moved-prefix/bin/numasim");
    const fs::path guest = t.touch("moved-prefix/libexec/numasim/numasim-guest");
    EXPECT_EQ(numasim::guest_binary_for(exe), guest.string());
}

TEST(OracleGuestPath, BesideTheBinaryInABuildTree) {
    const TempTree t;
    const fs::path exe = t.touch("build/numasim");
    const fs::path guest = t.touch("build/numasim-guest");
    EXPECT_EQ(numasim::guest_binary_for(exe), guest.string());
}

TEST(OracleGuestPath, NeitherThereNamesTheBuildTreePath) {
    const TempTree t;
    const fs::path exe = t.touch("bin/numasim");
    EXPECT_EQ(numasim::guest_binary_for(exe), (t.root / "bin/numasim-guest").string());
}

}  // namespace
