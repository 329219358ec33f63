// KVM when it works, TCG otherwise. /dev/kvm existing is not enough: a nested or paravirtual
// KVM (kvm-pvm, for one) accepts the ioctls and then hangs or aborts the guest once it enters
// long mode. So `auto` probes with a short boot the first time and remembers the answer in the
// cache directory, keyed by the host kernel and the guest kernel.
#pragma once

#include <functional>
#include <string>

#include "oracle/qemu_command.h"

namespace numasim {

struct AccelChoice {
    Accel accel = Accel::Tcg;
    std::string why;  // one sentence for the report
};

// /dev/kvm opens read-write and answers KVM_GET_API_VERSION with the stable API version 12.
bool kvm_device_usable();

// `request` is "auto", "kvm" or "tcg". For "auto", `probe` boots the guest once under KVM and
// returns true if it came up; its answer is cached in `cache_file` under `key`.
AccelChoice choose_accel(const std::string& request, const std::string& cache_file,
                         const std::string& key, const std::function<bool()>& probe);

// "<host release>/<guest release>": what a cached probe answer depends on.
std::string accel_probe_key(const std::string& guest_release);

}  // namespace numasim
