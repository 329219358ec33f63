#include "oracle/work_dir.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

namespace numasim {
namespace {

namespace fs = std::filesystem;

TEST(ProcessAlive, ThisProcessAndOneThatCannotExist) {
    EXPECT_TRUE(process_alive(::getpid()));
    // Above /proc/sys/kernel/pid_max's limit (2^22), so no process has it.
    EXPECT_FALSE(process_alive((1 << 22) + 1));
}

TEST(OracleWorkDir, RemovesOnlyTheDirectoriesOfProcessesThatAreGone) {
    const fs::path cache =
        fs::temp_directory_path() / ("work_dir_test-" + std::to_string(getpid()));
    fs::remove_all(cache);
    const std::string gone = "run-" + std::to_string((1 << 22) + 1);
    const std::string live = "run-" + std::to_string(getppid());
    for (const std::string& d : {gone, live, std::string("run-12x"), std::string("logs")})
        fs::create_directories(cache / d / "sub");
    const fs::path own = make_oracle_work_dir(cache);
    EXPECT_EQ(own, cache / ("run-" + std::to_string(getpid())));
    EXPECT_TRUE(fs::is_directory(own));
    EXPECT_FALSE(fs::exists(cache / gone));
    EXPECT_TRUE(fs::exists(cache / live / "sub"));
    EXPECT_TRUE(fs::exists(cache / "run-12x"));
    EXPECT_TRUE(fs::exists(cache / "logs"));
    fs::remove_all(cache);
}

}  // namespace
}  // namespace numasim
