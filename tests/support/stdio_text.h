// The text a writer puts on a C stdio stream, for tests of the writers that stream to FILE*.
#pragma once

#include <cstdio>
#include <functional>
#include <string>

namespace numasim::test {

inline std::string stdio_text(const std::function<void(std::FILE*)>& write) {
    std::FILE* f = std::tmpfile();
    write(f);
    std::rewind(f);
    std::string s;
    for (int c; (c = std::fgetc(f)) != EOF;)
        s += static_cast<char>(c);
    std::fclose(f);
    return s;
}

}  // namespace numasim::test
