// A full disk for the end-to-end tests: a small tmpfs mounted in a mount namespace of its own
// (`unshare -m`), which needs root (as the tests run here and in CI); where mounting is not
// permitted the tests are skipped and say why. The files are copied out of the tmpfs before the
// namespace, and with it the mount, goes away.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "numasim_process.h"

namespace numasim::test {

// Runs `numasim ARGS` (from the source directory) with a tmpfs of `size` bytes mounted on
// `mount`, then copies what the tmpfs holds to `copy`. {m} in ARGS is the mount point.
inline Output on_small_disk(const std::filesystem::path& mount, size_t size,
                            const std::string& args, const std::filesystem::path& copy) {
    std::filesystem::create_directories(mount);
    std::filesystem::create_directories(copy);
    std::string a = args;
    for (size_t at; (at = a.find("{m}")) != std::string::npos;)
        a.replace(at, 3, mount.string());
    const std::string script = "mount -t tmpfs -o size=" + std::to_string(size) + " tmpfs '" +
                               mount.string() + "' && \"$0\" " + a + "; rc=$?; cp -a '" +
                               mount.string() + "/.' '" + copy.string() + "/'; exit $rc";
    return shell("unshare -m sh -c '" + script + "' " + NUMASIM_BINARY);
}

// Whether this process may mount a tmpfs in a mount namespace of its own (root, or a
// container that allows it); the reason if not.
inline std::string cannot_mount() {
    const std::filesystem::path m = scratch_path("mount_probe");
    std::filesystem::create_directories(m);
    const Output o =
        shell("unshare -m sh -c 'mount -t tmpfs -o size=4096 tmpfs " + m.string() + "' 2>&1");
    return o.status == 0 ? "" : "cannot mount a tmpfs in a mount namespace: " + o.out;
}

}  // namespace numasim::test

#define SKIP_UNLESS_MOUNTABLE()                                                  \
    do {                                                                         \
        if (const std::string why = numasim::test::cannot_mount(); !why.empty()) \
            GTEST_SKIP() << why;                                                 \
    } while (false)
