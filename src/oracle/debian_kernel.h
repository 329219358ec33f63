// The oracle's default kernel: the Debian package linux-image-amd64 depends on, in its
// -unsigned flavour, fetched with `apt-get download` and unpacked with `dpkg-deb -x` into a
// cache directory; it is never installed. Only boot/ of the package is kept. Another Debian
// kernel package (`--kernel-package`, e.g. linux-image-6.12-amd64 of bookworm-security) is
// resolved and cached the same way, in a directory of its own.
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

// The -unsigned image package that boots for the package `name` the user named: a metapackage
// (linux-image-amd64, linux-image-6.12-amd64) stands for the image package it depends on in
// `apt_cache_depends_output` (`apt-cache depends NAME`); an image package stands for itself.
// nullopt if `name` is not a linux-image-* package.
std::optional<std::string> debian_unsigned_package(std::string_view name,
                                                   std::string_view apt_cache_depends_output);

// Throws InputError naming --kernel-package unless `name` is a linux-image-* package name.
void check_kernel_package_name(const std::string& name);

// Debian's default kernel package, which the oracle boots unless told otherwise.
inline constexpr const char* kDebianDefaultKernelPackage = "linux-image-amd64";

// The cached kernel, or a fresh download of the image package `package` (a metapackage or an
// image package, debian_unsigned_package()) names now. Falls back to the newest kernel cached
// for `package` when apt knows no such package (no network, no package lists). `log` receives
// one line per step that takes time. Throws InputError with what to do when there is no kernel
// at all, or when `package` is not a linux-image-* name.
KernelImage debian_kernel(const std::string& cache_dir,
                          const std::function<void(const std::string&)>& log,
                          const std::string& package = kDebianDefaultKernelPackage);

// A kernel config text: true if it has DAMON's virtual-address monitoring and its sysfs
// interface (CONFIG_DAMON_VADDR=y and CONFIG_DAMON_SYSFS=y; both need CONFIG_DAMON=y).
bool config_has_damon_vaddr_sysfs(std::string_view config);

// A user's own bzImage (`--kernel PATH`): its release from the setup header, and a config file
// beside it (config, .config, config-<release>) if there is one.
KernelImage user_kernel(const std::string& path);

// The default cache: $XDG_CACHE_HOME/numasim/oracle, else $HOME/.cache/numasim/oracle.
std::string default_oracle_cache_dir();

}  // namespace numasim
