// Faults of the host (docs/reliability.md, "Faults of the host"): a disk that fills up while
// numasim writes --out-dir, --trace or a sweep, and a sweep killed with SIGKILL. Each gives a
// clear error and exit 2, leaves no half-written file under its final name, and a sweep then
// resumes to the bytes of an uninterrupted one.
// A full disk is a small tmpfs (small_disk.h).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fcntl.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "numasim_process.h"
#include "small_disk.h"

namespace {

using numasim::test::on_small_disk;
using numasim::test::Output;
using numasim::test::read_text;
using numasim::test::run_numasim;
using numasim::test::scratch_path;
using numasim::test::spawn_numasim;

namespace fs = std::filesystem;

const char kNoSpace[] = "No space left on device";

// Regular files under `dir`, relative, with their contents.
std::map<std::string, std::string> tree(const fs::path& dir) {
    std::map<std::string, std::string> files;
    if (!fs::exists(dir)) return files;
    for (const auto& e : fs::recursive_directory_iterator(dir))
        if (e.is_regular_file())
            files.emplace(fs::relative(e.path(), dir).string(), read_text(e.path().string()));
    return files;
}

// `got` holds the files of `want` with the same bytes, and no others; names the differences
// (rather than printing whole files).
void expect_same_files(const std::map<std::string, std::string>& got,
                       const std::map<std::string, std::string>& want) {
    for (const auto& [name, text] : got) {
        const auto it = want.find(name);
        EXPECT_TRUE(it != want.end()) << "unexpected file " << name;
        if (it != want.end()) {
            EXPECT_TRUE(it->second == text) << name << " differs";
        }
    }
    for (const auto& [name, text] : want)
        EXPECT_TRUE(got.count(name)) << "missing file " << name;
}

// The size of `dir`'s regular files on a tmpfs, which allocates whole 4 KiB pages.
size_t pages_bytes(const fs::path& dir) {
    size_t bytes = 0;
    for (const auto& [name, text] : tree(dir))
        bytes += (text.size() + 4095) / 4096 * 4096;
    return bytes;
}

// A run whose --out-dir holds about 400 KiB in ten files: sample tables, logs and result.json.
const std::string kSampled = "run examples/knobs.toml --duration 2s --sample 100ms";

TEST(FaultOutDir, DiskFullLeavesNoFileUnderItsFinalName) {
    SKIP_UNLESS_MOUNTABLE();
    const fs::path whole = scratch_path("outdir_whole");
    ASSERT_EQ(run_numasim(kSampled + " --out-dir " + whole.string()).status, 0);
    const size_t need = pages_bytes(whole);
    // Full at the first file, midway, and at the last one.
    for (size_t size : {size_t{4096}, need / 2, need - 4096}) {
        SCOPED_TRACE(size);
        const fs::path m = scratch_path("outdir_mount"), copy = scratch_path("outdir_copy");
        const Output o = on_small_disk(m, size, kSampled + " --out-dir {m}/o", copy);
        EXPECT_EQ(o.status, 2) << o.out;
        EXPECT_NE(o.out.find("numasim: error: --out-dir: " + m.string() + "/o/"), std::string::npos)
            << o.out;
        EXPECT_NE(o.out.find(kNoSpace), std::string::npos) << o.out;
        EXPECT_EQ(o.out.find("internal error"), std::string::npos) << o.out;
        EXPECT_TRUE(tree(copy).empty()) << "files left: " << tree(copy).begin()->first;
    }
}

TEST(FaultOutDir, DevFullAsAFileOfIt) {
    const fs::path d = scratch_path("outdir_devfull");
    fs::create_directories(d);
    fs::create_symlink("/dev/full", d / "result.json");
    const Output o = run_numasim(kSampled + " --out-dir " + d.string());
    EXPECT_EQ(o.status, 2) << o.out;
    EXPECT_NE(o.out.find("numasim: error: --out-dir: " + (d / "result.json").string() +
                         ": cannot write: " + kNoSpace),
              std::string::npos)
        << o.out;
    EXPECT_TRUE(tree(d).empty()) << "files left: " << tree(d).begin()->first;
    EXPECT_TRUE(fs::is_symlink(d / "result.json"));
}

TEST(FaultOutDir, DevFullAsTheDirectory) {
    const Output o = run_numasim(kSampled + " --out-dir /dev/full");
    EXPECT_EQ(o.status, 2) << o.out;
    EXPECT_NE(o.out.find("numasim: error: /dev/full/"), std::string::npos) << o.out;
    EXPECT_NE(o.out.find("Not a directory"), std::string::npos) << o.out;
}

// A run that writes about 300 trace events.
const std::string kTraced = "run examples/knobs.toml --profile v6.12 --duration 1s";

TEST(FaultTrace, DiskFull) {
    SKIP_UNLESS_MOUNTABLE();
    const fs::path m = scratch_path("trace_mount"), copy = scratch_path("trace_copy");
    const Output o = on_small_disk(m, 8192, kTraced + " --trace {m}/t.out", copy);
    EXPECT_EQ(o.status, 2) << o.out;
    EXPECT_NE(
        o.out.find("numasim: error: --trace: " + m.string() + "/t.out: cannot write: " + kNoSpace),
        std::string::npos)
        << o.out;
    EXPECT_TRUE(tree(copy).empty()) << "files left: " << tree(copy).begin()->first;
}

TEST(FaultTrace, DevFull) {
    const Output o = run_numasim(kTraced + " --trace /dev/full");
    EXPECT_EQ(o.status, 2) << o.out;
    EXPECT_NE(
        o.out.find(std::string("numasim: error: --trace: /dev/full: cannot write: ") + kNoSpace),
        std::string::npos)
        << o.out;
}

// Small sweeps on tiny-2n: short cases, so that many fit in a few seconds.
std::string tiny_sweep(int cases) {
    return "sweep examples/knobs.toml --machine tiny-2n --duration 300ms --seeds 1.." +
           std::to_string(cases);
}

TEST(FaultSweep, DiskFullThenResumeElsewhere) {
    SKIP_UNLESS_MOUNTABLE();
    const std::string sweep = tiny_sweep(4) + " -j 2";
    const fs::path whole = scratch_path("sweep_whole");
    const Output w = run_numasim(sweep + " -o " + whole.string());
    ASSERT_EQ(w.status, 0) << w.out;
    const size_t cases = pages_bytes(whole / "cases");
    const size_t csv = pages_bytes(whole) - cases - 4096;  // compare.txt takes a page
    // Full at the first case file written, at the second, at sweep.csv and at compare.txt
    // (cases finish in any order on two workers).
    const std::vector<std::pair<size_t, std::string>> points = {{4096, "cases/"},
                                                                {cases / 4 + 4096, "cases/"},
                                                                {cases, "sweep.csv"},
                                                                {cases + csv, "compare.txt"}};
    for (const auto& [size, file] : points) {
        SCOPED_TRACE(file);
        const fs::path m = scratch_path("sweep_mount"), copy = scratch_path("sweep_copy");
        const Output o = on_small_disk(m, size, sweep + " -o {m}/s", copy);
        EXPECT_EQ(o.status, 2) << o.out;
        EXPECT_NE(o.out.find("numasim: error: -o: " + m.string() + "/s/" + file), std::string::npos)
            << o.out;
        EXPECT_NE(o.out.find(std::string(": cannot write: ") + kNoSpace), std::string::npos)
            << o.out;
        for (const auto& [name, text] : tree(copy / "s")) {
            EXPECT_EQ(name.find(".numasim-"), std::string::npos) << "temporary file " << name;
            if (fs::exists(whole / name)) {
                EXPECT_EQ(text, read_text((whole / name).string())) << name;
            }
        }
        // Space is back: the copy on an ordinary disk resumes to the uninterrupted bytes.
        const Output r = run_numasim(sweep + " --resume -o " + (copy / "s").string());
        EXPECT_EQ(r.status, 0) << r.out;
        EXPECT_EQ(r.out, w.out);
        expect_same_files(tree(copy / "s"), tree(whole));
    }
}

const char kIoError[] = "Input/output error";

// The environment that makes writes to files whose path contains `match` fail with EIO after
// `after` bytes (tests/shim/eio_preload.cpp). The sanitizer runtime insists on being first in
// the list of loaded libraries, which a preloaded one is not; the check is all it would do.
std::string failing_disk(const std::string& match, size_t after) {
    return "LD_PRELOAD=" NUMASIM_EIO_PRELOAD " NUMASIM_EIO_MATCH=" + match +
           " NUMASIM_EIO_AFTER=" + std::to_string(after) +
           " ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0";
}

// The shim itself: a path it does not match writes as usual, one it matches fails with EIO
// and not with any other error, so that the tests below test what they say.
TEST(FaultEio, ShimFailsOnlyTheMatchedFile) {
    const fs::path d = scratch_path("eio_shim");
    fs::create_directories(d);
    const std::string trace = kTraced + " --trace " + (d / "t.out").string();
    ASSERT_EQ(run_numasim(trace).status, 0);
    const std::string plain = read_text((d / "t.out").string());
    fs::remove(d / "t.out");
    const Output other = run_numasim(trace, failing_disk("x.out", 0));
    EXPECT_EQ(other.status, 0) << other.out;
    EXPECT_TRUE(read_text((d / "t.out").string()) == plain) << "the trace differs";
    const Output failed = run_numasim(trace, failing_disk("t.out", 0));
    EXPECT_EQ(failed.status, 2) << failed.out;
    EXPECT_NE(failed.out.find(kIoError), std::string::npos) << failed.out;
}

// A disk that fails while --out-dir is written: at the first byte, and after 64 KiB (in the
// middle of the sample tables).
TEST(FaultEio, OutDirLeavesNoFileUnderItsFinalName) {
    for (size_t after : {size_t{0}, size_t{65536}}) {
        SCOPED_TRACE(after);
        const fs::path d = scratch_path("eio_outdir_" + std::to_string(after));
        const Output o = run_numasim(kSampled + " --out-dir " + (d / "o").string(),
                                     failing_disk(d.string(), after));
        EXPECT_EQ(o.status, 2) << o.out;
        EXPECT_NE(o.out.find("numasim: error: --out-dir: " + (d / "o").string() + "/"),
                  std::string::npos)
            << o.out;
        EXPECT_NE(o.out.find(std::string(": cannot write: ") + kIoError), std::string::npos)
            << o.out;
        EXPECT_EQ(o.out.find("internal error"), std::string::npos) << o.out;
        EXPECT_TRUE(tree(d).empty()) << "files left: " << tree(d).begin()->first;
    }
}

TEST(FaultEio, Trace) {
    const fs::path d = scratch_path("eio_trace");
    fs::create_directories(d);
    const Output o =
        run_numasim(kTraced + " --trace " + (d / "t.out").string(), failing_disk("t.out", 4096));
    EXPECT_EQ(o.status, 2) << o.out;
    EXPECT_NE(o.out.find("numasim: error: --trace: " + (d / "t.out").string() +
                         ": cannot write: " + kIoError),
              std::string::npos)
        << o.out;
    EXPECT_TRUE(tree(d).empty()) << "files left: " << tree(d).begin()->first;
}

// A disk that fails at a case file, then at sweep.csv; once it works again, --resume gives the
// bytes of an uninterrupted sweep.
TEST(FaultEio, SweepThenResume) {
    const std::string sweep = tiny_sweep(4) + " -j 2";
    const fs::path whole = scratch_path("eio_sweep_whole");
    const Output w = run_numasim(sweep + " -o " + whole.string());
    ASSERT_EQ(w.status, 0) << w.out;
    ASSERT_TRUE(fs::exists(whole / "cases" / "0003.json"));
    for (const std::string file : {"cases/0003.json", "sweep.csv"}) {
        SCOPED_TRACE(file);
        const fs::path d = scratch_path("eio_sweep");
        fs::remove_all(d);
        const Output o =
            run_numasim(sweep + " -o " + d.string(), failing_disk(fs::path(file).filename(), 0));
        EXPECT_EQ(o.status, 2) << o.out;
        EXPECT_NE(o.out.find("numasim: error: -o: " + (d / file).string() +
                             ": cannot write: " + kIoError),
                  std::string::npos)
            << o.out;
        for (const auto& [name, text] : tree(d)) {
            EXPECT_EQ(name.find(".numasim-"), std::string::npos) << "temporary file " << name;
            EXPECT_NE(name, file) << "the failed file under its final name";
        }
        const Output r = run_numasim(sweep + " --resume -o " + d.string());
        EXPECT_EQ(r.status, 0) << r.out;
        EXPECT_EQ(r.out, w.out);
        expect_same_files(tree(d), tree(whole));
    }
}

// SIGKILL at 20 points spread over an uninterrupted run of a sweep of 20 short cases (while a
// case runs, while its file is written, while sweep.csv and compare.txt are), then --resume:
// the bytes of the uninterrupted sweep each time.
TEST(FaultSweep, SigkillAtTwentyPointsThenResume) {
#if defined(__SANITIZE_ADDRESS__)
    // The sanitizer build runs about ten times slower: a short form, within CI's time budget.
    const int kPoints = 5;
#else
    const int kPoints = 20;
#endif
    const std::string sweep = "sweep " + std::string(NUMASIM_SOURCE_DIR) +
                              "/examples/knobs.toml --machine tiny-2n --duration 300ms "
                              "--seeds 1..20 -j 2 -o ";
    const fs::path whole = scratch_path("kill_whole");
    const auto start = std::chrono::steady_clock::now();
    const Output w = run_numasim(sweep + whole.string());
    auto took = std::chrono::steady_clock::now() - start;
    ASSERT_EQ(w.status, 0) << w.out;
    const auto expected = tree(whole);
    int killed = 0;
    for (int k = 0; k < kPoints; ++k) {
        // A run that finished before its kill (the machine is less loaded than when `took` was
        // measured) tests nothing: again, with the time scale shortened.
        for (int attempt = 0; attempt < 4; ++attempt) {
            SCOPED_TRACE(::testing::Message() << "point " << k << ", attempt " << attempt);
            const fs::path d = scratch_path("kill_" + std::to_string(k));
            const pid_t pid = spawn_numasim(sweep + d.string());
            ASSERT_GT(pid, 0);
            std::this_thread::sleep_for(took * (2 * k + 1) / (2 * kPoints));
            ::kill(pid, SIGKILL);
            int st = 0;
            ::waitpid(pid, &st, 0);
            const Output r = run_numasim(sweep + d.string() + " --resume");
            ASSERT_EQ(r.status, 0) << r.out;
            EXPECT_EQ(r.out, w.out);
            expect_same_files(tree(d), expected);
            fs::remove_all(d);
            if (WIFSIGNALED(st)) {
                ++killed;
                break;
            }
            took = took * 2 / 3;
        }
    }
    EXPECT_EQ(killed, kPoints) << "runs that finished before their kill";
}

}  // namespace
