// A profile file read as a stream: bytes in 64 KiB pieces, one character at a time to a parser,
// with the line number of the character last read (for error messages) and the SHA-256 of what
// has been read (for the scenario's comment), so that a file of many gigabytes is read, counted
// and hashed in one pass with constant memory. A zlib stream (RFC 1950; damo record's default
// json_compressed output is its JSON through Python's zlib.compress()) is inflated on the way:
// the parser and the line numbers see the text, the hash is of the file as stored.
#pragma once

#include <array>
#include <cstdint>
#include <cstdio>
#include <iterator>
#include <string>

#include "config/sha256.h"

struct z_stream_s;

namespace numasim {

// A line of a text profile. The longest line `perf script` prints for damon_aggregated is about
// 150 bytes; a longer one means the file is not such a text, and is refused before it fills
// memory.
inline constexpr size_t kMaxProfileLineBytes = 4096;

class ProfileInput {
  public:
    explicit ProfileInput(std::string path);  // throws InputError when it cannot be opened
    ~ProfileInput();
    ProfileInput(const ProfileInput&) = delete;
    ProfileInput& operator=(const ProfileInput&) = delete;

    const std::string& path() const { return path_; }
    bool compressed() const { return z_ != nullptr; }
    // The next character, or EOF; the line count follows it.
    int get() {
        if (pos_ == len_ && !refill()) return EOF;
        const int c = static_cast<unsigned char>(buf_[pos_++]);
        if (c == '\n') ++line_;
        return c;
    }
    // One line without its '\n'; false at the end of the file. `truncated` is set when the last
    // line has no '\n' (a file cut off in the middle of a record).
    bool getline(std::string& line, bool& truncated);
    int64_t line() const { return line_; }  // 1-based: the line of the next character
    // The SHA-256 of the whole file: reads to the end first.
    std::string sha256();

  private:
    bool refill();
    size_t read_raw(char* to, size_t n);  // from the file, hashed
    bool inflate_some();                  // fills buf_ from the zlib stream

    std::string path_;
    std::FILE* f_ = nullptr;
    z_stream_s* z_ = nullptr;  // set when the file is a zlib stream
    bool z_end_ = false;       // the stream's end was seen
    std::array<char, 65536> raw_{};
    std::array<char, 65536> buf_{};
    size_t pos_ = 0, len_ = 0;
    int64_t line_ = 1;
    Sha256 hash_;
};

// An input iterator over a ProfileInput, for parsers that take iterator ranges (nlohmann's SAX).
class ProfileIterator {
  public:
    using iterator_category = std::input_iterator_tag;
    using value_type = char;
    using difference_type = std::ptrdiff_t;
    using pointer = const char*;
    using reference = const char&;

    ProfileIterator() = default;  // the end
    explicit ProfileIterator(ProfileInput& in) : in_(&in) { next(); }
    const char& operator*() const { return c_; }
    ProfileIterator& operator++() {
        next();
        return *this;
    }
    ProfileIterator operator++(int) {
        ProfileIterator old = *this;
        next();
        return old;
    }
    bool operator==(const ProfileIterator& o) const { return at_end() == o.at_end(); }
    bool operator!=(const ProfileIterator& o) const { return !(*this == o); }

  private:
    bool at_end() const { return in_ == nullptr; }
    void next() {
        const int c = in_->get();
        if (c == EOF)
            in_ = nullptr;
        else
            c_ = static_cast<char>(c);
    }
    ProfileInput* in_ = nullptr;
    char c_ = 0;
};

}  // namespace numasim
