#include "oracle/guest_image.h"

#include <fmt/format.h>

#include <cstdint>
#include <cstring>
#include <stdexcept>

#include "config/embedded.h"
#include "oracle/cpio_archive.h"

namespace numasim {

namespace {

// ELF64 header fields (include/uapi/linux/elf.h).
constexpr size_t kElfMachineOffset = 18;  // e_machine, u16
constexpr size_t kElfPhoffOffset = 32;    // e_phoff, u64
constexpr size_t kElfPhentsizeOffset = 54;
constexpr size_t kElfPhnumOffset = 56;
constexpr uint16_t kEmX86_64 = 62;
constexpr uint32_t kPtInterp = 3;
constexpr unsigned char kElfClass64 = 2;

template <typename T>
T read_le(std::string_view s, size_t off) {
    T v;
    std::memcpy(&v, s.data() + off, sizeof v);
    return v;  // x86-64 hosts only: the oracle boots x86-64 guests under qemu-system-x86_64
}

// Single quotes protect every character but the quote itself.
std::string shell_quote(const std::string& s) {
    std::string q = "'";
    for (char c : s)
        q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

}  // namespace

std::string guest_env_text(const GuestConfig& c) {
    std::string knobs, args;
    for (const auto& [k, v] : c.knobs)
        knobs += fmt::format("{}{}={}", knobs.empty() ? "" : " ", k, v);
    for (const auto& a : c.runner_args)
        args += " " + a;
    std::string env = fmt::format(
        "NUMA_BALANCING={}\nTHP={}\nTHP_DEFRAG={}\nKNOBS={}\nRUNNER_ARGS={}\n", c.numa_balancing,
        shell_quote(c.thp), shell_quote(c.thp_defrag), shell_quote(knobs),
        shell_quote(std::string(kGuestScenarioPath) + " --params " + kGuestParamsPath + args));
    if (c.tiered) env += fmt::format("TIERED=1\nDEMOTION={}\n", c.demotion_enabled ? 1 : 0);
    return env;
}

std::string build_initramfs(std::string_view busybox, std::string_view runner,
                            const GuestConfig& c) {
    CpioArchive a;
    for (const char* d : {"bin", "dev", "proc", "sys", "tmp", "oracle"})
        a.add_directory(d);
    // The kernel opens /dev/console for init before anything is mounted.
    a.add_char_device("dev/console", 5, 1);
    a.add_file("init", guest_init_script(), 0755);
    a.add_file("bin/busybox", busybox, 0755);
    a.add_file("bin/numasim-guest", runner, 0755);
    a.add_file("oracle/env", guest_env_text(c));
    a.add_file("oracle/scenario.toml", c.scenario_text);
    std::string params;
    for (const auto& p : c.params)
        params += p + "\n";
    a.add_file("oracle/params", params);
    return a.finish();
}

bool is_static_x86_64_elf(std::string_view elf) {
    if (elf.size() < 64 ||
        elf.substr(0, 4) !=
            "\x7f"
            "ELF" ||
        static_cast<unsigned char>(elf[4]) != kElfClass64)
        return false;
    if (read_le<uint16_t>(elf, kElfMachineOffset) != kEmX86_64) return false;
    const auto phoff = read_le<uint64_t>(elf, kElfPhoffOffset);
    const auto phentsize = read_le<uint16_t>(elf, kElfPhentsizeOffset);
    const auto phnum = read_le<uint16_t>(elf, kElfPhnumOffset);
    for (uint16_t i = 0; i < phnum; ++i) {
        const uint64_t off = phoff + uint64_t{i} * phentsize;
        if (off + 4 > elf.size()) return false;
        if (read_le<uint32_t>(elf, off) == kPtInterp) return false;
    }
    return true;
}

std::string_view guest_init_script() {
    const EmbeddedFile* f = find_embedded("oracle_guest", "init");
    if (!f) throw std::logic_error("the oracle's init script is not compiled in");
    return f->text;
}

}  // namespace numasim
