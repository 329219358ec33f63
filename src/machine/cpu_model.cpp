#include "machine/cpu_model.h"

#include <array>

namespace numasim {

namespace {

struct Row {
    const char* name;
    CpuArch arch;
    CpuVendor vendor;
    int x86_family;
};

// "intel", "amd" (a pre-Zen family) and "powerpc" stand for any part of their kind. CPUID
// families: Intel's Core and Xeon parts are all family 6 (Intel SDM vol. 2A, CPUID leaf 1);
// AMD's Zen 1/2 are family 17h, Zen 3/4 19h, Zen 5 1Ah (AMD's processor programming references
// for those families). qemu's default TCG model `qemu64` reports AuthenticAMD family 15 (qemu
// target/i386/cpu.c), which the numasim oracle boots (oracle/qemu_command.cpp).
constexpr std::array kModels{
    Row{"intel", CpuArch::kX86_64, CpuVendor::kIntel, 6},
    Row{"haswell", CpuArch::kX86_64, CpuVendor::kIntel, 6},
    Row{"broadwell", CpuArch::kX86_64, CpuVendor::kIntel, 6},
    Row{"skylake", CpuArch::kX86_64, CpuVendor::kIntel, 6},
    Row{"cascadelake", CpuArch::kX86_64, CpuVendor::kIntel, 6},
    Row{"icelake", CpuArch::kX86_64, CpuVendor::kIntel, 6},
    Row{"sapphirerapids", CpuArch::kX86_64, CpuVendor::kIntel, 6},
    Row{"graniterapids", CpuArch::kX86_64, CpuVendor::kIntel, 6},
    Row{"amd", CpuArch::kX86_64, CpuVendor::kAmd, 0x10},
    Row{"qemu64", CpuArch::kX86_64, CpuVendor::kAmd, 0xf},
    Row{"zen1", CpuArch::kX86_64, CpuVendor::kAmd, 0x17},
    Row{"zen2", CpuArch::kX86_64, CpuVendor::kAmd, 0x17},
    Row{"zen3", CpuArch::kX86_64, CpuVendor::kAmd, 0x19},
    Row{"zen4", CpuArch::kX86_64, CpuVendor::kAmd, 0x19},
    Row{"zen5", CpuArch::kX86_64, CpuVendor::kAmd, 0x1a},
    Row{"power7", CpuArch::kPowerPC, CpuVendor::kIbm, 0},
    Row{"power8", CpuArch::kPowerPC, CpuVendor::kIbm, 0},
    Row{"power9", CpuArch::kPowerPC, CpuVendor::kIbm, 0},
    Row{"power10", CpuArch::kPowerPC, CpuVendor::kIbm, 0},
    Row{"powerpc", CpuArch::kPowerPC, CpuVendor::kIbm, 0},
};

}  // namespace

std::optional<CpuModel> find_cpu_model(std::string_view name) {
    for (const Row& r : kModels)
        if (name == r.name) return CpuModel{r.name, r.arch, r.vendor, r.x86_family};
    return std::nullopt;
}

std::vector<std::string> cpu_model_names() {
    std::vector<std::string> names;
    for (const Row& r : kModels)
        names.emplace_back(r.name);
    return names;
}

}  // namespace numasim
