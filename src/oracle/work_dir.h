// The oracle's working directory for one command: `CACHE/run-PID`, holding the initramfs while
// qemu boots it. It is removed when the command ends, however it ends, but a process killed
// with SIGKILL (or ended by a signal's default action) cannot remove anything: the next oracle
// command on the same cache removes the directories whose process is gone.
#pragma once

#include <filesystem>

namespace numasim {

// Removes the run-PID directories of `cache` whose PID names no live process (nor a zombie's),
// then creates and returns this process's own.
std::filesystem::path make_oracle_work_dir(const std::filesystem::path& cache);

// The process `pid` exists and has not yet exited: false for a zombie, whose parent has not
// reaped it (a container's init often does not).
bool process_alive(int pid);

}  // namespace numasim
