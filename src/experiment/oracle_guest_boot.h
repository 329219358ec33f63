// What `numasim oracle` and `numasim calibrate --oracle` do alike before they boot: read the
// static busybox and the guest runner, pack them with the guest's configuration into an
// initramfs in a work directory of the cache, and choose the accelerator (a short KVM probe
// boot, its answer cached). The work directory goes with the object; one left by a numasim
// killed mid-boot goes with the next oracle command (oracle/work_dir.h).
#pragma once

#include <filesystem>
#include <functional>
#include <string>

#include "oracle/accel.h"
#include "oracle/debian_kernel.h"
#include "oracle/guest_image.h"
#include "oracle/guest_machine.h"
#include "oracle/qemu_command.h"

namespace numasim {

// The wall-clock limit of a boot whose guest works for `guest_seconds`. Under TCG a guest takes
// about 2-5 s to reach init, and first touch of a few GiB is slower than on hardware; the limit
// only catches a hung guest: 4 times the work plus 240 s.
inline double guest_boot_timeout_s(double guest_seconds) {
    constexpr double kBootTimeFactor = 4;
    constexpr double kBootSlackS = 240;
    return kBootTimeFactor * guest_seconds + kBootSlackS;
}

struct GuestBootInputs {
    std::string busybox;        // a static busybox
    std::string guest_binary;   // the numasim-guest runner; "" for the one beside numasim
    std::string cache;          // the oracle's cache directory
    std::string qemu;           // qemu-system-x86_64, or a path
    std::string accel;          // auto, kvm, tcg
    std::string probe_message;  // said before a KVM probe boot
    std::function<void(const std::string&)> status;
};

class GuestBoot {
  public:
    // Throws InputError for an unreadable or non-static busybox or runner and for an initramfs
    // that cannot be written in full.
    GuestBoot(const GuestBootInputs& in, const KernelImage& kernel, const GuestMachine& guest,
              const GuestConfig& gc);
    ~GuestBoot();
    GuestBoot(const GuestBoot&) = delete;
    GuestBoot& operator=(const GuestBoot&) = delete;

    // The boot: kernel, initramfs, the guest's command line and the chosen accelerator.
    const QemuBoot& boot() const { return boot_; }
    const AccelChoice& accel() const { return accel_; }

  private:
    std::filesystem::path work_;
    QemuBoot boot_;
    AccelChoice accel_;
};

}  // namespace numasim
