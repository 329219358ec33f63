#include "oracle/debian_kernel.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "config/input_error.h"
#include "oracle/kernel_image.h"
#include "oracle/subprocess.h"

namespace numasim {

namespace fs = std::filesystem;

namespace {

// The flavour without the Secure Boot signature: the same kernel, and its package carries the
// image itself rather than a link to a signed template.
constexpr const char* kUnsignedSuffix = "-unsigned";

// boot/vmlinuz-<release> of an unpacked package directory, if any.
std::optional<KernelImage> unpacked_kernel(const fs::path& dir, const std::string& package) {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir / "boot", ec)) {
        const std::string name = e.path().filename().string();
        if (name.rfind("vmlinuz-", 0) != 0) continue;
        KernelImage k;
        k.bzimage = e.path().string();
        k.release = name.substr(8);
        const fs::path cfg = dir / "boot" / ("config-" + k.release);
        if (fs::exists(cfg)) k.config = cfg.string();
        k.origin = "Debian package " + package;
        return k;
    }
    return std::nullopt;
}

std::string read_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

void check_config(const KernelImage& k) {
    if (!k.config.empty() && !config_has_numa_balancing(read_text(k.config)))
        throw InputError(k.config, "CONFIG_NUMA_BALANCING",
                         "this kernel is built without NUMA balancing");
}

std::optional<KernelImage> newest_cached(const fs::path& kernels) {
    std::vector<fs::path> dirs;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(kernels, ec))
        if (e.is_directory() && e.path().extension() != ".tmp") dirs.push_back(e.path());
    std::sort(dirs.begin(), dirs.end());
    for (auto it = dirs.rbegin(); it != dirs.rend(); ++it)
        if (auto k = unpacked_kernel(*it, it->filename().string())) return k;
    return std::nullopt;
}

KernelImage download(const fs::path& cache, const fs::path& kernels, const std::string& package,
                     const std::function<void(const std::string&)>& log) {
    const fs::path debs = cache / "debs";
    fs::create_directories(debs);
    fs::create_directories(kernels);
    log("oracle: apt-get download " + package);
    const CommandResult dl =
        run_command({"apt-get", "download", package}, {.cwd = debs.string(), .on_line = {}});
    if (dl.exit_code != 0)
        throw InputError("apt-get download " + package, "",
                         "failed (is the Debian archive reachable?):\n" + dl.output);
    fs::path deb;
    for (const auto& e : fs::directory_iterator(debs))
        if (e.path().filename().string().rfind(package + "_", 0) == 0) deb = e.path();
    if (deb.empty()) throw InputError(debs.string(), "", "apt-get download left no " + package);
    const fs::path tmp = kernels / (package + ".tmp");
    fs::remove_all(tmp);
    log("oracle: dpkg-deb -x " + deb.filename().string());
    const CommandResult x = run_command({"dpkg-deb", "-x", deb.string(), tmp.string()});
    if (x.exit_code != 0) throw InputError(deb.string(), "", "dpkg-deb -x failed:\n" + x.output);
    // Keep boot/ (the image and its config); the modules are of no use to an initramfs guest.
    const fs::path final_dir = kernels / package;
    fs::remove_all(final_dir);
    fs::create_directories(final_dir);
    fs::rename(tmp / "boot", final_dir / "boot");
    fs::remove_all(tmp);
    fs::remove(deb);
    auto k = unpacked_kernel(final_dir, package);
    if (!k) throw InputError(package, "", "the package holds no boot/vmlinuz-*");
    return *k;
}

}  // namespace

std::optional<std::string> debian_image_package(std::string_view out) {
    std::istringstream in{std::string(out)};
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream w(line);
        std::string key, value;
        if (w >> key >> value && key == "Depends:" && value.rfind("linux-image-", 0) == 0)
            return value;
    }
    return std::nullopt;
}

std::optional<std::string> debian_unsigned_package(std::string_view name,
                                                   std::string_view apt_cache_depends_output) {
    constexpr std::string_view kImagePrefix = "linux-image-";
    if (name.rfind(kImagePrefix, 0) != 0 || name.size() == kImagePrefix.size()) return std::nullopt;
    std::string image(name);
    if (auto dep = debian_image_package(apt_cache_depends_output)) image = *dep;
    const std::string_view suffix = kUnsignedSuffix;
    if (image.size() < suffix.size() ||
        image.compare(image.size() - suffix.size(), suffix.size(), suffix) != 0)
        image += suffix;
    return image;
}

void check_kernel_package_name(const std::string& name) {
    if (!debian_unsigned_package(name, ""))
        throw InputError("command line", "--kernel-package",
                         "'" + name + "' is not a Debian kernel image package (linux-image-*)");
}

bool config_has_damon_vaddr_sysfs(std::string_view config) {
    bool vaddr = false, sysfs = false;
    std::istringstream in{std::string(config)};
    std::string line;
    while (std::getline(in, line)) {
        vaddr = vaddr || line == "CONFIG_DAMON_VADDR=y";
        sysfs = sysfs || line == "CONFIG_DAMON_SYSFS=y";
    }
    return vaddr && sysfs;
}

KernelImage debian_kernel(const std::string& cache_dir,
                          const std::function<void(const std::string&)>& log,
                          const std::string& package) {
    const fs::path cache(cache_dir);
    // The default package's kernels keep the cache layout they always had; a package named with
    // --kernel-package gets a directory of its own, so that a fallback to the newest cached
    // kernel never picks another package's (a 6.12 kernel for the default 6.1 one).
    const bool named = package != kDebianDefaultKernelPackage;
    const fs::path kernels = named ? cache / "packages" / package : cache / "kernels";
    check_kernel_package_name(package);
    std::optional<std::string> unsigned_pkg;
    if (have_program("apt-cache")) {
        const CommandResult r = run_command({"apt-cache", "depends", package});
        if (r.exit_code == 0) unsigned_pkg = debian_unsigned_package(package, r.output);
    }
    std::optional<KernelImage> k;
    if (unsigned_pkg) {
        k = unpacked_kernel(kernels / *unsigned_pkg, *unsigned_pkg);
        if (!k) k = download(cache, kernels, *unsigned_pkg, log);
    } else {
        k = newest_cached(kernels);
    }
    if (!k)
        throw InputError("oracle", "kernel",
                         "apt knows no " + package + " and no kernel is cached in " +
                             kernels.string() +
                             ": run `apt-get update` (Debian), or pass --kernel PATH");
    if (auto r = bzimage_release_of_file(k->bzimage)) k->release = *r;
    check_config(*k);
    return *k;
}

KernelImage user_kernel(const std::string& path) {
    if (!fs::exists(path)) throw InputError("command line", "--kernel", "no such file: " + path);
    KernelImage k;
    k.bzimage = path;
    k.origin = "--kernel " + path;
    const auto release = bzimage_release_of_file(path);
    if (!release)
        throw InputError(path, "",
                         "not an x86 bzImage (no setup header with a version string); "
                         "give arch/x86/boot/bzImage");
    k.release = *release;
    const fs::path dir = fs::path(path).parent_path();
    for (const fs::path& c :
         {dir / ".config", dir / "config", dir / ("config-" + k.release), dir / "../../../.config"})
        if (fs::exists(c)) {
            k.config = fs::weakly_canonical(c).string();
            break;
        }
    check_config(k);
    return k;
}

std::string default_oracle_cache_dir() {
    if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x)
        return (fs::path(x) / "numasim" / "oracle").string();
    const char* home = std::getenv("HOME");
    return (fs::path(home && *home ? home : "/tmp") / ".cache" / "numasim" / "oracle").string();
}

}  // namespace numasim
