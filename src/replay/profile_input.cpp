#include "replay/profile_input.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <string_view>

#include "config/input_error.h"

namespace numasim {

ProfileInput::ProfileInput(std::string path) : path_(std::move(path)) {
    f_ = std::fopen(path_.c_str(), "rb");
    if (!f_) throw InputError(path_, "", fmt::format("cannot open: {}", std::strerror(errno)));
}

ProfileInput::~ProfileInput() {
    std::fclose(f_);
}

bool ProfileInput::refill() {
    len_ = std::fread(buf_.data(), 1, buf_.size(), f_);
    pos_ = 0;
    if (len_ == 0) {
        if (std::ferror(f_)) throw InputError(path_, "", "read error");
        return false;
    }
    hash_.update(std::string_view(buf_.data(), len_));
    return true;
}

bool ProfileInput::getline(std::string& line, bool& truncated) {
    line.clear();
    truncated = false;
    for (;;) {
        const int c = get();
        if (c == EOF) {
            truncated = !line.empty();
            return !line.empty();
        }
        if (c == '\n') return true;
        if (line.size() == kMaxProfileLineBytes)
            throw InputError(path_, fmt::format("line {}", line_),
                             fmt::format("a line longer than {} bytes: not a text profile",
                                         kMaxProfileLineBytes));
        line += static_cast<char>(c);
    }
}

std::string ProfileInput::sha256() {
    while (get() != EOF) {
        pos_ = len_;
    }
    return hash_.hex();
}

}  // namespace numasim
