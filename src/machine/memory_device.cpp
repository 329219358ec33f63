#include "machine/memory_device.h"

namespace numasim {

namespace {

struct KindName {
    MemoryKind kind;
    std::string_view name;
};

// The names a machine file writes in `kind`.
constexpr KindName kKindNames[] = {
    {MemoryKind::kDram, "dram"},
    {MemoryKind::kCxl, "cxl"},
    {MemoryKind::kPmem, "pmem"},
    {MemoryKind::kHbm, "hbm"},
};

}  // namespace

std::optional<MemoryKind> parse_memory_kind(std::string_view text) {
    for (const KindName& k : kKindNames)
        if (k.name == text) return k.kind;
    return std::nullopt;
}

std::string_view memory_kind_name(MemoryKind kind) {
    for (const KindName& k : kKindNames)
        if (k.kind == kind) return k.name;
    return "dram";
}

}  // namespace numasim
