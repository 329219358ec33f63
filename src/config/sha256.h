// SHA-256 (FIPS 180-4) of a byte string, as lowercase hex: the content hash that outputs record
// for the scenario file they ran, comparable with `sha256sum FILE`.
#pragma once

#include <string>
#include <string_view>

namespace numasim {

std::string sha256_hex(std::string_view data);

}  // namespace numasim
