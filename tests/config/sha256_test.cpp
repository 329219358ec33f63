// SHA-256 against the FIPS 180-4 example vectors and a message that spans the padding boundary.
#include "config/sha256.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <string_view>

namespace numasim {
namespace {

TEST(Sha256, FipsExamples) {
    EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    EXPECT_EQ(sha256_hex("abc"),
              "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
              "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST(Sha256, MillionAs) {
    EXPECT_EQ(sha256_hex(std::string(1000000, 'a')),
              "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

// Fed in uneven pieces (1, 63, 64, 65 bytes ... across block edges), the digest is the same.
TEST(Sha256, PiecesMatchOneShot) {
    Sha256 s;
    const std::string a(1000000, 'a');
    size_t at = 0;
    for (size_t piece = 1; at < a.size(); piece = piece % 130 + 1) {
        const size_t n = std::min(piece, a.size() - at);
        s.update(std::string_view(a).substr(at, n));
        at += n;
    }
    EXPECT_EQ(s.hex(), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

}  // namespace
}  // namespace numasim
