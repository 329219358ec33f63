#include "oracle/kernel_image.h"

#include <cctype>
#include <cstdint>
#include <fstream>
#include <sstream>

namespace numasim {

namespace {

// Offsets in the real-mode setup header of a bzImage (Documentation/arch/x86/boot.rst).
constexpr size_t kHeaderMagicOffset = 0x202;    // "HdrS"
constexpr size_t kProtocolOffset = 0x206;       // boot protocol version, u16
constexpr size_t kKernelVersionOffset = 0x20E;  // pointer to the version string - 0x200, u16
constexpr size_t kKernelVersionBase = 0x200;
constexpr uint16_t kMinProtocol = 0x200;  // kernel_version exists from 2.00 on

uint16_t le16(std::string_view s, size_t off) {
    return static_cast<uint16_t>(static_cast<unsigned char>(s[off]) |
                                 static_cast<unsigned char>(s[off + 1]) << 8);
}

}  // namespace

std::optional<std::string> bzimage_release(std::string_view image) {
    if (image.size() < kKernelVersionOffset + 2) return std::nullopt;
    if (image.substr(kHeaderMagicOffset, 4) != "HdrS") return std::nullopt;
    if (le16(image, kProtocolOffset) < kMinProtocol) return std::nullopt;
    const uint16_t ptr = le16(image, kKernelVersionOffset);
    if (ptr == 0) return std::nullopt;
    const size_t at = kKernelVersionBase + ptr;
    if (at >= image.size()) return std::nullopt;
    // "6.1.0-57-amd64 (debian-kernel@lists.debian.org) #1 SMP ...": the release is the first word.
    size_t end = at;
    while (end < image.size() && image[end] != ' ' && image[end] != '\0')
        ++end;
    if (end == at) return std::nullopt;
    return std::string(image.substr(at, end - at));
}

std::optional<std::string> bzimage_release_of_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return std::nullopt;
    // The version string lies within the setup sectors, which are at most 64 KiB.
    std::string head(64 * 1024, '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<size_t>(in.gcount()));
    return bzimage_release(head);
}

std::string kernel_series(const std::string& release) {
    size_t i = 0;
    auto number = [&] {
        const size_t s = i;
        while (i < release.size() && std::isdigit(static_cast<unsigned char>(release[i])))
            ++i;
        return release.substr(s, i - s);
    };
    const std::string major = number();
    if (major.empty() || i >= release.size() || release[i] != '.') return "";
    ++i;
    const std::string minor = number();
    if (minor.empty()) return "";
    return "v" + major + "." + minor;
}

bool config_has_numa_balancing(std::string_view config) {
    std::istringstream in{std::string(config)};
    std::string line;
    while (std::getline(in, line))
        if (line == "CONFIG_NUMA_BALANCING=y") return true;
    return false;
}

}  // namespace numasim
