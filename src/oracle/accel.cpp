#include "oracle/accel.h"

#include <fcntl.h>
#include <linux/kvm.h>
#include <sys/ioctl.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "config/input_error.h"

namespace numasim {

namespace {

// include/uapi/linux/kvm.h: "#define KVM_API_VERSION 12", stable since Linux 2.6.22.
constexpr int kKvmApiVersion = 12;

}  // namespace

bool kvm_device_usable() {
    const int fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);
    if (fd < 0) return false;
    const int v = ioctl(fd, KVM_GET_API_VERSION, 0);
    close(fd);
    return v == kKvmApiVersion;
}

std::string accel_probe_key(const std::string& guest_release) {
    utsname u{};
    uname(&u);
    return std::string(u.release) + "/" + guest_release;
}

AccelChoice choose_accel(const std::string& request, const std::string& cache_file,
                         const std::string& key, const std::function<bool()>& probe) {
    if (request == "tcg") return {Accel::Tcg, "TCG (software emulation), as asked (--accel tcg)"};
    if (request == "kvm") {
        if (!kvm_device_usable())
            throw InputError("command line", "--accel kvm", "/dev/kvm is missing or unusable");
        return {Accel::Kvm, "KVM, as asked (--accel kvm)"};
    }
    if (request != "auto")
        throw InputError("command line", "--accel", "expected auto, kvm or tcg, got " + request);
    if (!kvm_device_usable()) return {Accel::Tcg, "TCG (software emulation): no usable /dev/kvm"};
    // A cached answer: "<key> ok" or "<key> fail".
    {
        std::ifstream in(cache_file);
        std::string k, verdict;
        while (in >> k >> verdict)
            if (k == key)
                return verdict == "ok"
                           ? AccelChoice{Accel::Kvm, "KVM (a probe boot succeeded earlier)"}
                           : AccelChoice{Accel::Tcg,
                                         "TCG (software emulation): /dev/kvm exists but a probe "
                                         "boot under KVM did not come up (cached)"};
    }
    const bool ok = probe();
    std::filesystem::create_directories(std::filesystem::path(cache_file).parent_path());
    std::ofstream(cache_file, std::ios::app) << key << ' ' << (ok ? "ok" : "fail") << '\n';
    return ok ? AccelChoice{Accel::Kvm, "KVM (a probe boot succeeded)"}
              : AccelChoice{Accel::Tcg,
                            "TCG (software emulation): /dev/kvm exists but a probe boot under "
                            "KVM did not come up"};
}

}  // namespace numasim
