#include "kernel/release.h"

#include <charconv>

namespace numasim {

std::optional<KernelRelease> parse_kernel_release(std::string_view release) {
    if (!release.empty() && release.front() == 'v') release.remove_prefix(1);
    KernelRelease r;
    const char* end = release.data() + release.size();
    auto [p, ec] = std::from_chars(release.data(), end, r.major);
    if (ec != std::errc() || p == end || *p != '.') return std::nullopt;
    if (std::from_chars(p + 1, end, r.minor).ec != std::errc()) return std::nullopt;
    return r;
}

}  // namespace numasim
