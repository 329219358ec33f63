#include "oracle/cpio_archive.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "oracle/subprocess.h"

namespace numasim {
namespace {

struct Entry {
    uint32_t mode = 0, rmajor = 0, rminor = 0;
    std::string data;
};

uint32_t hex(const std::string& s, size_t off) {
    return static_cast<uint32_t>(std::stoul(s.substr(off, 8), nullptr, 16));
}

// A reader written from the format description, independent of the writer's code.
std::map<std::string, Entry> read_newc(const std::string& a) {
    std::map<std::string, Entry> out;
    size_t p = 0;
    auto align = [](size_t x) { return (x + 3) & ~size_t{3}; };
    while (p + 110 <= a.size()) {
        EXPECT_EQ(a.substr(p, 6), "070701");
        Entry e;
        e.mode = hex(a, p + 6 + 8);
        const uint32_t size = hex(a, p + 6 + 6 * 8);
        e.rmajor = hex(a, p + 6 + 9 * 8);
        e.rminor = hex(a, p + 6 + 10 * 8);
        const uint32_t namesize = hex(a, p + 6 + 11 * 8);
        const std::string name = a.substr(p + 110, namesize - 1);
        p = align(p + 110 + namesize);
        e.data = a.substr(p, size);
        p = align(p + size);
        if (name == "TRAILER!!!") return out;
        out[name] = e;
    }
    ADD_FAILURE() << "no trailer";
    return out;
}

std::string sample_archive() {
    CpioArchive c;
    c.add_directory("bin");
    c.add_file("bin/hello", "hi!\n", 0755);
    c.add_file("odd", "12345");
    c.add_symlink("bin/sh", "busybox");
    c.add_char_device("dev/console", 5, 1);
    return c.finish();
}

TEST(CpioArchive, EntriesReadBack) {
    const std::string a = sample_archive();
    EXPECT_EQ(a.size() % 4, 0u);
    const auto e = read_newc(a);
    ASSERT_EQ(e.size(), 5u);
    EXPECT_TRUE(S_ISDIR(e.at("bin").mode));
    EXPECT_EQ(e.at("bin/hello").data, "hi!\n");
    EXPECT_EQ(e.at("bin/hello").mode & 07777, 0755u);
    EXPECT_EQ(e.at("odd").data, "12345");
    EXPECT_TRUE(S_ISLNK(e.at("bin/sh").mode));
    EXPECT_EQ(e.at("bin/sh").data, "busybox");
    EXPECT_TRUE(S_ISCHR(e.at("dev/console").mode));
    EXPECT_EQ(e.at("dev/console").rmajor, 5u);
    EXPECT_EQ(e.at("dev/console").rminor, 1u);
}

TEST(CpioArchive, SameFilesSameBytes) {
    EXPECT_EQ(sample_archive(), sample_archive());
}

// GNU cpio (installed by `scripts/setup.sh --oracle`) lists what the kernel would unpack.
TEST(CpioArchive, GnuCpioListsIt) {
    if (!have_program("cpio")) GTEST_SKIP() << "cpio is not installed";
    const auto path = std::filesystem::temp_directory_path() /
                      ("numasim-cpio-test." + std::to_string(::getpid()) + ".cpio");
    std::ofstream(path, std::ios::binary) << sample_archive();
    const CommandResult r = run_command({"cpio", "-it", "-F", path.string()});
    std::filesystem::remove(path);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    for (const char* n : {"bin\n", "bin/hello\n", "odd\n", "bin/sh\n", "dev/console\n"})
        EXPECT_NE(r.output.find(n), std::string::npos) << n << " in\n" << r.output;
}

}  // namespace
}  // namespace numasim
