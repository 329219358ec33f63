// The fuzzed bytes as a file under a fixed name for this process: numasim's readers take paths.
#pragma once

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace numasim::fuzz {

// Writes `text` to $TMPDIR/numasim_fuzz_<tag>_PID<ext> (TMPDIR unset: /tmp) and returns the
// path. Each input rewrites the file: on a disk mounted with `discard`, truncating it waits for
// the device every time, so scripts/fuzz.sh points TMPDIR at a tmpfs where it can.
inline std::string as_file(std::string_view text, const char* tag, const char* ext) {
    const char* dir = std::getenv("TMPDIR");
    const std::string path = std::string(dir && *dir ? dir : "/tmp") + "/numasim_fuzz_" +
                             std::string(tag) + "_" + std::to_string(::getpid()) + ext;
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) return path;
    std::fwrite(text.data(), 1, text.size(), f);
    std::fclose(f);
    return path;
}

}  // namespace numasim::fuzz
