// The qemu-system-x86_64 command line of one oracle boot: the guest machine's nodes (one
// memory backend and one `-numa node` per node), the SLIT (`-numa dist`), the accelerator, the
// kernel, the initramfs and the kernel command line. The serial console goes to standard output.
#pragma once

#include <string>
#include <vector>

#include "oracle/guest_machine.h"

namespace numasim {

enum class Accel {
    Kvm,  // hardware virtualisation: guest time and speed are close to the host's
    Tcg,  // software emulation: guest CPUs run several times slower than real ones
};

std::string to_string(Accel a);

struct QemuBoot {
    std::string qemu = "qemu-system-x86_64";
    Accel accel = Accel::Tcg;
    std::string kernel;  // bzImage
    std::string initrd;  // newc cpio archive
    std::string append;  // kernel command line
};

// "0-3" or "0-1,4-5": a CPU list as qemu's `cpus=` and Linux's cpulist files write it.
std::string cpu_list_text(const std::vector<int>& cpus);

std::vector<std::string> qemu_argv(const GuestMachine& g, const QemuBoot& b);

// The kernel command line the oracle boots with: the serial console, quiet, no reboot loop on a
// panic (qemu runs with -no-reboot, so a panic ends the boot), and `extra` appended.
std::string guest_kernel_cmdline(const std::string& extra = "");

}  // namespace numasim
