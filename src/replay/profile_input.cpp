#include "replay/profile_input.h"

#include <fmt/format.h>
#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <string_view>

#include "config/input_error.h"

namespace numasim {

ProfileInput::ProfileInput(std::string path) : path_(std::move(path)) {
    f_ = std::fopen(path_.c_str(), "rb");
    if (!f_) throw InputError(path_, "", fmt::format("cannot open: {}", std::strerror(errno)));
    // A zlib header: CMF 0x78 (deflate, 32 KiB window) and a flag byte that makes the pair a
    // multiple of 31 (RFC 1950, 2.2). Text and JSON never start so ('x' then a letter is not).
    const int b0 = std::getc(f_), b1 = std::getc(f_);
    std::rewind(f_);
    if (b0 == 0x78 && b1 != EOF && (b0 * 256 + b1) % 31 == 0) {
        z_ = new z_stream{};
        if (inflateInit(z_) != Z_OK) {
            delete z_;
            std::fclose(f_);
            throw InputError(path_, "", "zlib: cannot start inflating");
        }
    }
}

ProfileInput::~ProfileInput() {
    if (z_) {
        inflateEnd(z_);
        delete z_;
    }
    std::fclose(f_);
}

size_t ProfileInput::read_raw(char* to, size_t n) {
    const size_t got = std::fread(to, 1, n, f_);
    if (got == 0 && std::ferror(f_)) throw InputError(path_, "", "read error");
    hash_.update(std::string_view(to, got));
    return got;
}

bool ProfileInput::inflate_some() {
    z_->next_out = reinterpret_cast<Bytef*>(buf_.data());
    z_->avail_out = static_cast<uInt>(buf_.size());
    while (z_->avail_out == buf_.size() && !z_end_) {
        if (z_->avail_in == 0) {
            const size_t got = read_raw(raw_.data(), raw_.size());
            if (got == 0)
                throw InputError(path_, fmt::format("line {}", line_),
                                 "the compressed stream ends early: the file is truncated");
            z_->next_in = reinterpret_cast<Bytef*>(raw_.data());
            z_->avail_in = static_cast<uInt>(got);
        }
        const int rc = inflate(z_, Z_NO_FLUSH);
        if (rc == Z_STREAM_END) {
            z_end_ = true;
        } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
            throw InputError(path_, fmt::format("line {}", line_),
                             fmt::format("zlib: {}", z_->msg ? z_->msg : "corrupt data"));
        }
    }
    len_ = buf_.size() - z_->avail_out;
    return len_ > 0;
}

bool ProfileInput::refill() {
    pos_ = 0;
    if (z_) return inflate_some();
    len_ = read_raw(buf_.data(), buf_.size());
    return len_ > 0;
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
    // The rest of the file as stored (a compressed file's trailing bytes too).
    while (read_raw(raw_.data(), raw_.size()) > 0) {
    }
    return hash_.hex();
}

}  // namespace numasim
