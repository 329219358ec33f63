// Memory policies as set_mempolicy(2)/mbind(2) define them, with the internal flags that
// mpol_misplaced() reads (MPOL_F_MOF: migrate on fault, MPOL_F_MORON: migrate toward the
// faulting CPU's node).
#pragma once

#include <cstdint>
#include <string>

namespace numasim {

enum class MpolMode : uint8_t { Default, Preferred, Bind, Interleave, Local };

inline constexpr uint16_t MPOL_F_MOF = 1 << 3;    // include/uapi/linux/mempolicy.h internal flag
inline constexpr uint16_t MPOL_F_MORON = 1 << 4;  // migrate on protnone reference on node
inline constexpr uint16_t MPOL_F_NUMA_BALANCING = 1 << 13;  // user flag allowed with BIND

struct MemPolicy {
    MpolMode mode = MpolMode::Default;
    uint64_t nodes = 0;  // node mask (bit n = node n); at most 64 nodes
    uint16_t flags = 0;

    bool has_node(int nid) const { return nid < 64 && ((nodes >> nid) & 1); }
    int first_node() const;
    int weight() const;
};

std::string to_string(MpolMode m);
// Parses "default", "preferred", "bind", "interleave", "local"; false if unknown.
bool parse_mpol_mode(const std::string& s, MpolMode& out);

}  // namespace numasim
