// The fuzzed bytes as a file under a fixed name for this process: numasim's readers take paths.
#pragma once

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <string>
#include <string_view>
#include <system_error>

namespace numasim::fuzz {

// The scratch paths this process made. libFuzzer leaves through exit() when its time is up, so
// the registry's destructor removes them then: a run leaves no files behind in TMPDIR. (The
// hwloc child leaves through _exit, so it never removes the parent's file.)
class Scratch {
  public:
    static Scratch& get() {
        static Scratch scratch;
        return scratch;
    }
    // $TMPDIR/numasim_fuzz_<tag>_PID<ext> (TMPDIR unset: /tmp), removed at exit.
    std::string path(const char* tag, const char* ext) {
        const char* dir = std::getenv("TMPDIR");
        std::string p = std::string(dir && *dir ? dir : "/tmp") + "/numasim_fuzz_" +
                        std::string(tag) + "_" + std::to_string(::getpid()) + ext;
        made_.insert(p);
        return p;
    }
    ~Scratch() {
        std::error_code ignored;
        for (const std::string& p : made_)
            std::filesystem::remove_all(p, ignored);
    }

  private:
    Scratch() = default;
    std::set<std::string> made_;
};

// Writes `text` to the scratch file of `tag` and `ext` and returns its path. Each input
// rewrites the file: on a disk mounted with `discard`, truncating it waits for the device every
// time, so scripts/fuzz.sh points TMPDIR at a tmpfs where it can.
inline std::string as_file(std::string_view text, const char* tag, const char* ext) {
    const std::string path = Scratch::get().path(tag, ext);
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) return path;
    std::fwrite(text.data(), 1, text.size(), f);
    std::fclose(f);
    return path;
}

}  // namespace numasim::fuzz
