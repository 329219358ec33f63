// The fuzzed bytes as a file under a fixed name for this process: numasim's readers take paths.
#pragma once

#include <unistd.h>

#include <cstdio>
#include <string>
#include <string_view>

namespace numasim::fuzz {

// Writes `text` to /tmp/numasim_fuzz_<tag>_PID<ext> and returns the path.
inline std::string as_file(std::string_view text, const char* tag, const char* ext) {
    const std::string path =
        "/tmp/numasim_fuzz_" + std::string(tag) + "_" + std::to_string(::getpid()) + ext;
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) return path;
    std::fwrite(text.data(), 1, text.size(), f);
    std::fclose(f);
    return path;
}

}  // namespace numasim::fuzz
