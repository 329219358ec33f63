// SHA-256 (FIPS 180-4) of a byte string, as lowercase hex: the content hash that outputs record
// for the scenario file they ran, comparable with `sha256sum FILE`.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace numasim {

std::string sha256_hex(std::string_view data);

// The same hash fed in pieces, for files read as a stream (`numasim import` hashes profiles of
// many gigabytes without holding them).
class Sha256 {
  public:
    Sha256();
    void update(std::string_view data);
    // The digest of everything fed so far; call once, last.
    std::string hex();

  private:
    std::array<uint32_t, 8> h_;
    std::array<unsigned char, 64> block_{};
    size_t fill_ = 0;
    uint64_t length_ = 0;
};

}  // namespace numasim
