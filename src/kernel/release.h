// A kernel release as the profiles name it ("v6.6", "6.12", "v4.18"): the MAJOR.MINOR that
// decides which version of a piece of kernel code a profile runs.
#pragma once

#include <compare>
#include <optional>
#include <string_view>

namespace numasim {

struct KernelRelease {
    int major = 0;
    int minor = 0;
    auto operator<=>(const KernelRelease&) const = default;
};

// MAJOR.MINOR with an optional leading 'v' and anything after the minor ignored ("v6.1.0-57");
// nullopt when the text does not start that way.
std::optional<KernelRelease> parse_kernel_release(std::string_view release);

}  // namespace numasim
