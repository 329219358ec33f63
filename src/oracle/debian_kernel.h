// The oracle's default kernel: the Debian package linux-image-amd64 depends on, in its
// -unsigned flavour, fetched with `apt-get download` and unpacked with `dpkg-deb -x` into a
// cache directory; it is never installed. Only boot/ of the package is kept.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace numasim {

struct KernelImage {
    std::string bzimage;  // path of the kernel to boot
    std::string config;   // path of its config, "" if unknown (a user's own bzImage)
    std::string release;  // "6.1.0-57-amd64"
    std::string origin;   // "Debian package linux-image-6.1.0-57-amd64-unsigned" or "--kernel"
};

// The package name in `apt-cache depends linux-image-amd64` output ("Depends:
// linux-image-6.1.0-57-amd64" -> "linux-image-6.1.0-57-amd64"); nullopt if none.
std::optional<std::string> debian_image_package(std::string_view apt_cache_depends_output);

// The cached kernel, or a fresh download of the package linux-image-amd64 names now. Falls back
// to the newest cached kernel when apt knows no package (no network, no package lists).
// `log` receives one line per step that takes time. Throws InputError with what to do when there
// is no kernel at all.
KernelImage debian_kernel(const std::string& cache_dir,
                          const std::function<void(const std::string&)>& log);

// A user's own bzImage (`--kernel PATH`): its release from the setup header, and a config file
// beside it (config, .config, config-<release>) if there is one.
KernelImage user_kernel(const std::string& path);

// The default cache: $XDG_CACHE_HOME/numasim/oracle, else $HOME/.cache/numasim/oracle.
std::string default_oracle_cache_dir();

}  // namespace numasim
