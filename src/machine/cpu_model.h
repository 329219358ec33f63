// What the kernel learns of the CPU at boot that changes how it builds its NUMA scheduling
// domains: the architecture, and on x86 the vendor and family. Each named model is one row of
// a table (cpu_model.cpp); a machine file names its model in [machine] cpu.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace numasim {

enum class CpuArch { kX86_64, kPowerPC };
enum class CpuVendor { kIntel, kAmd, kIbm };

// A default-constructed model is what a machine file without [machine] cpu gets: a generic Intel
// x86-64 part, for which no kernel changes a scheduling default.
struct CpuModel {
    std::string name = "intel";  // the [machine] cpu value: "haswell", "zen3", "power8", ...
    CpuArch arch = CpuArch::kX86_64;
    CpuVendor vendor = CpuVendor::kIntel;
    int x86_family = 6;  // CPUID family (boot_cpu_data.x86); 0 off x86
    bool operator==(const CpuModel&) const = default;
};

std::optional<CpuModel> find_cpu_model(std::string_view name);
// The names find_cpu_model() knows, in table order, for error messages and docs.
std::vector<std::string> cpu_model_names();

}  // namespace numasim
