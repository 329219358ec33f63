#include "experiment/oracle_guest_boot.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <system_error>

#include "config/input_error.h"
#include "experiment/oracle.h"
#include "guest/protocol.h"
#include "oracle/guest_log.h"
#include "oracle/kernel_image.h"
#include "oracle/subprocess.h"
#include "oracle/work_dir.h"

namespace numasim {

namespace fs = std::filesystem;

namespace {

// A probe boot under KVM comes up in seconds; one that has not after this long never will.
constexpr double kProbeTimeoutS = 40;

std::string read_binary(const std::string& path, const std::string& what) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path, "", "cannot read the " + what);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// `bytes` as the file `path`, which qemu reads next: a short write (a full --cache disk) would
// boot a truncated initramfs and fail as if in the guest, so it is an error here, at its cause.
void write_binary(const std::string& path, const std::string& bytes) {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) throw InputError(path, "", std::string("cannot create: ") + std::strerror(errno));
    const bool ok =
        std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size() && std::fflush(f) == 0;
    const int err = errno;
    if (std::fclose(f) != 0 || !ok)
        throw InputError(path, "", std::string("cannot write: ") + std::strerror(ok ? errno : err));
}

std::string default_guest_binary() {
    std::error_code ec;
    const fs::path self = fs::read_symlink("/proc/self/exe", ec);
    return ec ? std::string("numasim-guest") : guest_binary_for(self);
}

}  // namespace

GuestBoot::GuestBoot(const GuestBootInputs& in, const KernelImage& kernel,
                     const GuestMachine& guest, const GuestConfig& gc) {
    const std::string guest_path =
        in.guest_binary.empty() ? default_guest_binary() : in.guest_binary;
    const std::string busybox = read_binary(in.busybox, "static busybox (Debian busybox-static)");
    const std::string runner = read_binary(guest_path, "guest runner (the numasim-guest target)");
    if (!is_static_x86_64_elf(busybox))
        throw InputError(in.busybox, "", "not a static x86-64 busybox (install busybox-static)");
    if (!is_static_x86_64_elf(runner))
        throw InputError(guest_path, "", "not a static x86-64 executable");

    work_ = make_oracle_work_dir(in.cache);
    try {
        const std::string initrd = (work_ / "initramfs.cpio").string();
        write_binary(initrd, build_initramfs(busybox, runner, gc));
        boot_ = QemuBoot{.qemu = in.qemu,
                         .accel = Accel::Tcg,
                         .kernel = kernel.bzimage,
                         .initrd = initrd,
                         .append = guest_kernel_cmdline()};
        accel_ = choose_accel(in.accel, (fs::path(in.cache) / "kvm-probe").string(),
                              accel_probe_key(kernel.release), [&] {
                                  if (in.status) in.status(in.probe_message);
                                  QemuBoot probe = boot_;
                                  probe.accel = Accel::Kvm;
                                  probe.append =
                                      guest_kernel_cmdline(std::string(guest_line::kProbeWord));
                                  BootLogReader r;
                                  run_command(qemu_argv(guest, probe),
                                              {.timeout_s = kProbeTimeoutS,
                                               .cwd = "",
                                               .on_line = [&](std::string_view l) { r.feed(l); }});
                                  return r.log().probe_ok;
                              });
        boot_.accel = accel_.accel;
    } catch (...) {
        std::error_code ec;
        fs::remove_all(work_, ec);  // the destructor does not run for a throwing constructor
        throw;
    }
}

GuestBoot::~GuestBoot() {
    std::error_code ec;
    fs::remove_all(work_, ec);
}

}  // namespace numasim
