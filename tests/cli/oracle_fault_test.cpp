// Faults of the host under `numasim oracle` (docs/reliability.md, "Faults of the host"): qemu
// missing, a kernel image that is not a kernel, qemu killed and a guest that hangs. None boots a
// kernel: a stand-in qemu (a shell script) dies or sleeps, and a stand-in bzImage carries only a
// setup header. Each is a clear error within the boot's timeout that leaves no work directory.
#include <gtest/gtest.h>

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "numasim_process.h"
#include "oracle/work_dir.h"
#include "small_disk.h"

namespace {

using numasim::process_alive;
using numasim::test::on_small_disk;
using numasim::test::Output;
using numasim::test::read_text;
using numasim::test::run_numasim;
using numasim::test::scratch_path;
using numasim::test::spawn_numasim;

namespace fs = std::filesystem;

// A file that numasim reads as an x86 bzImage of release `release`: the setup header's magic,
// boot protocol 2.15 and a pointer to the version string (Documentation/arch/x86/boot.rst).
std::string fake_bzimage(const std::string& release = "6.1.0-fake") {
    const std::string path = scratch_path("bzImage-" + release);
    std::string image(64 * 1024, '\0');
    image.replace(0x202, 4, "HdrS");
    image[0x206] = 0x0f;
    image[0x207] = 0x02;
    image[0x20e] = 0x00;  // the string at 0x200 + 0x100
    image[0x20f] = 0x01;
    const std::string version = release + " (test) #1 SMP";
    image.replace(0x300, version.size(), version);
    std::ofstream(path, std::ios::binary) << image;
    return path;
}

// An executable shell script standing in for qemu-system-x86_64.
std::string fake_qemu(const std::string& name, const std::string& body) {
    const std::string path = scratch_path(name);
    std::ofstream(path) << "#!/bin/sh\n" << body << "\n";
    fs::permissions(path, fs::perms::owner_all);
    return path;
}

// The directories numasim left in its oracle cache, but the console logs it keeps on purpose.
std::vector<std::string> leftovers(const fs::path& cache) {
    std::vector<std::string> v;
    if (!fs::exists(cache)) return v;
    for (const auto& e : fs::directory_iterator(cache))
        if (e.path().filename() != "logs") v.push_back(e.path().filename().string());
    return v;
}

struct Timed {
    Output o;
    double seconds;
};

// `oracle` on a stand-in qemu and kernel with `cache` as --cache; the numasim-guest binary
// stands in for busybox too (both need only be static x86-64 executables to be packed).
std::string oracle_args(const std::string& qemu, const std::string& cache) {
    const std::string guest = (fs::path(NUMASIM_BINARY).parent_path() / "numasim-guest").string();
    return "oracle examples/streams.toml --accel tcg --kernel " + fake_bzimage() + " --qemu " +
           qemu + " --busybox " + guest + " --guest " + guest + " --cache " + cache;
}

Timed oracle(const std::string& qemu, const fs::path& cache, const std::string& more = "") {
    const auto t0 = std::chrono::steady_clock::now();
    Output o = run_numasim(oracle_args(qemu, cache.string()) + " " + more);
    return {o, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()};
}

#define SKIP_WITHOUT_GUEST()                                                                   \
    do {                                                                                       \
        if (!fs::exists(fs::path(NUMASIM_BINARY).parent_path() / "numasim-guest"))             \
            GTEST_SKIP() << "numasim-guest is not built (the oracle packs it into the guest)"; \
    } while (false)

TEST(FaultOracle, QemuMissingFromPath) {
    const Output o = run_numasim("oracle examples/streams.toml", "PATH=/nonexistent");
    EXPECT_EQ(o.status, 2) << o.out;
    EXPECT_NE(o.out.find("numasim: error: oracle: qemu: qemu-system-x86_64 is not installed"),
              std::string::npos)
        << o.out;
}

TEST(FaultOracle, KernelThatIsNotAKernel) {
    const Output o = run_numasim("oracle examples/streams.toml --kernel /etc/hostname");
    EXPECT_EQ(o.status, 2) << o.out;
    EXPECT_NE(o.out.find("numasim: error: /etc/hostname: not an x86 bzImage"), std::string::npos)
        << o.out;
}

// A scenario that promotes on a machine with a memory-only lower tier (docs/oracle.md, "A tiered
// guest"): a 6.1 kernel puts CPU-less boot memory in the DRAM tier, so it is refused before any
// boot, naming the option and the kernel that can.
TEST(FaultOracle, TieredScenarioOnAKernelBeforeHmatTiers) {
    const Output o =
        run_numasim("oracle scripts/oracle-tier/hmat-scenario.toml --accel tcg --kernel " +
                    fake_bzimage() + " --qemu " + fake_qemu("qemu-unused", "exit 1"));
    EXPECT_EQ(o.status, 2) << o.out;
    EXPECT_NE(o.out.find("numasim: error: --kernel: "), std::string::npos) << o.out;
    EXPECT_NE(o.out.find("the scenario runs numa_balancing=2 on a machine whose memory-only node 1 "
                         "is in a lower memory tier, but 6.1.0-fake (series v6.1)"),
              std::string::npos)
        << o.out;
    EXPECT_NE(o.out.find("--kernel-package linux-image-6.12-amd64"), std::string::npos) << o.out;
}

// A v6.10+ kernel that nevertheless formed one tier (no CONFIG_ACPI_HMAT): the boot is an error.
TEST(FaultOracle, TieredGuestWhoseKernelFormedOneTier) {
    SKIP_WITHOUT_GUEST();
    const std::string guest = (fs::path(NUMASIM_BINARY).parent_path() / "numasim-guest").string();
    const std::string qemu = fake_qemu("qemu-one-tier",
                                       "echo 'NUMASIM kernel release=6.12.0-fake'\n"
                                       "echo 'NUMASIM tier id=4 nodes=0-1'\n"
                                       "echo 'NUMASIM end rc=0'");
    const Output o =
        run_numasim("oracle scripts/oracle-tier/hmat-scenario.toml --accel tcg --kernel " +
                    fake_bzimage("6.12.0-fake") + " --qemu " + qemu + " --busybox " + guest +
                    " --guest " + guest + " --cache " + scratch_path("oracle_one_tier"));
    EXPECT_EQ(o.status, 2) << o.out;
    EXPECT_NE(o.out.find("numasim: error: oracle: boot 1: the guest's kernel formed 1 memory "
                         "tier(s), memory_tier4 (0-1), where the model forms 2"),
              std::string::npos)
        << o.out;
    EXPECT_NE(o.out.find("CONFIG_ACPI_HMAT=y"), std::string::npos) << o.out;
}

TEST(FaultOracle, QemuKilled) {
    SKIP_WITHOUT_GUEST();
    const fs::path cache = scratch_path("oracle_killed");
    const Timed t = oracle(fake_qemu("qemu-killed", "kill -KILL $$"), cache, "--timeout 30");
    EXPECT_EQ(t.o.status, 2) << t.o.out;
    EXPECT_NE(t.o.out.find("numasim: error: oracle: boot 1: qemu was killed by signal 9"),
              std::string::npos)
        << t.o.out;
    EXPECT_LT(t.seconds, 30);
    EXPECT_TRUE(leftovers(cache).empty()) << leftovers(cache).front();
}

TEST(FaultOracle, GuestHangsPastTheTimeout) {
    SKIP_WITHOUT_GUEST();
    const fs::path cache = scratch_path("oracle_hang");
    const Timed t = oracle(fake_qemu("qemu-hangs", "exec sleep 600"), cache, "--timeout 2");
    EXPECT_EQ(t.o.status, 2) << t.o.out;
    EXPECT_NE(t.o.out.find("numasim: error: oracle: boot 1: timed out after 2 s"),
              std::string::npos)
        << t.o.out;
    EXPECT_LT(t.seconds, 2 + 10) << "the boot's timeout, and the model's run";
    EXPECT_TRUE(leftovers(cache).empty()) << leftovers(cache).front();
}

// Waits up to `seconds` for `done` to hold.
template <typename F>
bool within(double seconds, F done) {
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (!done()) {
        if (std::chrono::steady_clock::now() > end) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return true;
}

// numasim ended by a signal while qemu boots (Ctrl-C, a `kill`, the OOM killer): qemu goes with
// it, and the next oracle command on the cache removes the work directory it could not.
TEST(FaultOracle, SignalDuringBootTakesQemuAlong) {
    SKIP_WITHOUT_GUEST();
    for (int sig : {SIGINT, SIGTERM, SIGKILL}) {
        SCOPED_TRACE(strsignal(sig));
        const fs::path cache = scratch_path("oracle_signal_" + std::to_string(sig));
        const std::string qemu_pid = scratch_path("qemu_pid_" + std::to_string(sig));
        const std::string qemu = fake_qemu("qemu-boots-" + std::to_string(sig),
                                           "echo $$ > " + qemu_pid + "; exec sleep 600");
        const pid_t numasim = spawn_numasim(oracle_args(qemu, cache.string()) + " --timeout 300");
        ASSERT_GT(numasim, 0);
        ASSERT_TRUE(within(60, [&] { return !read_text(qemu_pid).empty(); })) << "qemu not started";
        const int qemu_process = std::stoi(read_text(qemu_pid));
        ASSERT_TRUE(process_alive(qemu_process));
        ASSERT_EQ(::kill(numasim, sig), 0);
        EXPECT_TRUE(within(10, [&] { return !process_alive(numasim); })) << "numasim still runs";
        EXPECT_TRUE(within(10, [&] { return !process_alive(qemu_process); }))
            << "qemu outlived numasim";
        ::kill(qemu_process, SIGKILL);  // not to leave it behind if the test failed
        const fs::path work = cache / ("run-" + std::to_string(numasim));
        EXPECT_TRUE(fs::exists(work)) << "nothing left for the next command to remove";
        const Timed next = oracle(fake_qemu("qemu-next", "kill -KILL $$"), cache, "--timeout 30");
        EXPECT_EQ(next.o.status, 2) << next.o.out;
        EXPECT_TRUE(leftovers(cache).empty()) << leftovers(cache).front();
    }
}

// The initramfs (some MiB) on a --cache disk of 1 MiB: an error at the write, not a boot that
// fails as if the guest had.
TEST(FaultOracle, CacheDiskFull) {
    SKIP_WITHOUT_GUEST();
    SKIP_UNLESS_MOUNTABLE();
    const fs::path m = scratch_path("oracle_cache_mount"), copy = scratch_path("oracle_cache_copy");
    const Output o = on_small_disk(
        m, 1 << 20, oracle_args(fake_qemu("qemu-unused", "exit 0"), "{m}/c") + " --timeout 30",
        copy);
    EXPECT_EQ(o.status, 2) << o.out;
    EXPECT_NE(o.out.find("initramfs.cpio: cannot write: No space left on device"),
              std::string::npos)
        << o.out;
    EXPECT_TRUE(leftovers(copy / "c").empty()) << leftovers(copy / "c").front();
}

}  // namespace
