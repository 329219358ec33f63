// What the oracle knows about a kernel before booting it: the release string in a bzImage's
// setup header (Documentation/arch/x86/boot.rst, field kernel_version), the series it belongs
// to, and whether its config has NUMA balancing.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace numasim {

// The release ("6.1.0-57-amd64") of an x86 bzImage, from the version string the setup header
// points at; nullopt if `image` is not a bzImage of boot protocol 2.00 or later.
std::optional<std::string> bzimage_release(std::string_view image);
std::optional<std::string> bzimage_release_of_file(const std::string& path);

// "6.1.0-57-amd64" -> "v6.1", as kernel profiles name their release; "" if unparsable.
std::string kernel_series(const std::string& release);

// A kernel config text: true if CONFIG_NUMA_BALANCING=y.
bool config_has_numa_balancing(std::string_view config);

}  // namespace numasim
